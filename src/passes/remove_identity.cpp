// remove_identity.cpp: bypasses Identity and inference-mode Dropout nodes (Y = X).
//
// Matches: Identity, or Dropout with one output (the frontend refuses a Dropout whose mask is used).
// Rewrite: readers of Y read X instead. When Y is a graph output its name is part of the model's interface, so
// instead the producer of X is made to write Y directly (X's readers follow). That is not possible when X has no
// producer (a graph input or a constant) or is itself a graph output (two outputs would become one value); then the
// node stays.
// Safe because both ops copy their input unchanged in inference.
#include "passes/pass_util.h"
#include "passes/passes.h"

namespace strata::passes {
namespace {

bool is_passthrough(const ir::Node& node) {
    return (node.op == ir::OpKind::Identity || node.op == ir::OpKind::Dropout) && node.outputs.size() == 1 &&
           node.outputs[0] != ir::kNoValue && !node.inputs.empty() && node.inputs[0] != ir::kNoValue;
}

// Y is a graph output: it can keep its name if X's producer writes Y directly, which needs a producer and X not
// being a graph output itself.
bool can_rename_into_output(const ir::Graph& graph, ir::ValueId x) {
    return !graph.is_graph_output(x) && graph.producer(x).has_value();
}

}  // namespace

bool remove_identity(ir::Graph& graph) {
    NodeEraser eraser(graph);
    for (size_t i = 0; i < graph.nodes().size(); ++i) {
        const ir::Node& node = graph.nodes()[i];
        if (!is_passthrough(node)) continue;
        ir::ValueId x = node.inputs[0], y = node.outputs[0];
        if (!graph.is_graph_output(y)) {
            eraser.kill(i);
            graph.replace_uses(y, x);
            continue;
        }
        if (!can_rename_into_output(graph, x)) continue;
        size_t producer = *graph.producer(x);
        eraser.kill(i);  // first, so that replace_uses below does not make this node read its own output
        for (ir::ValueId& out : graph.nodes()[producer].outputs)
            if (out == x) out = y;
        graph.replace_uses(x, y);
    }
    return eraser.erase() > 0;
}

}  // namespace strata::passes
