// runner.h: what a Context runs on: the CPU executor or the GPU runner, behind one interface, so the public API
// (api.cpp) does not care which device a plan targets. GPU pieces live in runtime/cuda/; a CPU-only build links
// runtime/no_cuda/ instead, whose functions report that CUDA was not built in.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "build/plan.h"
#include "strata/tensor.h"

namespace strata::runtime {

class Runner {
public:
    virtual ~Runner() = default;
    /// Runs the plan on inputs already checked against the plan (check_inputs); returns the outputs by name.
    virtual std::map<std::string, Tensor> run(const std::map<std::string, Tensor>& inputs) = 0;
    /// GPU only: replays the network `iterations` times on the inputs of the last run() (after `warmup` replays)
    /// and returns each replay's device time in ms, from CUDA events around each CUDA graph replay.
    virtual std::vector<double> time_device(int warmup, int iterations);
    /// GPU only: each step's median time in ms over `iterations` (index = step; 0 for aliased steps).
    virtual std::vector<double> profile_steps(int iterations);
    /// GPU only: what each step's kernel chose inside (CudaKernel::detail(); index = step, empty where none).
    virtual std::vector<std::string> step_details() const { return {}; }
};

/// The weights of a GPU plan on the device, shared by every Context of one Engine.
class GpuWeights;

/// Uploads every constant the plan's steps read, in the dtype and layout each kernel wants.
std::shared_ptr<GpuWeights> upload_gpu_weights(const build::Plan& plan);
/// A runner with its own activation memory, stream, kernels and CUDA graph.
std::unique_ptr<Runner> make_gpu_runner(std::shared_ptr<const build::Plan> plan, std::shared_ptr<GpuWeights> weights);

}  // namespace strata::runtime
