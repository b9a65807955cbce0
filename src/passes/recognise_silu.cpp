// recognise_silu.cpp: x * Sigmoid(x) -> SiLU (torch's SiLU/Swish exported by opsets before it had its own op).
//
// Matches: a Binary Mul of X and Sigmoid(X), in either operand order, where the Sigmoid's output is read by nothing
// else (so the Sigmoid can go).
// Rewrite: the Mul becomes Unary SiLU(X) writing the same output; the Sigmoid is removed.
// Safe because SiLU(x) = x * sigmoid(x) by definition, elementwise on the same shape (no broadcasting involved: both
// operands have X's shape).
#include "passes/pass_util.h"
#include "passes/passes.h"

namespace strata::passes {
namespace {

// The index of the Sigmoid node if `s` = Sigmoid(x) and the Mul (at `mul_index`) is its only reader.
std::optional<size_t> sigmoid_of(const ir::Graph& graph, ir::ValueId s, ir::ValueId x, size_t mul_index) {
    std::optional<size_t> producer = graph.producer(s);
    if (!producer || sole_reader(graph, s) != mul_index) return std::nullopt;
    const ir::Node& sig = graph.nodes()[*producer];
    if (!is_unary(sig, ir::UnaryKind::Sigmoid) || sig.inputs[0] != x) return std::nullopt;
    return producer;
}

}  // namespace

bool recognise_silu(ir::Graph& graph) {
    NodeEraser eraser(graph);
    for (size_t i = 0; i < graph.nodes().size(); ++i) {
        ir::Node& mul = graph.nodes()[i];
        if (!is_binary(mul, ir::BinaryKind::Mul) || mul.inputs[0] == mul.inputs[1]) continue;
        for (size_t side = 0; side < 2; ++side) {
            ir::ValueId x = mul.inputs[side], s = mul.inputs[1 - side];
            std::optional<size_t> sig = sigmoid_of(graph, s, x, i);
            if (!sig) continue;
            eraser.kill(*sig);
            mul.op = ir::OpKind::Unary;
            mul.inputs = {x};
            mul.attrs = ir::UnaryAttrs{ir::UnaryKind::SiLU};
            break;
        }
    }
    return eraser.erase() > 0;
}

}  // namespace strata::passes
