// depthwise_int8_band.h: the int8 depthwise convolution on NCHW tensors with tensor cores (issue 4, acceptance 4).
// Host side: the sizes a band tile implies, what it cannot run, and the launch; the kernel's pieces are in
// depthwise_int8_band.cuh, the kernel itself in depthwise_int8_band.cu. Reached through depthwise_int8.h's API with
// DwInt8Params::nchw set and a tile whose band.per_warp > 0.
//
// NOTE [depthwise int8 nchw band]
// Every int8 kernel on NHWC so far spent most of its instructions moving bytes between layouts: dp4a and the int8
// mma both want several taps (columns) of ONE channel in a 32-bit word, NHWC packs four channels of one pixel, and the
// byte transposes in and out cost about as much as the arithmetic (NOTE [depthwise int8 mma tile]: ~28 instructions
// an output, ~11 of them transposes). In NCHW a channel's row is contiguous bytes, so the tensor cores read it as it
// lies. For one channel and one kernel row r, a tile of 16 output rows x 8 output columns is one m16n8k16 s8 mma:
//   A[m][k] = input row (y_m + r - pad_h), column (x0 - pad_w - off + k), k = 0..15   (16 rows x 16 columns)
//   B[k][n] = w[r][k - n - off] (zero outside 0 .. K-1)                              (the band of the kernel row)
//   D[m][n] += sum_k A[m][k] B[k][n] = sum_j input(y_m + r - pad_h, x0 + n - pad_w + j) w[r][j]
// so K mma make the 128 outputs, with exact int32 accumulators that start from the bias. A lane's A registers are
// 4-byte shared loads of plane rows (4 consecutive columns), its B register is three byte permutes of the kernel row
// once per plane, and its D registers are two pairs of adjacent output columns, stored as 2-byte words into the
// warp's output plane in shared memory (16 * rs rows of Q bytes: rows past P go to the spare rows, never copied), which
// the warp then stores to Y in 16-byte words. The first version stored the 2-byte words straight to Y: each store
// instruction wrote 8 rows x 8 bytes, 8 sectors a quarter full; on an H100 on 2026-12-07 it took 149 us for 144x56k3s1
// b128 (the NHWC int8 tiles 62.6, fp16 82.1), the staged output 87 us.
// The plane sits in shared memory padded: input column c at byte c + 4 of its row (4 bytes of zero margin, so that
// a window may start left of column 0 at an aligned address; `off` = (4 - pad_w) % 4 moves the band instead), zero
// columns to the right, and zero rows above and below, set once per warp: per plane only the H * W data bytes are
// copied, as aligned words (W % 4 == 0), 32 / (W / 4) whole rows a pass (DwInt8BandCopy). Rows: lane m of a step s holds output rows s + rs * m (m = lane / 4 and
// lane / 4 + 8, rs = ceil(P / 16) steps), so the next step's window for kernel row r is this step's for r + 1: a step
// loads only the new kernel row's two A words and issues K mma (the rolling rows of SEEDS.md section 5).
// Each warp owns whole planes (channel c of image n, contiguous bytes in NCHW), per_warp of them one after another,
// with the next plane's words loaded into registers while the current one is multiplied; no block-wide barrier.
// Cost, measured: Nsight Compute on the staged-output version (144x56k3s1 b128, H100, 2026-12-07) counted 46.8 M warp
// instructions, ~26 an output, issued at 56% of the peak with 3.4 warps a scheduler (128 registers: the fetch's 32
// words and their 32 shared offsets), "stall wait" the largest reason: issue-bound, where the count before writing it
// had said ~7.5 an output and the SASS 13-15. Since then (not measured): the copy goes by whole rows (5 registers for
// its offsets instead of 32), and with one plane a warp nothing is prefetched, so that kernel fits 80 registers (24
// warps an SM, dw_int8_band_min_blocks). A step of 4 outputs a lane is ~42-47 SASS instructions since the row
// tests went (the spare rows) and the column test with them where Q % 8 == 0 (DwInt8BandCols::whole): 22-24 of
// epilogue (per pair: 2 I2FP, 2 FFMA, 4 FMNMX, 2 FADD, PRMT, STS), K IMMA with NOPs between, 2 LDS, 3-4 moves of the
// bias into the accumulator quad (ptxas gives the first mma's C and D one quad), addresses and the loop; per plane the
// copy in (~270 instructions for a 56 map, each word tested and stored at its own offset), per column tile a prologue
// over only rs steps. The epilogue is the floor: ~6 an int8 output, where fp16 pays ~1.5 (two outputs an
// instruction). Wasted slots: 16 * rs rows and 8 * ceil(Q / 8) columns are computed (28x28: 77% used).
// Limits: k 3 or 5, stride 1, no dilation, int8 output, W % 4 == 0, H * W <= 4096 (maps of 28 and 56; 14 and 7
// need an unaligned copy, 112 a plane split into bands of rows), W <= 128 and H <= 32 copy passes.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "backends/cuda/kernels/common/fast_divmod.h"  // STRATA_HOST_DEVICE
#include "backends/cuda/kernels/depthwise/depthwise_int8.h"

namespace strata::cuda {

inline constexpr int kDwInt8BandWarps = 4;       ///< warps per block (independent: each owns its planes)
inline constexpr int kDwInt8BandMargin = 4;      ///< input column c lies at byte c + 4 of a plane row
inline constexpr int kDwInt8BandMaxWords = 32;   ///< words a lane copies per plane (copy passes): at most 32
inline constexpr int kDwInt8BandPerWarp[] = {1, 2, 4, 8};  ///< the planes-per-warp the tile list offers

/// How the 8-column tiles meet the map's width Q: every tile whole (Q % 8 == 0: no column test), Q even (a lane's pair
/// of columns is in the map or out of it whole) or Q odd (a pair may have its first column only). The kernel has a
/// walk for each.
enum class DwInt8BandCols { whole, even, odd };

STRATA_HOST_DEVICE inline DwInt8BandCols dw_int8_band_cols(int q) {
    return q % 8 == 0 ? DwInt8BandCols::whole : q % 2 == 0 ? DwInt8BandCols::even : DwInt8BandCols::odd;
}

/// What a band tile implies, on the host; the kernel gets it by value.
struct DwInt8BandGeometry {
    int rs = 1;           ///< mma steps down a plane: 16 * rs >= P
    int col_tiles = 1;    ///< 8-column tiles across: 8 * col_tiles >= Q
    int rows = 0;         ///< plane rows in shared memory, 16 * rs + K - 1; row i holds input row i - pad_h
    int pitch = 0;        ///< bytes of a plane row: a multiple of 4 whose rows rs apart fall 4 banks apart mod 8
    int plane_bytes = 0;  ///< rows * pitch
    int copy_rows = 0;    ///< input rows a warp copies per pass: 32 / (W / 4), lane = row * W / 4 + word (W <= 128)
    int words_per_lane = 0;  ///< copy passes, ceil(H / copy_rows): the words a lane copies per plane
    int off = 0;          ///< (margin - pad_w) % 4: the band's shift (NOTE [depthwise int8 nchw band])
    int col0 = 0;         ///< byte of the window of output column 0: margin - pad_w - off (a multiple of 4)
    int out_offset = 0;   ///< where a warp's output plane starts in its shared memory: plane_bytes rounded up to 16
    int out_bytes = 0;    ///< P * Q: the output plane, staged in shared memory (16 rs rows of Q) and stored whole
    int out_vec = 1;      ///< bytes a lane stores at once in the copy-out: 16, 4 or 1 (out_bytes' and Y's alignment)
    int warp_bytes = 0;   ///< shared memory per warp: the input plane, then the output plane (a multiple of 16)
    int64_t planes = 0;   ///< N * C
    int64_t warps = 0;    ///< ceil(planes / per_warp)
    int64_t blocks = 0;   ///< ceil(warps / kDwInt8BandWarps)
    size_t bytes = 0;     ///< shared memory per block: warp_bytes per warp
};

/// p.tile's band sizes (p.tile.band.per_warp > 0; no other checks).
DwInt8BandGeometry depthwise_int8_band_geometry(const DwInt8Params& p);
/// Empty when the band kernel can run p (p.nchw, p.tile.band.per_warp > 0), else why not.
std::string depthwise_int8_band_problem(const DwInt8Params& p);
/// One tile per kBandPerWarp entry, or none when the shape is not the band kernel's.
std::vector<DwInt8Tile> depthwise_int8_band_tiles(const DwInt8Params& p);
/// Enqueues the band kernel (p must pass depthwise_int8_band_problem).
void depthwise_int8_band_launch(const DwInt8Params& p, cudaStream_t stream);
/// The same warps on the host, lane by lane, the mma emulated from its fragment layout.
void depthwise_int8_band_run_on_host(const DwInt8Params& p);

}  // namespace strata::cuda
