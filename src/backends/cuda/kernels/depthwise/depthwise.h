// depthwise.h: strata's depthwise convolution family (SEEDS.md section 5), the tactic cuda.conv.depthwise.
//
// A depthwise convolution (group == C, K = C * multiplier) reads each input element K*K times but does only K*K
// multiply-adds per output, so it is memory-bound: the kernels exist to touch DRAM once per element and keep the
// load/store units from becoming the limit. Three kernels:
//   - tiled NHWC: each thread owns VEC consecutive channels (one 16- or 4-byte vector), COLS neighbouring output
//     columns and a strip of ROWS output rows. Row reuse: walking down the strip, every input row is loaded once into
//     registers and multiplied into the ceil(K/stride) output rows whose windows contain it (rolling accumulators).
//     Column reuse: the (COLS-1)*stride+K input columns of a row serve all COLS outputs from registers. Filter taps
//     sit in shared memory for the block's channels. k in {3,5,7}, stride in {1,2}, dilation 1, multiplier 1.
//   - tiled NCHW: the same rolling scheme with one channel per thread and lanes along W (COLS outputs each).
//   - generic: anything else (any k / stride / dilation / pads / multiplier / layout) runs the generic direct
//     convolution of kernels/conv/direct_conv.h, which already handles groups of one channel.
// The tile (kernel, VEC, COLS, ROWS, block shape) is chosen per shape by select_depthwise_tile(): the largest tile
// that still leaves enough resident warps on every SM, so batch 1 and batch 128 both fill the GPU.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>
#include <string>

#include "backends/cuda/kernels/common/epilogue.h"
#include "backends/cuda/kernels/conv/conv_geometry.h"
#include "strata/tensor.h"

namespace strata::cuda {

struct DepthwiseParams {
    ConvGeometry g;            ///< group == c, k == c * multiplier
    int multiplier = 1;        ///< output channels per input channel
    int64_t x_stride[4] = {};  ///< X element strides of n, c, h, w
    int64_t w_stride[4] = {};  ///< W element strides of k, (c), r, s
    int64_t y_stride[4] = {};  ///< Y (and residual) element strides of n, k, p, q
    const void* x = nullptr;
    const void* w = nullptr;
    void* y = nullptr;
    EpilogueParams epilogue;
    bool pdl = false;  ///< the tiled and staged kernels launch with PDL (NOTE [programmatic dependent launch], pdl.h)
};

enum class DepthwiseKernelKind { tiled_nhwc, tiled_nchw, staged_nhwc, generic };

/// What one launch runs: the kernel, its compile-time tile, the rows per strip and the block shape.
struct DepthwiseTile {
    DepthwiseKernelKind kind = DepthwiseKernelKind::generic;
    int vec = 1;              ///< channels per thread (tiled_nhwc)
    int cols = 1;             ///< output columns per thread
    int rows = 1;             ///< output rows per thread (strip height)
    int block_x = 256;        ///< tiled_nhwc: channel vectors per block; otherwise threads per block
    int block_y = 1;          ///< tiled_nhwc: strips per block
    int64_t threads = 0;      ///< threads launched (one per strip and channel vector)
    bool half2 = false;       ///< tiled_nhwc in fp16: paired HFMA2 arithmetic (depthwise_math.cuh)
    bool wide_fits = false;   ///< tiled_nhwc: two columns per thread fit the register budget
    bool async_rows = false;  ///< tiled_nhwc, 16-byte vectors: rows through a cp.async ring (NOTE [depthwise async rows])
    bool register_taps = false;  ///< tiled_nhwc, 8-byte vectors, taps in registers (NOTE [depthwise register taps])
    int tile_p = 0;           ///< staged_nhwc: output rows of a block's tile
    int tile_q = 0;           ///< staged_nhwc: output columns of a block's tile
    int channel_lanes = 32;   ///< staged_nhwc: lanes of a warp on channels (32 or 8; the rest on columns)
    bool persistent = false;  ///< staged_nhwc: a few blocks per SM walk the tiles with two buffers; else one each
    bool blocked = false;     ///< staged_nhwc: walkers of rows x cols output blocks (NOTE [depthwise blocked walkers])
    int chains = 1;           ///< blocked walkers: independent sums per output, 1 or 2 (NOTE [depthwise two chains])
    bool tma = false;         ///< blocked walkers: the tile copied by the tensor memory accelerator (NOTE [depthwise tma tile])
    std::string str() const;  ///< "nhwc vec8 cols2 rows4 block 16x16, 200704 threads"
};

/// A tiled NHWC tile that runs the one-row kernel (NOTE [depthwise one-row strips], depthwise_kernel.cuh): strips of
/// one output row, 16-byte vectors of `elem_bytes`-byte elements, rows not through the async ring, and 3x3, or 5x5
/// in one column (NOTE [depthwise 5x5 one-row strips]).
inline bool depthwise_one_row(const ConvGeometry& g, const DepthwiseTile& t, int elem_bytes) {
    if (t.kind != DepthwiseKernelKind::tiled_nhwc || t.rows != 1 || t.async_rows || t.register_taps ||
        t.vec * elem_bytes != 16)
        return false;
    return g.r == 3 || (g.r == 5 && t.cols == 1);
}

/// Why the depthwise family cannot run `g` at all (empty when it can): needs group == C and K % C == 0.
std::string depthwise_problem(const ConvGeometry& g);

/// The tile for `prm` on a GPU with `sm_count` SMs. Tiled kernels need: k in {3,5,7} square, stride in {1,2}
/// (both dims equal), dilation 1, multiplier 1, and for tiled_nhwc channels contiguous (x/y channel stride 1) with
/// C a multiple of the vector width; anything else runs the generic kernel. `nhwc`: the tensors are channels-last.
DepthwiseTile select_depthwise_tile(const DepthwiseParams& prm, DType dtype, bool nhwc, int sm_count);

/// Overrides the strip of a tiled `tile`: `rows` output rows per thread, and the wide column count (2 in NHWC, 4 in
/// NCHW) or 1. False, leaving `tile` as it was, for the generic kernel or a wide NHWC strip that would need too many
/// registers. The tactic offers these as configs so that the builder's timing can confirm or overrule the selector.
bool force_depthwise_strip(DepthwiseTile& tile, const DepthwiseParams& prm, int rows, bool wide);

/// Turns a tiled NHWC `tile` into strips of `rows` output rows and two columns in 8-byte vectors with the taps held
/// in registers (NOTE [depthwise register taps], depthwise_math.cuh). False, leaving `tile` as it was, for bf16, 7x7,
/// C not a multiple of the 8-byte vector, or a tile that is not tiled NHWC.
bool make_depthwise_register_taps(DepthwiseTile& tile, const DepthwiseParams& prm, DType dtype, int rows);

/// Shrinks the block of a tiled NHWC `tile` (halving its rows of strips, down to one warp) until the launch has a
/// block for each of `sm_count` SMs (NOTE [depthwise blocks for every SM]). False, leaving `tile` as it was, where it
/// has that many already or is not tiled NHWC.
bool fill_sms_with_blocks(DepthwiseTile& tile, const DepthwiseParams& prm, int sm_count);

/// Whether the tiled kernels' walk (dw_strip, NOTE [depthwise row ring]) keeps two input rows in flight, not one, for
/// rows of `row_bytes` and `acc_bytes` of accumulators per vector: where three rows fit in registers beside the
/// accumulators. Not for 5x5 and 7x7 rows of 16-byte vectors, nor bf16's 16-byte vectors, whose float accumulators are
/// twice fp16's pairs (with three rows its 3x3 two-column kernel spilled 133 registers in the sm_90 SASS, against 40
/// with two). The host's register estimate (depthwise.cpp) and the kernels both ask this.
constexpr bool depthwise_two_rows_ahead(int row_bytes, int acc_bytes) {
    return row_bytes <= 64 && acc_bytes <= 16;
}

/// Input rows a thread of the async-row walk keeps in flight beyond the one it multiplies (NOTE [depthwise async
/// rows]); its ring has two slots more: the row being read and the one read before it, which a copy must not overwrite.
inline constexpr int kDepthwiseAsyncAhead = 2;
inline constexpr int kDepthwiseAsyncSlots = kDepthwiseAsyncAhead + 2;

/// The bytes of the async-row walk's ring for a block of `threads` threads walking strips of `cols` output columns.
inline size_t depthwise_async_ring_bytes(const ConvGeometry& g, int cols, int threads) {
    const size_t in_cols = size_t(cols - 1) * g.stride_w + g.s;
    return size_t(kDepthwiseAsyncSlots) * in_cols * size_t(threads) * 16;
}

/// Shared memory per staged tile buffer (a persistent block holds two): three such blocks fit on an SM (228 KiB).
inline constexpr size_t kDepthwiseStagedTileBudget = 32 * 1024;
/// The budget of the wide TMA tiles (configs 31-32, NOTE [depthwise wide tma tile]): one buffer a block, so twice the
/// staged budget still leaves three blocks an SM; 14 x 14 outputs of 128-byte pixels at 5x5 (41 KiB) fit.
inline constexpr size_t kDepthwiseWideTileBudget = 2 * kDepthwiseStagedTileBudget;

/// The staged NHWC tile for `prm` with `channel_lanes` (32 or 8) lanes on channels: the tile with the least input
/// re-read (halo) that still launches a few blocks per SM, or the one with the most blocks when none does. False when
/// the staged kernel cannot run `prm` (it needs the tiled geometry, channels contiguous, C a multiple of 16 bytes).
bool stage_depthwise_tile(DepthwiseTile& tile, const DepthwiseParams& prm, DType dtype, int sm_count, int channel_lanes,
                          bool persistent);

/// The output block of a blocked staged walker (NOTE [depthwise blocked walkers], depthwise_blocked.cuh): 7 x 7, so
/// that maps of 7 * 2^k (the 224-pixel networks' 112, 56, 28, 14, 7) split into whole blocks.
inline constexpr int kDepthwiseBlockRows = 7;
inline constexpr int kDepthwiseBlockCols = 7;

/// The staged tile of blocked walkers (tile sides whole blocks) for `prm`, chosen as stage_depthwise_tile does. False
/// where the blocked kernel cannot run: bf16, k other than 3 and 5, or the staged kernel's own conditions. It is
/// compiled for clamp epilogues only; the tactic refuses other activations.
/// `budget`: the bytes a tile may take (kDepthwiseStagedTileBudget, or kDepthwiseWideTileBudget for the wide TMA
/// tiles).
bool block_depthwise_tile(DepthwiseTile& tile, const DepthwiseParams& prm, DType dtype, int sm_count, int channel_lanes,
                          bool persistent, size_t budget = kDepthwiseStagedTileBudget);

/// True when the tiled and staged kernels have a specialisation for `prm`'s geometry: k in {3,5,7} square, stride
/// in {1,2} (both dims equal), dilation 1, multiplier 1, 2-D.
bool depthwise_tiled_geometry(const DepthwiseParams& prm);

/// The shared memory (bytes) of one staged tile buffer of a tile_p x tile_q output tile with `channel_lanes` 4-byte
/// words per pixel.
size_t staged_tile_bytes(const ConvGeometry& g, int tile_p, int tile_q, int channel_lanes);

/// Shared memory (bytes) a tile needs: the tiled NHWC kernel's filter taps (and, with async rows, its ring after
/// them, at depthwise_async_ring_offset), the staged kernel's input tile.
size_t depthwise_smem_bytes(const DepthwiseParams& prm, const DepthwiseTile& tile);
size_t depthwise_async_ring_offset(const DepthwiseParams& prm, const DepthwiseTile& tile);

/// `tile` (a tiled NHWC tile from select_depthwise_tile / force_depthwise_strip) with async rows; false, leaving it as
/// it was, where that walk cannot run: vectors not of 16 bytes, or more shared memory than `smem_optin` bytes.
bool make_depthwise_async(DepthwiseTile& tile, const DepthwiseParams& prm, DType dtype, size_t smem_optin);

/// Enqueues the depthwise convolution on `stream` with `tile` (from select_depthwise_tile). Falls back to the
/// generic kernel when a pointer is not aligned to the tile's vector width. dtype: f32, f16 or bf16.
void depthwise_forward_launch(const DepthwiseParams& prm, const DepthwiseTile& tile, DType dtype, cudaStream_t stream);

// Per-dtype launchers of the tiled kernels (depthwise_f32.cu, depthwise_f16.cu, depthwise_bf16.cu), compiled apart
// so the three instantiation tables build in parallel; false when `tile` has no tiled kernel.
bool depthwise_launch_f32(const DepthwiseParams& prm, const DepthwiseTile& tile, cudaStream_t stream);
bool depthwise_launch_f16(const DepthwiseParams& prm, const DepthwiseTile& tile, cudaStream_t stream);
bool depthwise_launch_bf16(const DepthwiseParams& prm, const DepthwiseTile& tile, cudaStream_t stream);

}  // namespace strata::cuda
