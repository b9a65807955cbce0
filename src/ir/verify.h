// verify.h: structural checks of a Graph (every input defined before use, arity and attrs struct per op, outputs
// produced once, graph outputs produced). A failure is a bug in a pass or a malformed model; the message says which.
#pragma once

#include "ir/graph.h"

namespace strata::ir {

void verify(const Graph& graph);

}  // namespace strata::ir
