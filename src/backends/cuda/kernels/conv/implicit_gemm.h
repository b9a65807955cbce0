// implicit_gemm.h: strata's tensor-core convolution (cuda.conv.implicit_gemm, cuda.fc.implicit_gemm). The conv is a
// GEMM that is never materialised: M = N*P*Q output pixels, N = K output channels, K = R*S*C, with A (the im2col
// of X) addressed on the fly from NHWC X and B read from KRSC weights. fp16/bf16 inputs (or fp32 rounded to tf32
// when the step allows TF32), f32 accumulators, groups 1, C a multiple of 16 bytes (8 halves, 4 floats: cp.async
// chunks never straddle a filter tap) and K % 8 == 0.
// A bench can call implicit_gemm_launch() directly on raw device pointers.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <string>

#include "backends/cuda/kernels/common/epilogue.h"
#include "backends/cuda/kernels/conv/conv_geometry.h"
#include "strata/tensor.h"

namespace strata::cuda {

/// One tile shape: block tile bm x bn x bk, warps_m x warps_n warps, a `stages`-deep cp.async pipeline. bk counts
/// 2-byte elements; fp32 (tf32) slices hold the same bytes, bk/2 floats.
struct ImplicitGemmConfig {
    int bm, bn, bk, warps_m, warps_n, stages;
};

inline constexpr ImplicitGemmConfig kImplicitGemmConfigs[] = {
    {128, 128, 32, 2, 4, 3},  // 8 warps, warp tile 64x32
    {128, 64, 32, 2, 2, 4},   // 4 warps, warp tile 64x32
    {64, 64, 32, 2, 2, 4},    // 4 warps, warp tile 32x32
    {64, 128, 32, 2, 2, 3},   // 4 warps, warp tile 32x64
    {128, 256, 32, 2, 4, 3},  // 8 warps, warp tile 64x64: large K
};
inline constexpr int kImplicitGemmNumConfigs = sizeof(kImplicitGemmConfigs) / sizeof(kImplicitGemmConfigs[0]);

/// Shared-memory rows hold bk elements plus 8 of padding: a 16-byte shift per row puts the 8 rows an ldmatrix
/// phase reads in 8 distinct bank groups.
inline constexpr int kImplicitGemmRowPad = 8;

/// Dynamic shared memory of one block of `config` (the same for every dtype: rows hold the same bytes).
inline size_t implicit_gemm_smem_bytes(int config) {
    const ImplicitGemmConfig& c = kImplicitGemmConfigs[config];
    return static_cast<size_t>(c.stages) * (c.bm + c.bn) * (c.bk + kImplicitGemmRowPad) * 2;
}

/// "128x128x32 w2x4 s3"
std::string implicit_gemm_config_name(int config);

struct ImplicitGemmParams {
    ConvGeometry g;            ///< group must be 1; for FC: h = w = p = q = r = s = 1
    const void* x = nullptr;   ///< NHWC [N, H, W, C], 16-byte aligned
    const void* w = nullptr;   ///< KRSC [K, R, S, C], 16-byte aligned
    void* y = nullptr;         ///< NHWC [N, P, Q, K], 4-byte aligned
    EpilogueParams epilogue;   ///< residual: NHWC like y
    int splits = 1;            ///< split-K: blockIdx.z sums one of `splits` ranges of K (see implicit_gemm_splits)
    float* partial = nullptr;  ///< splits > 1: implicit_gemm_workspace_bytes() of scratch, 8-byte aligned
    bool pdl = false;          ///< the sm90 kernel launches with PDL (NOTE [programmatic dependent launch], pdl.h)
};

/// How many ranges to split K into so that a problem too small to fill `sm_count` SMs with output tiles still
/// does (1: no split). Every range gets at least 4 slices; at most 16 ranges.
int implicit_gemm_splits(const ConvGeometry& g, DType dtype, int config, int sm_count);
/// Scratch that implicit_gemm_launch needs for `splits` (0 when 1).
size_t implicit_gemm_workspace_bytes(const ConvGeometry& g, int splits);

/// Lets the kernels of (dtype, config) use their dynamic shared memory (above the 48 KiB default). Call once per
/// process and device before the first launch (make() does); it neither allocates nor synchronises.
cudaError_t implicit_gemm_prepare(DType dtype, int config);

/// Enqueues one implicit-GEMM convolution on `stream` (with splits > 1: the split GEMM, then the reduction that
/// applies the epilogue). dtype: f16, bf16, or f32 (computed in tf32).
void implicit_gemm_launch(const ImplicitGemmParams& params, DType dtype, int config, cudaStream_t stream);

}  // namespace strata::cuda
