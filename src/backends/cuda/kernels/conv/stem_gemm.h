// stem_gemm.h: cuda.conv.stem_gemm, the 3-channel stem convolution (3x3 or 7x7, any stride, padding and dilation)
// on tensor cores. A stem reads 3 channels and writes 16-64 per pixel, so it is bound by its stores; the direct
// stem kernel (direct_stem.h) spends ~R*S*C FFMAs plus a 2-byte store per output and runs at a tenth of the copy
// bandwidth, and cuDNN's implicit GEMM pads C to 8. Config 0 is narrow_gemm.cuh's kernel with an im2col tile: each
// lane gathers one output pixel's R*S*C taps (a row of the GEMM's A, zero outside the image and past R*S*C) into the
// warp's shared tile, and the tensor cores multiply it by the [K][R*S*C] weights in fp32, 16-byte stores. Config 1
// (stride 2) stages the input rows of an output row segment once per block and reads the A fragments from them
// (NOTE [stem rows] in stem_gemm.cu); same weights, same epilogue.
// Activations fp16 or bf16; Y NHWC, K % 8 == 0; X any layout (element strides: the taps are 2-byte loads anyway);
// weights KRSC, so that their [K][R*S*C] rows are the taps in the gather's (r, s, c) order.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

#include "backends/cuda/kernels/conv/pointwise_narrow.h"
#include "strata/tensor.h"

namespace strata::cuda {

inline constexpr int kStemGemmRows = 32;  ///< pixels a warp gathers per round: one per lane

/// The two kernels (the tactic's configs): each lane gathers its pixel's taps (any stride and dilation), or the
/// block stages the input rows of an output row segment and lanes read their taps from them (stride 2, dilation 1;
/// NOTE [stem rows] in stem_gemm.cu).
inline constexpr int kStemGather = 0;
inline constexpr int kStemRows = 1;
inline constexpr int kStemConfigs = 2;

/// The filter shapes the kernel is compiled for, as R*S*C tap counts' (r, s, c): 3x3x3 and 7x7x3.
inline bool stem_gemm_shape_supported(int r, int s, int c) {
    return c == 3 && r == s && (r == 3 || r == 7);
}

/// Dynamic shared memory of one block of kernel `config`.
size_t stem_gemm_smem_bytes(int config, int r, int s, int c, int k);

/// Where the taps come from: X's element strides of n, c, h, w and the geometry the gather needs.
struct StemGather {
    int64_t x_stride[4] = {};
    int in_h = 1, in_w = 1, out_h = 1, out_w = 1;
    int stride_h = 1, stride_w = 1, pad_h = 0, pad_w = 0, dil_h = 1, dil_w = 1;
};

/// As pointwise_narrow_prepare, for kernel `config` of (dtype, r, s, c).
cudaError_t stem_gemm_prepare(DType dtype, int config, int r, int s, int c, size_t smem_bytes, size_t smem_limit,
                              int* blocks_per_sm);

/// Enqueues kernel `config` on `stream` with `grid` blocks. params.c is R*S*C (the gather's reduction length; the
/// rows kernel lays its reduction out itself); params.x is X (any alignment of 2 bytes).
void stem_gemm_launch(const PointwiseNarrowParams& params, const StemGather& gather, DType dtype, int config, int r,
                      int s, int c, int grid, cudaStream_t stream);

}  // namespace strata::cuda
