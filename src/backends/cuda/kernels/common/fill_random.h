// fill_random.h: fills device memory with pseudo-random values in [-1, 1) of a float dtype (integers get zeros).
// The builder times candidate kernels on such data: never on zeros, which can run faster than real data.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

#include "strata/tensor.h"

namespace strata::cuda {

void fill_random(void* data, DType dtype, int64_t count, uint64_t seed, cudaStream_t stream);

}  // namespace strata::cuda
