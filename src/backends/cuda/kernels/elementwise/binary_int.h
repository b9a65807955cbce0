// binary_int.h: Binary on int32 / int64 tensors (see binary_int.cu).
#pragma once

#include <cuda_runtime_api.h>

#include "backends/cuda/kernels/elementwise/elementwise.h"

namespace strata::cuda {

void launch_binary_int(DType dtype, const BinaryParams& p, const void* a, const void* b, void* c, int blocks,
                       cudaStream_t stream);

}  // namespace strata::cuda
