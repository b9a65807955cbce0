// implicit_gemm_sm90.h: strata's Hopper convolution (cuda.conv.implicit_gemm_sm90): the implicit GEMM of
// implicit_gemm.h (M = N*P*Q output pixels, N = K output channels, K = R*S*C; NHWC X, KRSC W, NHWC Y; fp16/bf16,
// f32 accumulators; groups 1, C % 8 == 0, K % 8 == 0; the same ImplicitGemmParams, fused bias/activation/residual)
// on warpgroup MMA: wgmma.mma_async m64nNk16 with both operands in 128B-swizzled shared memory, fed by a
// multi-stage cp.async pipeline, and an epilogue staged through shared memory that stores 16 bytes per thread.
// No split-K (params.splits must be 1): small problems are left to cuda.conv.implicit_gemm.
// The kernels exist only when the build includes sm_90 (STRATA_HAVE_SM90A, see cmake/cuda.cmake); they run only on
// compute capability 9.0.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <string>

#include "backends/cuda/kernels/conv/implicit_gemm.h"

namespace strata::cuda {

/// One tile shape: a bm x bn block tile (bm / 64 consumer warpgroups, each owning 64 rows and all bn columns), K
/// walked 64 elements (128 bytes) at a time through a `stages`-deep cp.async ring; `blocks_per_sm` is the occupancy
/// the config is sized for (shared memory and __launch_bounds__ registers). Several blocks per SM let one block's
/// loads and stores overlap another's math: the layers whose reduction is one or a few slices (1x1 on 64 channels)
/// have no main loop to hide them in.
struct ImplicitGemmSm90Config {
    int bm, bn, stages, blocks_per_sm;
};

inline constexpr ImplicitGemmSm90Config kImplicitGemmSm90Configs[] = {
    {128, 128, 5, 1},  // 2 warpgroups, m64n128 each
    {128, 256, 4, 1},  // 2 warpgroups, m64n256: the large-K layers
    {256, 128, 4, 1},  // 4 warpgroups, m64n128: many pixels, few channels
    {128, 128, 3, 2},  // 2 blocks per SM: short reductions
    {128, 64, 3, 3},   // 3 blocks per SM: K = 64 outputs, short reductions
    {64, 128, 4, 2},   // 1 warpgroup, 2 blocks per SM: small M
};
inline constexpr int kImplicitGemmSm90NumConfigs =
    sizeof(kImplicitGemmSm90Configs) / sizeof(kImplicitGemmSm90Configs[0]);

/// Elements of K per pipeline slice: one 128-byte swizzle row of a two-byte type.
inline constexpr int kSm90SliceK = 64;
/// Floats of padding per row of the epilogue's staging tile (rows 4 float2 banks apart: conflict-free stores).
inline constexpr int kSm90EpiloguePad = 8;

/// Dynamic shared memory of one block of `config`: the pipeline ring or the epilogue tile, whichever is larger,
/// plus 1 KiB to align the ring to the 1024-byte swizzle atom.
inline size_t implicit_gemm_sm90_smem_bytes(int config) {
    const ImplicitGemmSm90Config& c = kImplicitGemmSm90Configs[config];
    const size_t ring = static_cast<size_t>(c.stages) * (c.bm + c.bn) * kSm90SliceK * 2;
    const size_t epilogue = static_cast<size_t>(c.bm) * (c.bn + kSm90EpiloguePad) * sizeof(float);
    return (ring > epilogue ? ring : epilogue) + 1024;
}

/// "128x128x64 wg2 s5 occ1"
std::string implicit_gemm_sm90_config_name(int config);

/// Whether this build holds the sm_90a kernels (false: every entry point below refuses or throws).
bool implicit_gemm_sm90_compiled();

/// Lets the kernel of (dtype, config) use its dynamic shared memory. Call once per process and device.
cudaError_t implicit_gemm_sm90_prepare(DType dtype, int config);

/// How many blocks of (dtype, config) fit on one SM of the current device
/// (cudaOccupancyMaxActiveBlocksPerMultiprocessor, after implicit_gemm_sm90_prepare); 0 without sm_90a code. Tests
/// compare it with the config's blocks_per_sm.
int implicit_gemm_sm90_blocks_per_sm(DType dtype, int config);

/// Enqueues one convolution on `stream`. dtype: f16 or bf16; params.splits == 1; x, w, y and the residual 16-byte
/// aligned.
void implicit_gemm_sm90_launch(const ImplicitGemmParams& params, DType dtype, int config, cudaStream_t stream);

}  // namespace strata::cuda
