// fuse_conv_residual.cpp: a residual Add after a Conv becomes the Conv's epilogue (ResNet's shortcut, MobileNetV2's
// and EfficientNet's inverted-residual skip). GPU plans run it; the CPU kernels have no residual input.
//
// Matches: Add(A, B) where A (or B) is the output of a Conv without an activation and without a residual yet, read
// only by this Add, and the other operand Z has exactly the Conv's output shape and dtype. When both operands are
// such Convs (ResNet's projection shortcut), the later one takes the residual: the other is then computed first.
// Rewrite: the Conv gets Z as input 3 (ConvAttrs: Y = act(conv + B + Z)) and writes the Add's output; the Add goes.
// Safe because nothing else reads the Conv's own output and addition is what the epilogue does before its
// (absent) activation; fuse_conv_activation may then fuse a Relu that follows the Add.
#include "passes/pass_util.h"
#include "passes/passes.h"

namespace strata::passes {
namespace {

// The index of the Conv producing `v` if it can take a residual for the Add at `add`, else nullopt.
std::optional<size_t> fusable_conv(const ir::Graph& graph, ir::ValueId v, size_t add) {
    std::optional<size_t> producer = graph.producer(v);
    if (!producer) return std::nullopt;
    const ir::Node& conv = graph.nodes()[*producer];
    if (conv.op != ir::OpKind::Conv || conv.outputs.size() != 1 || conv.input(3) != ir::kNoValue) return std::nullopt;
    if (conv.attr<ir::ConvAttrs>().activation) return std::nullopt;
    if (sole_reader(graph, v) != add) return std::nullopt;
    return producer;
}

bool same_form(const ir::Value& a, const ir::Value& b) {
    return a.has_shape && b.has_shape && a.shape == b.shape && a.dtype == b.dtype;
}

}  // namespace

bool fuse_conv_residual(ir::Graph& graph) {
    NodeEraser eraser(graph);
    for (size_t i = 0; i < graph.nodes().size(); ++i) {
        const ir::Node& add = graph.nodes()[i];
        if (!is_binary(add, ir::BinaryKind::Add) || add.inputs.size() != 2 || add.outputs.size() != 1) continue;
        ir::ValueId a = add.inputs[0], b = add.inputs[1];
        if (a == b || !same_form(graph.value(a), graph.value(b))) continue;
        std::optional<size_t> ca = fusable_conv(graph, a, i), cb = fusable_conv(graph, b, i);
        if (!ca && !cb) continue;
        bool take_b = cb && (!ca || *cb > *ca);
        size_t conv_index = take_b ? *cb : *ca;
        ir::ValueId residual = take_b ? a : b;
        ir::ValueId out = add.outputs[0];
        eraser.kill(i);
        ir::Node& conv = graph.nodes()[conv_index];
        conv.inputs.resize(4, ir::kNoValue);
        conv.inputs[3] = residual;
        conv.outputs[0] = out;
    }
    bool changed = eraser.erase() > 0;
    if (changed) graph.topo_sort();  // a Conv now reads a value that may be produced after it
    return changed;
}

}  // namespace strata::passes
