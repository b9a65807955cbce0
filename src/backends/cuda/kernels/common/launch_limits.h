// launch_limits.h: what a launch may take and how many blocks fit at once: the shared memory opt-in past the 48 KiB a
// launch gets without it, and the resident-block count that persistent kernels size their grids by.
#pragma once

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstdint>

#include "backends/cuda/cuda_check.h"

namespace strata::cuda {

/// Sets `kernel`'s dynamic shared memory limit to the device's opt-in maximum. The maximum, not one launch's need:
/// launches of other shapes share the function, and a limit set to a small launch's need would refuse a later,
/// larger one with "invalid argument" (GpuDepthwise.StagedLaunchesShareOneSharedMemoryLimit found that). A host call,
/// legal while a stream is being captured. `what` names the launch in errors.
template <class Kernel>
void allow_shared_memory_optin(Kernel kernel, const char* what) {
    int device = 0, optin = 0;
    STRATA_CUDA_CHECK(cudaGetDevice(&device), what);
    STRATA_CUDA_CHECK(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device), what);
    STRATA_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, optin), what);
}

/// How many blocks of `kernel` (block_threads threads, smem bytes of dynamic shared memory) the device holds at once:
/// blocks per SM by the occupancy calculator times the SMs (at least 1). Host calls, legal during stream capture.
template <class Kernel>
int64_t resident_blocks(Kernel kernel, int block_threads, size_t smem, const char* what) {
    int device = 0, sms = 0, per_sm = 0;
    STRATA_CUDA_CHECK(cudaGetDevice(&device), what);
    STRATA_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device), what);
    STRATA_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, block_threads, smem), what);
    return int64_t{std::max(per_sm, 1)} * sms;
}

}  // namespace strata::cuda
