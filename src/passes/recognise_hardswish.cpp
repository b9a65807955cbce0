// recognise_hardswish.cpp: the two ways exporters spell HardSwish (MobileNetV3 and friends) -> Unary HardSwish.
//
// Matches, with every intermediate value read only by the next node of the pattern:
//   (a) Mul(X, HardSigmoid(X; alpha = 1/6, beta = 1/2))               in either operand order
//   (b) Div(Mul(X, Relu6(Add(X, 3))), 6)  or  Mul(Mul(X, Relu6(Add(X, 3))), 1/6)   (operands of Add/Mul in any order)
// where 3, 6 and 1/6 are float32 constants of one element whose rank does not exceed X's (so broadcasting them leaves
// X's shape). Relu6 is what recognise_relu6 made of Clip(0, 6), so this pass runs after it.
// Rewrite: the outer node becomes HardSwish(X) writing the same output; the inner nodes are removed.
// Safe because HardSwish(x) = x * max(0, min(1, x/6 + 1/2)) = x * Relu6(x + 3) / 6 by definition (ONNX HardSwish).
#include <cmath>

#include "passes/pass_util.h"
#include "passes/passes.h"

namespace strata::passes {
namespace {

bool near(float got, double want) { return std::abs(double(got) - want) <= 1e-6 * std::abs(want); }

// True if `c` is a one-element float32 constant equal to `want` that broadcasts against X without growing its rank.
bool is_scalar(const ir::Graph& graph, ir::ValueId c, double want, ir::ValueId x) {
    std::optional<float> v = scalar_constant(graph, c);
    if (!v || !near(*v, want)) return false;
    const ir::Value& xv = graph.value(x);
    return xv.has_shape && graph.value(c).shape.size() <= xv.shape.size();
}

// The producer of `v` if it is the node `pred` accepts and `reader` is the only reader of `v`.
template <class Pred>
std::optional<size_t> sole_producer(const ir::Graph& graph, ir::ValueId v, size_t reader, Pred pred) {
    std::optional<size_t> p = graph.producer(v);
    if (!p || sole_reader(graph, v) != reader || !pred(graph.nodes()[*p])) return std::nullopt;
    return p;
}

// The other operand of a two-input node when one operand is `known`, else kNoValue.
ir::ValueId other_operand(const ir::Node& node, ir::ValueId known) {
    if (node.inputs[0] == known) return node.inputs[1];
    if (node.inputs[1] == known) return node.inputs[0];
    return ir::kNoValue;
}

// Pattern (a) at the Mul `i`: X and the nodes to remove, or nothing.
std::optional<std::pair<ir::ValueId, std::vector<size_t>>> match_hardsigmoid(const ir::Graph& graph, size_t i) {
    const ir::Node& mul = graph.nodes()[i];
    if (!is_binary(mul, ir::BinaryKind::Mul)) return std::nullopt;
    for (size_t side = 0; side < 2; ++side) {
        ir::ValueId x = mul.inputs[side];
        auto hs = sole_producer(graph, mul.inputs[1 - side], i, [&](const ir::Node& n) {
            if (!is_unary(n, ir::UnaryKind::HardSigmoid) || n.inputs[0] != x) return false;
            const auto& a = n.attr<ir::UnaryAttrs>();
            return near(a.alpha, 1.0 / 6.0) && near(a.beta, 0.5);
        });
        if (hs) return std::make_pair(x, std::vector<size_t>{*hs});
    }
    return std::nullopt;
}

// Pattern (b) from the product m = Mul(X, Relu6(Add(X, 3))) read only by node `reader`: X and the nodes to remove.
std::optional<std::pair<ir::ValueId, std::vector<size_t>>> match_relu6_product(const ir::Graph& graph, ir::ValueId m,
                                                                               size_t reader) {
    auto mul = sole_producer(graph, m, reader, [](const ir::Node& n) { return is_binary(n, ir::BinaryKind::Mul); });
    if (!mul) return std::nullopt;
    const ir::Node& mn = graph.nodes()[*mul];
    for (size_t side = 0; side < 2; ++side) {
        ir::ValueId x = mn.inputs[side];
        auto r6 = sole_producer(graph, mn.inputs[1 - side], *mul,
                                [](const ir::Node& n) { return is_unary(n, ir::UnaryKind::Relu6); });
        if (!r6) continue;
        auto add = sole_producer(graph, graph.nodes()[*r6].inputs[0], *r6, [&](const ir::Node& n) {
            if (!is_binary(n, ir::BinaryKind::Add)) return false;
            ir::ValueId c = other_operand(n, x);
            return c != ir::kNoValue && is_scalar(graph, c, 3.0, x);
        });
        if (add) return std::make_pair(x, std::vector<size_t>{*mul, *r6, *add});
    }
    return std::nullopt;
}

// Pattern (b) at the outer Div by 6 or Mul by 1/6 `i`.
std::optional<std::pair<ir::ValueId, std::vector<size_t>>> match_relu6_form(const ir::Graph& graph, size_t i) {
    const ir::Node& outer = graph.nodes()[i];
    bool div = is_binary(outer, ir::BinaryKind::Div), mul = is_binary(outer, ir::BinaryKind::Mul);
    if (!div && !mul) return std::nullopt;
    for (size_t side = 0; side < (div ? 1u : 2u); ++side) {
        ir::ValueId m = outer.inputs[side], c = outer.inputs[1 - side];
        auto found = match_relu6_product(graph, m, i);
        if (found && is_scalar(graph, c, div ? 6.0 : 1.0 / 6.0, found->first)) return found;
    }
    return std::nullopt;
}

}  // namespace

bool recognise_hardswish(ir::Graph& graph) {
    NodeEraser eraser(graph);
    for (size_t i = 0; i < graph.nodes().size(); ++i) {
        auto found = match_hardsigmoid(graph, i);
        if (!found) found = match_relu6_form(graph, i);
        if (!found) continue;
        for (size_t dead : found->second) eraser.kill(dead);
        ir::Node& node = graph.nodes()[i];
        node.op = ir::OpKind::Unary;
        node.inputs = {found->first};
        node.attrs = ir::UnaryAttrs{ir::UnaryKind::HardSwish};
    }
    return eraser.erase() > 0;
}

}  // namespace strata::passes
