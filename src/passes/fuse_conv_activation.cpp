// fuse_conv_activation.cpp: an activation after a Conv or FullyConnected becomes the node's fused epilogue.
//
// Matches: Conv or FullyConnected without an activation yet, whose output is read only by a single-input Unary of a
// kind the kernels apply in their epilogue (Relu, Relu6, SiLU, Sigmoid, HardSwish, LeakyRelu, Clip).
// Rewrite: ConvAttrs/FullyConnectedAttrs::activation = the Unary's attrs; the node writes the Unary's output and the
// Unary is removed.
// Safe because the activation is elementwise on the node's output and nothing else reads the pre-activation value;
// kernels apply it after the bias, which is where the Unary applied it. Saves one pass over the activations.
#include "passes/pass_util.h"
#include "passes/passes.h"

namespace strata::passes {
namespace {

bool fusable_kind(ir::UnaryKind k) {
    using K = ir::UnaryKind;
    return k == K::Relu || k == K::Relu6 || k == K::SiLU || k == K::Sigmoid || k == K::HardSwish ||
           k == K::LeakyRelu || k == K::Clip;
}

// The node's empty activation slot, or nullptr if it has none or it is taken.
std::optional<ir::UnaryAttrs>* free_activation_slot(ir::Node& node) {
    std::optional<ir::UnaryAttrs>* slot = nullptr;
    if (node.op == ir::OpKind::Conv) slot = &node.attr<ir::ConvAttrs>().activation;
    if (node.op == ir::OpKind::FullyConnected) slot = &node.attr<ir::FullyConnectedAttrs>().activation;
    return slot && !slot->has_value() && node.outputs.size() == 1 ? slot : nullptr;
}

}  // namespace

bool fuse_conv_activation(ir::Graph& graph) {
    NodeEraser eraser(graph);
    for (size_t i = 0; i < graph.nodes().size(); ++i) {
        ir::Node& node = graph.nodes()[i];
        std::optional<ir::UnaryAttrs>* slot = free_activation_slot(node);
        if (!slot) continue;
        std::optional<size_t> reader = sole_reader(graph, node.outputs[0]);
        if (!reader) continue;
        const ir::Node& act = graph.nodes()[*reader];
        if (act.op != ir::OpKind::Unary || act.inputs.size() != 1 || act.outputs.size() != 1) continue;
        const auto& attrs = act.attr<ir::UnaryAttrs>();
        if (!fusable_kind(attrs.kind)) continue;
        *slot = attrs;
        node.outputs[0] = act.outputs[0];
        eraser.kill(*reader);
    }
    return eraser.erase() > 0;
}

}  // namespace strata::passes
