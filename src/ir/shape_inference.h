// shape_inference.h: dtype and shape of every value from the graph inputs and constants, node by node.
// Also resolves auto_pad into explicit pads. Errors name the node, op and the shapes that do not fit.
#pragma once

#include "ir/graph.h"

namespace strata::ir {

/// Infers every node in order. Dims of -1 in graph inputs stay -1 where they flow (the dynamic batch).
void infer_shapes(Graph& graph);
/// Infers one node's outputs from its inputs (which must already be known).
void infer_node_shapes(Graph& graph, Node& node);

}  // namespace strata::ir
