// reference.h: the reference backend as an interpreter: the oracle every test compares against.
#pragma once

#include <map>
#include <span>
#include <string>
#include <vector>

#include "ir/graph.h"
#include "strata/tensor.h"

namespace strata::backends {

/// Runs one node on the reference kernels; output values must have inferred shapes. Returns the outputs.
std::vector<Tensor> evaluate_node(const ir::Graph& graph, const ir::Node& node, std::span<const Tensor> inputs);

/// Runs a whole graph on the reference kernels (a copy gets its batch set from the inputs and shapes inferred).
std::map<std::string, Tensor> run_reference(const ir::Graph& graph, const std::map<std::string, Tensor>& inputs);

}  // namespace strata::backends
