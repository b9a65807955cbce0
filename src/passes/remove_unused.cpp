// remove_unused.cpp: drops nodes whose outputs nobody reads (neither a node nor a graph output), repeatedly.
//
// Runs last: earlier passes can leave such nodes behind (a computation whose only reader absorbed its result as a
// constant parameter), and exporters leave dangling branches.
// Safe because strata's ops have no side effects: a result nobody reads changes nothing.
#include "passes/passes.h"

namespace strata::passes {

bool remove_unused(ir::Graph& graph) { return graph.remove_unused_nodes() > 0; }

}  // namespace strata::passes
