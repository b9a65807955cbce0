// pool.h: MaxPool / AveragePool (1-D as 2-D with a unit height; pads, strides, dilations, ceil_mode,
// count_include_pad) and GlobalAveragePool / GlobalMaxPool, in nchw and nhwc. The window arithmetic is the
// reference's (backends/reference/pool.cpp): each output reads the taps of its window inside the input; average
// divides by those taps, or with count_include_pad by the taps inside [-pad_begin, size + pad_end); a window with no
// tap gives -inf (max) or 0 (average). NaN wins a max.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

#include "strata/tensor.h"

namespace strata::cuda {

struct StepDesc;

inline constexpr int kPoolThreads = 256;

struct PoolParams {
    int n = 0, c = 0, in_h = 1, in_w = 1, out_h = 1, out_w = 1;
    int k_h = 1, k_w = 1, stride_h = 1, stride_w = 1, dil_h = 1, dil_w = 1;
    int pad_top = 0, pad_left = 0, pad_bottom = 0, pad_right = 0;
    bool max = true;
    bool count_include_pad = false;
    uint32_t total = 0;  ///< output elements
};
/// A MaxPool / AveragePool step's window (1-D as 2-D); exposed for host-side tests.
PoolParams pool_params(const StepDesc& desc);
void launch_pool2d(DType dtype, bool nhwc, const PoolParams& p, const void* x, void* y, int blocks,
                   cudaStream_t stream);

/// One warp per (n, c) plane of a row-major input: planes = N*C, inner = the spatial size. Channels-last inputs
/// take the spatially split kernel (global_pool_split.h).
void launch_global_pool(DType dtype, bool max, int64_t n, int64_t c, int64_t inner, const void* x, void* y,
                        int sm_count, cudaStream_t stream);

}  // namespace strata::cuda
