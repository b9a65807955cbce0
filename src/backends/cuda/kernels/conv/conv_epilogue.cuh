// conv_epilogue.cuh: the fused epilogue of this folder's kernels on one float accumulator,
//     y = act(acc + bias[k] + residual[offset]),
// where the residual has the output's dtype and layout (so it shares the output's offset).
#pragma once

#include "backends/cuda/kernels/common/activation.cuh"
#include "backends/cuda/kernels/common/dtype.cuh"
#include "backends/cuda/kernels/common/epilogue.h"

namespace strata::cuda {

template <class T>
__device__ __forceinline__ float conv_epilogue_value(const EpilogueParams& e, float acc, int k, int64_t offset) {
    if (e.bias) acc += e.bias[k];
    if (e.residual) acc += to_float(static_cast<const T*>(e.residual)[offset]);
    return apply_activation(e.act, acc);
}

}  // namespace strata::cuda
