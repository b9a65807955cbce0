// gpu_runner.h: runs a GPU plan. One per Context: its own stream, activation memory, workspace, kernel objects
// (made once from the plan's tactic choices) and a CUDA graph captured on the first run and replayed after.
// Inputs go host -> pinned staging -> device asynchronously on the runner's stream, outputs come back the same way.
#pragma once

#include <cuda_runtime_api.h>

#include <memory>

#include "runtime/cuda/step_binding.h"

namespace strata::runtime {

class GpuRunner final : public Runner {
public:
    GpuRunner(std::shared_ptr<const build::Plan> plan, std::shared_ptr<GpuWeights> weights);
    ~GpuRunner() override;

    std::map<std::string, Tensor> run(const std::map<std::string, Tensor>& inputs) override;
    std::vector<double> time_device(int warmup, int iterations) override;
    std::vector<double> profile_steps(int iterations) override;
    std::vector<std::string> step_details() const override;

private:
    void launch_steps();   // every step, in order, on stream_ (direct or under capture)
    void launch_network(); // replays the CUDA graph (capturing it the first time) or launch_steps()
    void copy_inputs(const std::map<std::string, Tensor>& inputs);
    double profile_step(size_t s, int iterations);

    std::shared_ptr<const build::Plan> plan_;
    std::shared_ptr<GpuWeights> weights_;
    cuda::Stream stream_;
    ActivationMemory memory_;
    std::vector<cuda::StepDesc> descs_;
    std::vector<std::unique_ptr<cuda::CudaKernel>> kernels_;  // per step; null for aliased steps
    std::vector<cuda::StepBuffers> buffers_;
    cuda::DeviceBuffer workspace_;
    cuda::PinnedBuffer staging_;
    cudaGraphExec_t graph_ = nullptr;
    bool use_graph_ = true;
    bool have_inputs_ = false;
};

}  // namespace strata::runtime
