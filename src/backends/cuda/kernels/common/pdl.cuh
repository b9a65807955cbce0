// pdl.cuh: the device side of NOTE [programmatic dependent launch] (backends/cuda/pdl.h) and the launch that sets
// the attribute. griddepcontrol exists from sm_90 on; for older targets the wrappers compile to nothing, and the
// host never asks for the attribute there.
#pragma once

#include <cuda_runtime.h>

#include <utility>

#include "backends/cuda/cuda_check.h"

namespace strata::cuda {

/// Waits until the grids this one programmatically depends on have completed and their writes are visible; returns
/// at once when the kernel was launched without the attribute.
__device__ __forceinline__ void pdl_wait() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
}

/// Lets a PDL kernel queued after this one be scheduled once every block of this grid has reached this call.
__device__ __forceinline__ void pdl_launch_dependents() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
#endif
}

/// cudaLaunchKernelEx with programmatic stream serialization; its status.
template <class... Params, class... Args>
cudaError_t launch_with_pdl(void (*kernel)(Params...), dim3 grid, dim3 block, size_t smem, cudaStream_t stream,
                            Args&&... args) {
    cudaLaunchAttribute attr{};
    attr.id = cudaLaunchAttributeProgrammaticStreamSerialization;
    attr.val.programmaticStreamSerializationAllowed = 1;
    cudaLaunchConfig_t config{};
    config.gridDim = grid;
    config.blockDim = block;
    config.dynamicSmemBytes = smem;
    config.stream = stream;
    config.attrs = &attr;
    config.numAttrs = 1;
    return cudaLaunchKernelEx(&config, kernel, std::forward<Args>(args)...);
}

/// kernel<<<grid, block, smem, stream>>>(args...), with programmatic stream serialization when `pdl` (the kernel
/// must then keep the rule of the NOTE). A launch that fails throws at once with its configuration
/// (throw_launch_failure); errors of the running kernel surface through check_launch() as for <<<>>>.
template <class... Params, class... Args>
void launch_kernel(void (*kernel)(Params...), dim3 grid, dim3 block, size_t smem, cudaStream_t stream, bool pdl,
                   Args&&... args) {
    cudaError_t status = cudaSuccess;
    if (!pdl) {
        kernel<<<grid, block, smem, stream>>>(std::forward<Args>(args)...);
        status = cudaPeekAtLastError();
    } else {
        status = launch_with_pdl(kernel, grid, block, smem, stream, std::forward<Args>(args)...);
    }
    if (status != cudaSuccess) throw_launch_failure(status, reinterpret_cast<const void*>(kernel), grid, block, smem);
}

}  // namespace strata::cuda
