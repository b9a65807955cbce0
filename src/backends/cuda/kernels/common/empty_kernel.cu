// empty_kernel.cu
#include "backends/cuda/kernels/common/empty_kernel.h"

#include "backends/cuda/kernels/common/pdl.cuh"

namespace strata::cuda {
namespace {

__global__ void empty_kernel() {
    pdl_wait();
    pdl_launch_dependents();
}

}  // namespace

void launch_empty_kernel(int blocks, int threads, bool pdl, cudaStream_t stream) {
    launch_kernel(empty_kernel, dim3(static_cast<unsigned>(blocks)), dim3(static_cast<unsigned>(threads)), 0, stream,
                  pdl);
}

}  // namespace strata::cuda
