// cuda_check.h: every CUDA runtime call and every kernel launch is checked, and a failure names the step that made
// it (DESIGN.md: errors carry the step name). Kernels (.cu files) stay free of this header: the C++ code that
// launches them calls check_launch() right after.
#pragma once

#include <cuda_runtime_api.h>

#include <string_view>

namespace strata::cuda {

/// Throws strata::Error (runtime_error) when `status` is not cudaSuccess: "CUDA error in <what>: <reason> (<expr>)".
void check_cuda(cudaError_t status, std::string_view what, const char* expr);
/// Checks the last launch (cudaGetLastError): a bad configuration or a sticky error from an earlier kernel.
void check_launch(std::string_view what);
/// Throws for a launch of `kernel` that failed with `status`, naming its grid, block and dynamic shared memory and
/// the function's own limits: a request above the function's shared-memory limit says only "invalid argument".
[[noreturn]] void throw_launch_failure(cudaError_t status, const void* kernel, dim3 grid, dim3 block, size_t smem);

}  // namespace strata::cuda

#define STRATA_CUDA_CHECK(call, what) ::strata::cuda::check_cuda((call), (what), #call)
