// shared_memory_optin.h: lets a kernel take more than the 48 KiB of dynamic shared memory a launch gets without
// opting in.
#pragma once

#include <cuda_runtime_api.h>

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

}  // namespace strata::cuda
