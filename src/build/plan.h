// plan.h: what the builder decides, once, for one device, precision and batch: the optimised graph with concrete
// shapes, the kernel (tactic) of every step, and where every activation lives. The runtime only follows it.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "backends/kernel.h"
#include "build/memory_plan.h"
#include "ir/graph.h"
#include "strata/engine.h"

namespace strata::build {

/// One node of the graph and the kernel that runs it.
struct Step {
    size_t node = 0;                            ///< index into Plan::graph.nodes()
    const backends::Tactic* tactic = nullptr;   ///< null only for an aliased view step (nothing runs)
    std::string refused;                        ///< why faster tactics were not chosen ("name: reason; ..."), or ""
};

struct Plan {
    ir::Graph graph;  ///< optimised, shapes inferred, batch fixed
    std::vector<Step> steps;
    MemoryPlan memory;
    BuildOptions options;
    int64_t batch = 1;
};

/// Copies the graph, fixes the batch, infers shapes, runs the passes (when options.optimize), verifies, picks a
/// tactic per node and plans memory. Throws strata::Error for what cannot be built (CUDA, a precision other than
/// fp32 on the CPU, an op without a kernel, a dynamic shape).
Plan build_plan(const ir::Graph& graph, const BuildOptions& options);

/// The one selection function: the first candidate of `backend` that can implement the node, else the reference
/// tactic. `refused` receives why each skipped candidate could not.
const backends::Tactic* select_tactic(const backends::TacticRegistry& registry, const ir::Graph& graph,
                                      const ir::Node& node, backends::Backend backend, std::string& refused);

/// One line per step: name, op, tactic, output shape; then the arena size against the sum of all activations.
std::string describe_plan(const Plan& plan);

}  // namespace strata::build
