// plan.h: what the builder decides, once, for one device, precision and batch: the optimised graph with concrete
// shapes, the kernel (tactic) of every step, and where every activation lives. The runtime only follows it.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "backends/kernel.h"
#include "build/device_storage.h"
#include "build/memory_plan.h"
#include "ir/graph.h"
#include "strata/engine.h"

namespace strata::build {

/// One node of the graph and the kernel that runs it.
struct Step {
    size_t node = 0;                            ///< index into Plan::graph.nodes()
    const backends::Tactic* tactic = nullptr;   ///< CPU plans: null only for an aliased view step (nothing runs)
    std::string device_tactic;                  ///< GPU plans: the CudaTactic's name; "" for an aliased step
    int config = 0;                             ///< GPU plans: the tactic's configuration
    double measured_ms = 0;                     ///< GPU plans: the winner's time when the builder timed candidates
    int candidates = 0;                         ///< GPU plans: how many (tactic, config) pairs could run the step
    std::string refused;                        ///< why faster tactics were not chosen ("name: reason; ..."), or ""
};

struct Plan {
    ir::Graph graph;  ///< optimised, shapes inferred, batch fixed (GPU plans: rewritten by assign_device_storage)
    std::vector<Step> steps;
    MemoryPlan memory;
    BuildOptions options;
    int64_t batch = 1;
    DeviceStorage storage;    ///< GPU plans: the activations' dtype and layout
    std::string device_name;  ///< GPU plans: the device it was built for (DeviceInfo::summary)

    bool on_gpu() const { return options.device.kind == Device::Kind::cuda; }
};

/// The GPU half of build_plan (build/cuda/): assigns device storage, plans memory and chooses a timed tactic for
/// every step. The CPU-only build provides a version that throws "strata was built without CUDA".
void build_gpu_steps(Plan& plan);

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
