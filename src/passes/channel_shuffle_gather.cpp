// channel_shuffle_gather.cpp: ShuffleNet's channel shuffle, as exported (Reshape -> Transpose -> Reshape), becomes
// one Gather of channels. GPU plans run it: there the three nodes cost a layout Cast each way around the logical-
// order Reshapes plus a 5-D transpose copy, and the Gather is one layout-aware copy in the network's layout. Not in
// the common pipeline: on the CPU the Reshapes are already aliased views and the rewrite (bit-identical there too)
// has not been measured to pay, so CPU plans stay exactly as they were.
//
// Matches: R1 = Reshape(X) with X of known shape [N, C, H, W] and R1 of shape [N, g, C/g, H, W] (g >= 1); then
// T = Transpose(R1) with perm exactly [0, 2, 1, 3, 4]; then R2 = Reshape(T) of shape [N, C, H, W]. R1 must be read
// only by T and T only by R2 (neither a graph output); R2 may be read anywhere.
// Rewrite: R2 becomes Gather(X, idx) on axis 1 (writing R2's output, so its name and readers stay), with idx a
// constant int64 [C] holding, for output channel j, the input channel (j % g) * (C/g) + j / g; R1 and T go.
// Why that index: X channel c = a * (C/g) + b sits at R1[n, a, b]; T puts it at [n, b, a], and R2 flattens (b, a)
// to channel j = b * g + a. So j's source has a = j % g and b = j / g. Gather's Y[n, j] = X[n, idx[j]] moves the
// same elements, bit for bit, in every dtype.
#include "passes/pass_util.h"
#include "passes/passes.h"

namespace strata::passes {
namespace {

bool static_shape(const ir::Value& v, size_t rank) {
    if (!v.has_shape || v.shape.size() != rank) return false;
    for (int64_t d : v.shape)
        if (d < 0) return false;
    return true;
}

// The index of the node producing `v` if it is an op of `kind` with one output, read only by node `reader`.
std::optional<size_t> sole_producer(const ir::Graph& graph, ir::ValueId v, ir::OpKind kind, size_t reader) {
    std::optional<size_t> p = graph.producer(v);
    if (!p || graph.nodes()[*p].op != kind || graph.nodes()[*p].outputs.size() != 1) return std::nullopt;
    if (sole_reader(graph, v) != reader) return std::nullopt;
    return p;
}

// The group count g if R1 = Reshape(X) splits X [N, C, H, W] into [N, g, C/g, H, W], else nullopt.
std::optional<int64_t> shuffle_groups(const ir::Graph& graph, const ir::Node& r1) {
    const ir::Value& x = graph.value(r1.inputs[0]);
    const ir::Value& y = graph.value(r1.outputs[0]);
    if (!static_shape(x, 4) || !static_shape(y, 5)) return std::nullopt;
    const Shape &xs = x.shape, &ys = y.shape;
    bool fits = ys[0] == xs[0] && ys[3] == xs[2] && ys[4] == xs[3] && ys[1] >= 1 && ys[1] * ys[2] == xs[1];
    return fits ? std::optional<int64_t>(ys[1]) : std::nullopt;
}

// Output channel j of a shuffle of C channels in g groups reads input channel (j % g) * (C / g) + j / g.
Tensor shuffle_indices(int64_t channels, int64_t groups) {
    Tensor idx = Tensor::empty(DType::i64, {channels});
    int64_t per_group = channels / groups;
    for (int64_t j = 0; j < channels; ++j) idx.data<int64_t>()[j] = (j % groups) * per_group + j / groups;
    return idx;
}

}  // namespace

bool channel_shuffle_gather(ir::Graph& graph) {
    NodeEraser eraser(graph);
    for (size_t i = 0; i < graph.nodes().size(); ++i) {
        const ir::Node& t = graph.nodes()[i];
        if (t.op != ir::OpKind::Transpose || t.inputs.size() != 1 || t.outputs.size() != 1) continue;
        if (t.attr<ir::TransposeAttrs>().perm != std::vector<int64_t>{0, 2, 1, 3, 4}) continue;
        std::optional<size_t> r1 = sole_producer(graph, t.inputs[0], ir::OpKind::Reshape, i);
        std::optional<size_t> r2 = sole_reader(graph, t.outputs[0]);
        if (!r1 || !r2 || graph.nodes()[*r2].op != ir::OpKind::Reshape || graph.nodes()[*r2].outputs.size() != 1)
            continue;
        std::optional<int64_t> groups = shuffle_groups(graph, graph.nodes()[*r1]);
        ir::ValueId x = graph.nodes()[*r1].inputs[0], y = graph.nodes()[*r2].outputs[0];
        if (!groups || !static_shape(graph.value(y), 4) || graph.value(y).shape != graph.value(x).shape) continue;
        if (graph.value(y).dtype != graph.value(x).dtype) continue;
        int64_t channels = graph.value(x).shape[1];
        ir::ValueId idx =
            graph.add_constant(graph.unique_name(t.name + ".shuffle_indices"), shuffle_indices(channels, *groups));
        std::string name = t.name;
        eraser.kill(*r1);
        eraser.kill(i);
        ir::Node& gather = graph.nodes()[*r2];
        gather.op = ir::OpKind::Gather;
        gather.name = name;
        gather.inputs = {x, idx};
        gather.attrs = ir::AxisAttrs{1};
    }
    return eraser.erase() > 0;
}

}  // namespace strata::passes
