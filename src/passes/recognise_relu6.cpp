// recognise_relu6.cpp: names the clamps exporters write as Clip (torch's ReLU6 is exported as Clip(0, 6)).
//
// Matches: a Unary Clip with one input (min and max absorbed into alpha and beta) where alpha == 0 and beta == 6
// (-> Relu6) or alpha == 0 and beta == +inf (-> Relu, the exporters' Clip(min=0) without max).
// Safe because Relu6(x) = min(max(x, 0), 6) and Relu(x) = max(x, 0) are those clamps by definition; naming them lets
// kernels and fusion recognise them without comparing floats.
#include <cmath>

#include "passes/pass_util.h"
#include "passes/passes.h"

namespace strata::passes {

bool recognise_relu6(ir::Graph& graph) {
    bool changed = false;
    for (ir::Node& node : graph.nodes()) {
        if (!is_unary(node, ir::UnaryKind::Clip)) continue;
        auto& attrs = node.attr<ir::UnaryAttrs>();
        if (attrs.alpha != 0.0f) continue;
        if (attrs.beta == 6.0f) {
            attrs = ir::UnaryAttrs{ir::UnaryKind::Relu6};
        } else if (std::isinf(attrs.beta) && attrs.beta > 0) {
            attrs = ir::UnaryAttrs{ir::UnaryKind::Relu};
        } else {
            continue;
        }
        changed = true;
    }
    return changed;
}

}  // namespace strata::passes
