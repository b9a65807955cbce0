// fuse_separable_conv.cpp: a depthwise Conv followed by a 1x1 Conv becomes one SeparableConv (MobileNet's and
// EfficientNet's separable blocks), so that a GPU plan can run them as one fused kernel without the intermediate
// ever reaching memory. Not in the default pipeline: the CUDA builder calls it with an `accept` that decides by
// timing which pairs to fuse. SEEDS.md section 5 ("fuse dw->pw where it fits on chip"), a straight chain of
// section 1.
//
// Matches: a 2-D Conv with W [C,1,R,S] and group C (depthwise, multiplier 1; any kernel, stride, dilation, pads and
// fused activation; no residual), whose output is no graph output and is read by exactly one node, which reads it
// only as input 0: a 2-D Conv with W [K,C,1,1], strides 1, dilations 1, zero pads and group 1 (it may have a bias,
// a residual and an activation).
// Rewrite: SeparableConv(X, Wd, Bd, Wp, Bp, Z) at the 1x1 Conv's place, writing its output; the two Convs go (the
// intermediate value is left unread, as other passes leave the values they bypass).
// Safe because SeparableConv computes exactly the two Convs in sequence, and nothing else read the intermediate.
#include <algorithm>

#include "passes/pass_util.h"
#include "passes/passes.h"

namespace strata::passes {
namespace {

bool all_equal(const std::vector<int64_t>& v, int64_t value) {
    return std::all_of(v.begin(), v.end(), [&](int64_t x) { return x == value; });
}

// A 2-D Conv with one output and known 4-D X and W; the W shape, else nullptr.
const Shape* conv2d_weight(const ir::Graph& graph, const ir::Node& n) {
    if (n.op != ir::OpKind::Conv || n.outputs.size() != 1 || n.inputs.size() < 2) return nullptr;
    const ir::Value& x = graph.value(n.inputs[0]);
    const ir::Value& w = graph.value(n.inputs[1]);
    if (!x.has_shape || !w.has_shape || x.shape.size() != 4 || w.shape.size() != 4) return nullptr;
    return &w.shape;
}

bool is_depthwise(const ir::Graph& graph, const ir::Node& n) {
    const Shape* w = conv2d_weight(graph, n);
    if (!w || n.input(3) != ir::kNoValue) return false;
    const int64_t c = (*w)[0];
    const int64_t x_channels = graph.value(n.inputs[0]).shape[1];
    return (*w)[1] == 1 && n.attr<ir::ConvAttrs>().group == c && x_channels == c;
}

bool is_pointwise(const ir::Graph& graph, const ir::Node& n, ir::ValueId mid) {
    const Shape* w = conv2d_weight(graph, n);
    if (!w || (*w)[2] != 1 || (*w)[3] != 1 || n.inputs[0] != mid) return false;
    if (std::count(n.inputs.begin(), n.inputs.end(), mid) != 1) return false;
    const auto& a = n.attr<ir::ConvAttrs>();
    return a.group == 1 && all_equal(a.kernel, 1) && all_equal(a.strides, 1) && all_equal(a.dilations, 1) &&
           all_equal(a.pads_begin, 0) && all_equal(a.pads_end, 0);
}

ir::Node separable_node(const ir::Node& dw, const ir::Node& pw) {
    ir::Node n;
    n.name = pw.name + "/separable";
    n.op = ir::OpKind::SeparableConv;
    n.inputs = {dw.inputs[0], dw.inputs[1], dw.input(2), pw.inputs[1], pw.input(2), pw.input(3)};
    while (n.inputs.size() > 4 && n.inputs.back() == ir::kNoValue) n.inputs.pop_back();
    n.outputs = pw.outputs;
    n.attrs = ir::SeparableConvAttrs{dw.attr<ir::ConvAttrs>(), pw.attr<ir::ConvAttrs>()};
    return n;
}

}  // namespace

std::vector<SeparablePair> separable_pairs(const ir::Graph& graph) {
    std::vector<SeparablePair> pairs;
    std::vector<bool> taken(graph.nodes().size(), false);  // a 1x1 Conv on one channel is both kinds: pair it once
    for (size_t i = 0; i < graph.nodes().size(); ++i) {
        const ir::Node& dw = graph.nodes()[i];
        if (taken[i] || !is_depthwise(graph, dw)) continue;
        std::optional<size_t> reader = sole_reader(graph, dw.outputs[0]);
        if (!reader || !is_pointwise(graph, graph.nodes()[*reader], dw.outputs[0])) continue;
        taken[i] = taken[*reader] = true;
        pairs.push_back({i, *reader});
    }
    return pairs;
}

bool fuse_separable_conv(ir::Graph& graph, const SeparableAccept& accept) {
    std::vector<SeparablePair> chosen;
    for (const SeparablePair& p : separable_pairs(graph))
        if (accept(graph, graph.nodes()[p.dw], graph.nodes()[p.pw])) chosen.push_back(p);
    NodeEraser eraser(graph);
    for (const SeparablePair& p : chosen) {
        // At the 1x1 Conv's place every input is defined already (X and Wd before the depthwise Conv, Z before
        // the 1x1 Conv), so the order stays topological.
        graph.nodes()[p.pw] = separable_node(graph.nodes()[p.dw], graph.nodes()[p.pw]);
        eraser.kill(p.dw);
        infer_node_shapes_if_static(graph, graph.nodes()[p.pw]);
    }
    return eraser.erase() > 0;
}

bool fuse_separable_conv(ir::Graph& graph) {
    return fuse_separable_conv(graph, [](const ir::Graph&, const ir::Node&, const ir::Node&) { return true; });
}

}  // namespace strata::passes
