// fold_batchnorm.cpp: folds an inference BatchNorm into the Conv that feeds it.
//
// Matches: Conv (float32 constant W [Cout, Cin/g, k...], optional float32 constant B [Cout], no fused activation yet)
// whose output is read only by a BatchNorm (as its X) with float32 constant scale, bias, mean and var of [Cout].
// Rewrite: per output channel c, with s = scale[c] / sqrt(var[c] + eps):
//     W'[c] = W[c] * s        B'[c] = (B[c] - mean[c]) * s + bias[c]
// and the Conv writes the BatchNorm's output. W' and B' are new constants (W may be shared with another node).
// Safe because BatchNorm in inference is a per-channel affine map y = s * (x - mean) + bias applied to the Conv's
// output channels, and a Conv is linear in W and B; products are formed in double to keep rounding at float level.
#include <cmath>

#include "passes/pass_util.h"
#include "passes/passes.h"

namespace strata::passes {
namespace {

struct BatchNormParams {
    const float* scale;
    const float* bias;
    const float* mean;
    const float* var;
    double epsilon;
};

// The BatchNorm's params if all are float32 constants of [channels].
std::optional<BatchNormParams> constant_params(const ir::Graph& graph, const ir::Node& bn, int64_t channels) {
    if (bn.inputs.size() != 5 || bn.outputs.size() != 1) return std::nullopt;
    for (size_t k = 1; k < 5; ++k)
        if (!is_f32_constant(graph, bn.inputs[k], {channels})) return std::nullopt;
    auto data = [&](size_t k) { return graph.value(bn.inputs[k]).constant->data<float>(); };
    return BatchNormParams{data(1), data(2), data(3), data(4), bn.attr<ir::BatchNormAttrs>().epsilon};
}

// True if the Conv has a constant weight (and bias, if any) and no activation yet, so a BatchNorm can fold into it.
bool conv_foldable(const ir::Graph& graph, const ir::Node& conv) {
    if (conv.op != ir::OpKind::Conv || conv.outputs.size() != 1 || conv.attr<ir::ConvAttrs>().activation) return false;
    ir::ValueId w = conv.input(1), b = conv.input(2);
    if (!graph.is_constant(w) || graph.value(w).constant->dtype() != DType::f32) return false;
    const Tensor& wt = *graph.value(w).constant;
    if (wt.rank() < 2) return false;
    return b == ir::kNoValue || is_f32_constant(graph, b, {wt.dim(0)});
}

void fold(ir::Graph& graph, ir::Node& conv, const ir::Node& bn, const BatchNormParams& p) {
    const Tensor& w = *graph.value(conv.inputs[1]).constant;
    ir::ValueId b_id = conv.input(2);
    const float* b = b_id == ir::kNoValue ? nullptr : graph.value(b_id).constant->data<float>();
    int64_t channels = w.dim(0), per_channel = w.numel() / channels;
    Tensor w2 = Tensor::empty(DType::f32, w.shape());
    Tensor b2 = Tensor::empty(DType::f32, {channels});
    for (int64_t c = 0; c < channels; ++c) {
        double s = double(p.scale[c]) / std::sqrt(double(p.var[c]) + p.epsilon);
        const float* src = w.data<float>() + c * per_channel;
        float* dst = w2.data<float>() + c * per_channel;
        for (int64_t k = 0; k < per_channel; ++k) dst[k] = static_cast<float>(double(src[k]) * s);
        double bias = b ? double(b[c]) : 0.0;
        b2.data<float>()[c] = static_cast<float>((bias - double(p.mean[c])) * s + double(p.bias[c]));
    }
    std::string base = graph.value(conv.inputs[1]).name;
    ir::ValueId w_id = graph.add_constant(graph.unique_name(base + ".bn_folded"), std::move(w2));
    ir::ValueId new_b = graph.add_constant(graph.unique_name(conv.name + ".bias.bn_folded"), std::move(b2));
    conv.inputs = {conv.inputs[0], w_id, new_b};
    conv.outputs[0] = bn.outputs[0];
}

}  // namespace

bool fold_batchnorm(ir::Graph& graph) {
    NodeEraser eraser(graph);
    for (size_t i = 0; i < graph.nodes().size(); ++i) {
        const ir::Node& conv = graph.nodes()[i];
        if (!conv_foldable(graph, conv)) continue;
        std::optional<size_t> reader = sole_reader(graph, conv.outputs[0]);
        if (!reader) continue;
        const ir::Node& bn = graph.nodes()[*reader];
        if (bn.op != ir::OpKind::BatchNorm || bn.input(0) != conv.outputs[0]) continue;
        int64_t channels = graph.value(conv.inputs[1]).constant->dim(0);
        std::optional<BatchNormParams> params = constant_params(graph, bn, channels);
        if (!params) continue;
        fold(graph, graph.nodes()[i], bn, *params);
        eraser.kill(*reader);
    }
    return eraser.erase() > 0;
}

}  // namespace strata::passes
