// pointwise_narrow.h: cuda.conv.pointwise_narrow, the 1x1 convolution with few input channels (C <= 64, the
// MobileNetV2 / EfficientNet "expand" layers: C = 16..64 -> K = 6C). Such a layer reads C and writes K channels per
// pixel, so it is bound by its stores; the implicit GEMM's 1-2 step reduction and 2-channel stores leave it at
// ~600 GB/s. This kernel reads each input pixel once (16-byte loads), multiplies on tensor cores with fp32
// accumulators, and stores 16 bytes per lane with coalesced rows. See NOTE [pointwise narrow tiles] in
// pointwise_narrow.cu for the tiling and the instruction count.
// NHWC activations, KRSC weights [K, 1, 1, C] in the compute dtype (fp16 or bf16), bias float32 [K], groups 1,
// no padding, any stride; C % 8 == 0, K % 8 == 0.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

#include "backends/cuda/kernels/common/epilogue.h"
#include "strata/tensor.h"

namespace strata::cuda {

inline constexpr int kPwMaxChannels = 64;    ///< the most input channels: <= 4 k-steps of A fragments in registers
inline constexpr int kPwWarps = 8;           ///< warps per block
inline constexpr int kPwTileRows = 16;       ///< output pixels per warp tile (the mma's M)
inline constexpr int kPwGroupChannels = 32;  ///< output channels per epilogue group (4 mma n-tiles)

/// Input channels rounded up to the mma's k step of 16.
inline int pw_padded_c(int c) {
    return (c + 15) / 16 * 16;
}
/// Output channels rounded up to a whole epilogue group.
inline int pw_padded_k(int k) {
    return (k + kPwGroupChannels - 1) / kPwGroupChannels * kPwGroupChannels;
}

/// Dynamic shared memory of one block of narrow_gemm.cuh's kernel with a reduction of `c` (input channels, or
/// R*S*C taps) and tiles of `rows` pixels per warp: the weights in mma-fragment order (2-byte elements, [Kp][Cp]), the
/// bias as float [Kp], and each warp's input tile of `rows` rows of Cp + 8 elements (the 8 make the row stride an
/// odd number of 16-byte units, so ldmatrix reads 8 rows from 8 distinct bank groups).
inline size_t narrow_gemm_smem_bytes(int c, int k, int rows) {
    const size_t cp = pw_padded_c(c), kp = pw_padded_k(k);
    return kp * cp * 2 + kp * sizeof(float) + size_t{kPwWarps} * rows * (cp + 8) * 2;
}
inline size_t pointwise_narrow_smem_bytes(int c, int k) {
    return narrow_gemm_smem_bytes(c, k, kPwTileRows);
}

struct PointwiseNarrowParams {
    int64_t pixels = 0;                            ///< output pixels N * P * Q
    int c = 0, k = 0;                              ///< input (stem: R*S*C taps) / output channels
    int in_h = 1, in_w = 1, out_h = 1, out_w = 1;  ///< spatial sizes (read when strided)
    int stride_h = 1, stride_w = 1;
    const void* x = nullptr;  ///< NHWC [N, H, W, C], 16-byte aligned
    const void* w = nullptr;  ///< KRSC [K, 1, 1, C], any alignment of 2 bytes
    void* y = nullptr;        ///< NHWC [N, P, Q, K], 16-byte aligned
    EpilogueParams epilogue;  ///< residual: NHWC like y, 16-byte aligned
    bool pdl = false;         ///< launch with PDL (NOTE [programmatic dependent launch], pdl.h); pointwise only
};

/// Lets the kernel of (dtype, c) use up to `smem_limit` (the device's opt-in limit) of dynamic shared memory and
/// returns in `blocks_per_sm` how many blocks that need `smem_bytes` fit on one SM. Call once per step before
/// launching (make() does); it neither allocates nor synchronises.
cudaError_t pointwise_narrow_prepare(DType dtype, int c, size_t smem_bytes, size_t smem_limit, int* blocks_per_sm);

/// Enqueues the convolution on `stream` with `grid` blocks (they stride over the pixel tiles). dtype: f16 or bf16.
void pointwise_narrow_launch(const PointwiseNarrowParams& params, DType dtype, int grid, cudaStream_t stream);

}  // namespace strata::cuda
