// depthwise_backward_plan.h: how the depthwise backward launchers cut the work, decided on the host from the params
// alone: the thread mapping (planes: threads along the width of (n, c) planes, for nchw; channels: threads along
// channels with 16-byte vector loads, for nhwc), the block shape and, for wgrad, the slices of the N*P*Q reduction.
// The slice count depends on the geometry and the layout only (not the dtype, the pointers or the GPU), so the
// workspace size is a function of the params and dW comes out bit-identical on every GPU.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

#include "backends/cuda/kernels/depthwise/depthwise_backward.h"

namespace strata::cuda {

inline constexpr int kDwThreads = 256;                  ///< threads per block of every kernel of the family
inline constexpr size_t kDwMaxSmemBytes = 48 * 1024;    ///< dynamic shared memory usable without an opt-in
inline constexpr int64_t kDwDgradTargetBlocks = 2048;   ///< channels mapping: blocks that grid-stride over pixels
inline constexpr int64_t kDwWgradTargetBlocks = 1024;   ///< wgrad stage 1: blocks the slices aim for
inline constexpr int64_t kDwWgradMinSlicePixels = 256;  ///< wgrad stage 1: fewest output pixels in a slice
inline constexpr int64_t kDwMaxGridY = 65535;

/// Filter taps along S that one wgrad stage-1 thread accumulates at once (s0 .. s0 + chunk - 1 of one filter row):
/// 8 scalars, or 32 floats' worth of V-channel vectors, so that the accumulators stay in registers.
constexpr int dw_wgrad_s_chunk(int vector) {
    return vector == 1 ? 8 : 32 / vector;
}

enum class DwMapping { planes, channels };

struct DwDgradPlan {
    DwMapping mapping = DwMapping::planes;
    int vector = 1;         ///< channels: channels per thread (one 16-byte load) or 1
    int lanes = 1;          ///< channels: threads along channels per block (a power of two <= 32); planes: threads
                            ///< per plane (a power of two, 32..256)
    size_t smem_bytes = 0;  ///< channels: the block's W tile as floats [R*S][lanes * vector * multiplier]
    int64_t grid_x = 0, grid_y = 0;
};

struct DwWgradPlan {
    DwMapping mapping = DwMapping::planes;
    int vector = 1;              ///< channels: output channels per thread (one 16-byte load) or 1
    int lanes = 1;               ///< channels: threads along channels per block (a power of two <= 32)
    int s_chunk = 8;             ///< dw_wgrad_s_chunk(vector)
    int s_chunks = 1;            ///< ceil(S / s_chunk)
    int64_t k_tiles = 1;         ///< planes: K (a block per output channel); channels: ceil(K / (lanes * vector))
    int64_t rows = 0;            ///< the reduction's (n, p) rows: N * P
    int64_t rows_per_slice = 0;  ///< consecutive rows one stage-1 block sums
    int64_t slices = 0;          ///< ceil(rows / rows_per_slice); 0 when there is nothing to sum
    int64_t stage1_blocks = 0;   ///< slices * k_tiles * R * s_chunks
};

/// True when channels are contiguous in X and dY (nhwc), so that lanes along channels coalesce.
bool dw_channels_contiguous(const DepthwiseBackwardParams& params);

/// The dgrad plan for elements of `elem_bytes` bytes (vector loads need dy and dx aligned).
DwDgradPlan dw_dgrad_plan(const DepthwiseBackwardParams& params, size_t elem_bytes);

/// The wgrad plan; elem_bytes == 0 plans the slices only (all that the workspace size needs).
DwWgradPlan dw_wgrad_plan(const DepthwiseBackwardParams& params, size_t elem_bytes);

/// The kernels' launchers (depthwise_backward.cu); the params are checked and the plan made by the caller.
void dw_dgrad_enqueue(const DepthwiseBackwardParams& params, const DwDgradPlan& plan, DType dtype, cudaStream_t stream);
void dw_wgrad_enqueue(const DepthwiseBackwardParams& params, const DwWgradPlan& plan, DType dtype, float* workspace,
                      cudaStream_t stream);

}  // namespace strata::cuda
