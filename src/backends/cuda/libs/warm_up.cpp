// warm_up.cpp: see warm_up.h.
#include "backends/cuda/libs/warm_up.h"

#include <algorithm>
#include <vector>

#include "backends/cuda/cuda_check.h"
#include "backends/cuda/device_buffer.h"

namespace strata::cuda::libs {

void warm_up(CudaKernel& kernel, const StepDesc& desc) {
    std::vector<DeviceBuffer> owned;
    StepBuffers buffers;
    auto zeroed = [&](size_t bytes) {
        owned.emplace_back(std::max<size_t>(bytes, 1), "a library warm-up buffer");
        STRATA_CUDA_CHECK(cudaMemset(owned.back().data(), 0, owned.back().bytes()), "library warm-up");
        return owned.back().data();
    };
    for (const auto& in : desc.inputs) buffers.inputs.push_back(in.present ? zeroed(in.bytes()) : nullptr);
    for (const auto& out : desc.outputs) buffers.outputs.push_back(zeroed(out.bytes()));
    buffers.workspace = kernel.workspace_bytes() ? zeroed(kernel.workspace_bytes()) : nullptr;
    Stream stream;
    kernel.launch(buffers, stream.get());
    check_launch(desc.name + " (library warm-up)");
    stream.synchronize(desc.name + " (library warm-up)");
}

}  // namespace strata::cuda::libs
