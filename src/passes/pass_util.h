// pass_util.h: the small graph queries and edits that several passes share (who reads a value, erasing the nodes a
// rewrite made dead, reading a scalar constant). Kept here so each pass file holds only its own pattern.
#pragma once

#include <optional>
#include <vector>

#include "ir/graph.h"

namespace strata::passes {

/// The index of the one node reading `v`, if exactly one node reads it and it is not a graph output: the condition
/// under which a rewrite may swallow the value.
std::optional<size_t> sole_reader(const ir::Graph& graph, ir::ValueId v);

/// True if `node` is a Unary of `kind` with a single input (no unabsorbed parameter inputs).
bool is_unary(const ir::Node& node, ir::UnaryKind kind);
/// True if `node` is a Binary of `kind`.
bool is_binary(const ir::Node& node, ir::BinaryKind kind);

/// The value of a float32 constant holding one element (any rank), else nullopt.
std::optional<float> scalar_constant(const ir::Graph& graph, ir::ValueId v);
/// True if `v` is a float32 constant with the given shape.
bool is_f32_constant(const ir::Graph& graph, ir::ValueId v, const Shape& shape);

/// Infers the node's output shapes if its inputs' shapes are known and its parameters are not computed (NOTE
/// [constant parameters]: "unsupported: dynamic ..." until fold_constants has run); otherwise marks its outputs
/// unknown. Returns whether the shapes are known. Other errors (a malformed node) propagate.
bool infer_node_shapes_if_static(ir::Graph& graph, ir::Node& node);

/// Collects the nodes a pass has made dead while it walks the node list by index, and erases them at the end, so
/// that indices stay valid during the walk. A killed node loses its inputs and outputs at once, so producer and
/// consumer queries stop seeing it.
class NodeEraser {
public:
    explicit NodeEraser(ir::Graph& graph) : graph_(graph), dead_(graph.nodes().size(), false) {}
    void kill(size_t index);
    bool is_dead(size_t index) const { return dead_.at(index); }
    /// Erases the killed nodes; returns how many there were.
    size_t erase();

private:
    ir::Graph& graph_;
    std::vector<bool> dead_;
};

}  // namespace strata::passes
