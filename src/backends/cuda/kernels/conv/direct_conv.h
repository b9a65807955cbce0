// direct_conv.h: the generic convolution (cuda.conv.direct) and the simple fully-connected kernel (cuda.fc.direct):
// one thread per output element, float accumulation, any groups / strides / dilations / pads, 1-D and 2-D, any
// layout (the kernels walk element strides, so nchw and nhwc are the same code). The fallback for everything.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

#include "backends/cuda/kernels/common/epilogue.h"
#include "backends/cuda/kernels/conv/conv_geometry.h"
#include "strata/tensor.h"

namespace strata::cuda {

struct DirectConvParams {
    ConvGeometry g;
    int64_t x_stride[4] = {};  ///< X element strides of n, c, h, w
    int64_t w_stride[4] = {};  ///< W element strides of k, c, r, s
    int64_t y_stride[4] = {};  ///< Y (and residual) element strides of n, k, p, q
    bool k_fastest = false;    ///< walk outputs with k innermost (nhwc) so that stores coalesce
    const void* x = nullptr;
    const void* w = nullptr;
    void* y = nullptr;
    EpilogueParams epilogue;
};

/// Enqueues the direct convolution on `stream` (no sync, no allocation). dtype: f32, f16 or bf16.
void direct_conv_launch(const DirectConvParams& params, DType dtype, cudaStream_t stream);

struct FcParams {
    int rows = 0, in = 0, out = 0;  ///< X [rows, in], W [out, in], Y [rows, out], all row-major
    const void* x = nullptr;
    const void* w = nullptr;
    void* y = nullptr;
    EpilogueParams epilogue;
};

/// Enqueues the tiled fully-connected kernel on `stream`. dtype: f32, f16 or bf16.
void fc_direct_launch(const FcParams& params, DType dtype, cudaStream_t stream);

}  // namespace strata::cuda
