// step_binding.h: how the steps of a GPU plan see their tensors. make_step_descs() gives each step its StepDesc
// (dtypes and layouts from the plan's DeviceStorage; constants in the standard forms of cuda_tactic.h);
// GpuWeights holds those constants on the device; bind_buffers() turns a step's values into device pointers.
// Shared by the builder (which times candidates on a trial arena) and the runner.
#pragma once

#include <map>
#include <tuple>
#include <vector>

#include "backends/cuda/cuda_tactic.h"
#include "backends/cuda/device_buffer.h"
#include "build/plan.h"
#include "runtime/runner.h"

namespace strata::runtime {

/// One StepDesc per step (index = step); aliased steps get an empty desc (node == nullptr).
std::vector<cuda::StepDesc> make_step_descs(const build::Plan& plan, const cuda::DeviceInfo& device);

class GpuWeights {
public:
    /// Packs and uploads every constant input of `descs` (one buffer, one copy).
    GpuWeights(const build::Plan& plan, const std::vector<cuda::StepDesc>& descs);
    /// The device copy of constant `value` in the form `desc`.
    const void* find(ir::ValueId value, const cuda::TensorDesc& desc) const;
    size_t bytes() const { return buffer_.bytes(); }

private:
    using Key = std::tuple<ir::ValueId, DType, Layout>;
    static Key key(ir::ValueId v, const cuda::TensorDesc& d) { return {v, d.dtype, d.channels_last() ? Layout::nhwc : Layout::rowmajor}; }
    cuda::DeviceBuffer buffer_;
    std::map<Key, size_t> offsets_;
};

/// Where a plan's activations live for one runner: the arena and a buffer per graph input.
struct ActivationMemory {
    cuda::DeviceBuffer arena;
    std::map<ir::ValueId, cuda::DeviceBuffer> inputs;

    ActivationMemory(const build::Plan& plan);
    void* pointer(const build::Plan& plan, ir::ValueId v) const;
};

/// The device pointers of step `s` (workspace left null).
cuda::StepBuffers bind_buffers(const build::Plan& plan, const cuda::StepDesc& desc, size_t s,
                               const ActivationMemory& memory, const GpuWeights& weights);

/// The compute dtype of a precision (fp32/tf32 -> f32).
DType compute_dtype(Precision p);

}  // namespace strata::runtime
