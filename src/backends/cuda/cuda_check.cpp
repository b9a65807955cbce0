// cuda_check.cpp: CUDA status codes become strata errors with the step name.
#include "backends/cuda/cuda_check.h"

#include <fmt/format.h>

#include <string>

#include "core/check.h"

namespace strata::cuda {

void check_cuda(cudaError_t status, std::string_view what, const char* expr) {
    if (status == cudaSuccess) return;
    cudaGetLastError();  // clear a non-sticky error so the next call does not report it again
    STRATA_THROW(StatusCode::runtime_error, "CUDA error in {}: {} ({})", what, cudaGetErrorString(status), expr);
}

void check_launch(std::string_view what) {
    cudaError_t status = cudaGetLastError();
    if (status == cudaSuccess) return;
    STRATA_THROW(StatusCode::runtime_error, "CUDA error in {}: kernel launch failed: {}", what,
                 cudaGetErrorString(status));
}

void throw_launch_failure(cudaError_t status, const void* kernel, dim3 grid, dim3 block, size_t smem) {
    cudaGetLastError();  // the launch's own error: clear it, it is reported here
    cudaFuncAttributes attr{};
    const bool known = cudaFuncGetAttributes(&attr, kernel) == cudaSuccess;
    cudaGetLastError();
    const std::string limits =
        known ? fmt::format("; the function: {} registers, {} threads at most, {} static and {} dynamic shared bytes "
                            "at most",
                            attr.numRegs, attr.maxThreadsPerBlock, attr.sharedSizeBytes, attr.maxDynamicSharedSizeBytes)
              : std::string();
    STRATA_THROW(StatusCode::runtime_error,
                 "CUDA error: kernel launch failed: {} (grid {}x{}x{}, block {}x{}x{}, {} bytes dynamic shared "
                 "memory{})",
                 cudaGetErrorString(status), grid.x, grid.y, grid.z, block.x, block.y, block.z, smem, limits);
}

}  // namespace strata::cuda
