// fully_connected.cpp: the classifier heads' Gemm / MatMul with a constant weight -> FullyConnected.
//
// Matches: Gemm(A, B, [C]) with alpha 1, transA 0, A 2-D, B a float32 constant 2-D, and C absent or (with beta 1)
// a float32 constant 1-D of B's output size; and MatMul(A, B) with A 2-D and B a float32 constant 2-D.
// Rewrite: FullyConnected(A, W, [C]) with W [M, K] = B when transB, else B transposed (a new constant: B may be
// shared). FullyConnected computes Y[n, m] = sum_k X[n, k] * W[m, k] + bias[m].
// Safe because that is exactly Gemm's alpha * A * op(B) + beta * C for those attributes, and numpy matmul of two
// 2-D operands; one fixed weight layout lets the CPU and CUDA kernels be written once.
#include "passes/pass_util.h"
#include "passes/passes.h"

namespace strata::passes {
namespace {

bool is_2d_input(const ir::Graph& graph, ir::ValueId a) {
    return a != ir::kNoValue && graph.value(a).has_shape && graph.value(a).shape.size() == 2;
}

bool is_2d_f32_constant(const ir::Graph& graph, ir::ValueId b) {
    return graph.is_constant(b) && graph.value(b).constant->dtype() == DType::f32 &&
           graph.value(b).constant->rank() == 2;
}

// W [M, K] from B: B itself when it is already [M, K] (Gemm transB), else a transposed copy of B [K, M].
ir::ValueId weight_from(ir::Graph& graph, ir::ValueId b, bool b_is_transposed) {
    if (b_is_transposed) return b;
    const Tensor& src = *graph.value(b).constant;
    int64_t k = src.dim(0), m = src.dim(1);
    Tensor w = Tensor::empty(DType::f32, {m, k});
    for (int64_t i = 0; i < k; ++i)
        for (int64_t j = 0; j < m; ++j) w.data<float>()[j * k + i] = src.data<float>()[i * m + j];
    return graph.add_constant(graph.unique_name(graph.value(b).name + ".transposed"), std::move(w));
}

// The bias input for FullyConnected, kNoValue for none; nullopt when C does not fit.
std::optional<ir::ValueId> gemm_bias(const ir::Graph& graph, const ir::Node& gemm, int64_t m) {
    ir::ValueId c = gemm.input(2);
    if (c == ir::kNoValue) return ir::kNoValue;
    if (gemm.attr<ir::GemmAttrs>().beta != 1.0f || !is_f32_constant(graph, c, {m})) return std::nullopt;
    return c;
}

bool rewrite_gemm(ir::Graph& graph, ir::Node& node) {
    const auto attrs = node.attr<ir::GemmAttrs>();
    if (attrs.alpha != 1.0f || attrs.trans_a || node.outputs.size() != 1) return false;
    if (!is_2d_input(graph, node.input(0)) || !is_2d_f32_constant(graph, node.input(1))) return false;
    const Tensor& b = *graph.value(node.inputs[1]).constant;
    std::optional<ir::ValueId> bias = gemm_bias(graph, node, attrs.trans_b ? b.dim(0) : b.dim(1));
    if (!bias) return false;
    ir::ValueId w = weight_from(graph, node.inputs[1], attrs.trans_b);
    node.inputs = {node.inputs[0], w};
    if (*bias != ir::kNoValue) node.inputs.push_back(*bias);
    node.op = ir::OpKind::FullyConnected;
    node.attrs = ir::FullyConnectedAttrs{};
    return true;
}

bool rewrite_matmul(ir::Graph& graph, ir::Node& node) {
    if (node.inputs.size() != 2 || node.outputs.size() != 1) return false;
    if (!is_2d_input(graph, node.inputs[0]) || !is_2d_f32_constant(graph, node.inputs[1])) return false;
    node.inputs = {node.inputs[0], weight_from(graph, node.inputs[1], false)};
    node.op = ir::OpKind::FullyConnected;
    node.attrs = ir::FullyConnectedAttrs{};
    return true;
}

}  // namespace

bool fully_connected(ir::Graph& graph) {
    bool changed = false;
    for (ir::Node& node : graph.nodes()) {
        if (node.op == ir::OpKind::Gemm) changed |= rewrite_gemm(graph, node);
        else if (node.op == ir::OpKind::MatMul) changed |= rewrite_matmul(graph, node);
    }
    return changed;
}

}  // namespace strata::passes
