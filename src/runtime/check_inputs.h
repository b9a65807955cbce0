// check_inputs.h: what Context::run verifies about the caller's inputs before running anything.
#pragma once

#include <map>
#include <string>

#include "ir/graph.h"
#include "strata/tensor.h"

namespace strata::runtime {

/// Throws invalid_argument naming the input unless `inputs` has exactly the graph's inputs with their dtypes and
/// shapes: "input 'x': expected float32 [1,3,224,224], got float32 [1,3,200,200]".
void check_inputs(const ir::Graph& graph, const std::map<std::string, Tensor>& inputs);

}  // namespace strata::runtime
