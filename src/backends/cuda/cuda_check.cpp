// cuda_check.cpp: CUDA status codes become strata errors with the step name.
#include "backends/cuda/cuda_check.h"

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

}  // namespace strata::cuda
