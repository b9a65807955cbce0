// lib_epilogue.h: the small kernels that finish a library call in place, for what the library cannot fuse with
// strata's conventions (a float32 bias on fp16/bf16 outputs, any activation, Gemm's broadcast C).
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

#include "backends/cuda/kernels/common/epilogue.h"
#include "strata/tensor.h"

namespace strata::cuda::libs {

/// Where an element's channel is: channel = (i / inner) % channels for element i in memory order (NCHW: inner = H*W;
/// NHWC and row-major [rows, channels]: inner = 1).
struct ChannelMap {
    int64_t total = 0;
    int64_t channels = 1;
    int64_t inner = 1;
};

/// y = act(y + bias[channel] + residual) in place, `y` and the residual of dtype `dtype` (a float dtype).
void launch_epilogue(DType dtype, void* y, const EpilogueParams& ep, const ChannelMap& map, cudaStream_t stream);

/// y[i, j] += beta * c[i * c_row + j * c_col] over a row-major y [rows, cols] (Gemm's C broadcast to the output).
void launch_add_broadcast(DType dtype, void* y, const void* c, float beta, int64_t rows, int64_t cols, int64_t c_row,
                          int64_t c_col, cudaStream_t stream);

/// True when the epilogue does nothing (no bias, residual or activation): the launch can be skipped.
inline bool epilogue_is_empty(const EpilogueParams& ep) {
    return !ep.bias && !ep.residual && ep.act.kind < 0;
}

}  // namespace strata::cuda::libs
