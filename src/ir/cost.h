// cost.h: the work a node does and the fewest bytes it must move; `strata inspect` prints them and the performance
// model starts from them. Needs inferred shapes.
#pragma once

#include <cstdint>

#include "ir/graph.h"

namespace strata::ir {

struct NodeCost {
    double flops = 0;      ///< multiply-adds count as two
    double bytes = 0;      ///< inputs read once + outputs written once + weights read once
    int64_t params = 0;    ///< elements of constant inputs (weights, biases)
};

NodeCost node_cost(const Graph& graph, const Node& node);

}  // namespace strata::ir
