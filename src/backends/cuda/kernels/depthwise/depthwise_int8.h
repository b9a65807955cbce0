// depthwise_int8.h: the int8 depthwise convolution (issue 4, SEEDS.md section 5 "INT8"): int8 activations and
// weights, int32 accumulation with __dp4a, per-channel requantisation to int8 or dequantisation to fp16 at the store.
// A standalone CUDA API (strata's IR has no quantized ops yet): a trivially copyable params struct, a host-side tile
// selector, and a launch on a stream that allocates nothing and never synchronises (graph-capturable).
// Use: once, table = depthwise_int8_channels(quant, C) and packed = depthwise_int8_pack_weights(w, C, R, S), both
// uploaded; fill DwInt8Params with device pointers, p.tile = depthwise_int8_select(p, sm_count), check that
// depthwise_int8_problem(p) is empty; then per run depthwise_int8_launch(p, stream) and check_launch().
//
// NOTE [depthwise int8 arithmetic] -- what every output is, so that a host reference reproduces it bit for bit.
// Activations are symmetric int8 (zero point 0: padding reads 0). For output channel c (== input channel c):
//   acc    = sum over taps (r, s) inside the image of int32(x) * int32(w[c][r][s])   (exact int32)
//            + bias_i32[c] when bias_i32 is given (int32 add, wrapping)
//   v      = fmaf(float(acc), mul[c], add[c])        float(acc): round to nearest even; fmaf: one rounding
//            (__int2float_rn and __fmaf_rn on the device, static_cast<float> and std::fmaf on the host)
//   v      = fminf(fmaxf(v, lo[c]), hi[c])
//   int8:  y = round-half-even(v); v already lies in [-128, 127] (the device adds 1.5 * 2^23 with __fadd_rn and
//          keeps the low byte, which is the same number)
//   fp16:  y = __float2half_rn(v)
// The per-channel constants are computed on the host by depthwise_int8_channels(), in float, each operation rounded
// to nearest even, in this order:
//   int8 output (out_scale[c], or out_scale[0] for a per-tensor scale):
//     mul = (in_scale * w_scale[c]) / out_scale[c]     add = bias[c] / out_scale[c] (0 without a float bias)
//     lo = -128, hi = 127; ReLU: lo = 0; ReLU6: lo = 0, hi = min(127, 6 / out_scale[c])
//     which equals saturate_int8(round-half-even(act(v))) with act applied in output units.
//   fp16 output:
//     mul = in_scale * w_scale[c]                       add = bias[c] (0 without a float bias)
//     lo = -inf, hi = +inf; ReLU: lo = 0; ReLU6: lo = 0, hi = 6
//   add == -0 is stored as +0, so that v = -0 (on which fmaxf(v, 0) may return either zero) needs a product
//   float(acc) * mul that underflows to -0, which no real scale gives.
// A float bias is in real units (the convolution's output scale); bias_i32 is in accumulator units (scale
// in_scale * w_scale[c], the TFLite/TensorRT convention). Both may be given.
//
// NOTE [depthwise int8 layout] -- why NHWC with 4 channels per thread and W packed into dp4a words.
// NHWC is what strata's fp16 kernels hand over, and a warp reading one 4-byte word per lane at consecutive channel
// words of a pixel reads 128 contiguous bytes (C >= 128; a smaller C reads whole pixels of C bytes): full sectors,
// every byte from DRAM once. __dp4a
// needs 4 taps of ONE channel in a word, NHWC gives 4 channels of one pixel: each thread owns 4 channels and TW output
// columns, loads the TW*S + K - S input words of a row (channels 4c..4c+3 of consecutive pixels), transposes them
// with 8 __byte_perm per 4 words into per-channel words of 4 consecutive pixels, cuts each tap window (one
// __byte_perm when unaligned) and feeds one __dp4a per 4 taps: 3 dp4a per output for 3x3, 10 for 5x5, 14 for 7x7,
// against 9/25/49 integer multiply-adds plus byte extraction with plain IMAD, which would be compute-bound before
// DRAM is. Row reuse: the thread walks down a strip of output rows; each input row is loaded, transposed and windowed
// once and added into the ceil(K/S) rolling accumulator rows that use it (SEEDS.md's "rolling recycle"). Column reuse:
// neighbouring threads (same block, adjacent column tiles) share the K - S halo columns through L1.
// Why not 16-byte loads per thread: a thread holding 16 channels would need 16 x TW x ceil(K/S) accumulators and
// 16 x K x ceil(K/4) filter words -- hundreds of registers -- and 4 channels x 4 columns is the smallest tile that
// fills dp4a words. The 4-byte loads are still whole lines per warp; bytes in flight come from the TW*S + K - S
// independent loads per row that each thread issues one row ahead of the one it computes.
// Other layouts: NCHW int8 rows of 7/14/28 bytes are not word aligned, so it is not offered; C % 4 != 0, dilation,
// other kernel sizes and strides run the generic kernel (one thread per output element, same arithmetic).
// Budget (counted in the sm_90 SASS, not yet timed): 3x3 s1 with 4 columns per thread issues ~15 instructions per
// output -- 3 dp4a, ~2.4 byte permutes, ~6 for the requantisation (I2F, FFMA, 2 FMNMX, FADD, packing) and ~3 for
// loads, addresses and the loop -- so at 2 bytes per output the SMs issue about 4.4 TB/s worth at full rate: the
// kernel reaches DRAM speed only with >= ~75% issue efficiency. 5x5 s1 needs ~30 (10 dp4a), so there the issue rate,
// not DRAM, sets the time. The tile list (depthwise_int8_tiles) is there for the benchmark to measure them all.
//
// NOTE [depthwise int8 staged tile]
// The fast kernels read their rows straight from global memory, 4 bytes per lane: a warp's load is one 128-byte line,
// and to cover DRAM's latency every SM needs ~24 KiB in flight, i.e. ~190 such loads outstanding. With a row or two
// ahead per thread they reached 48-71% of the copy bandwidth at batch 128 (H200, 2026-12-03), so the int8 kernel
// took 0.8-1.1x the fp16 kernel's time where acceptance 4 of issue 4 asks for 0.6x. The fp16 kernels got past the
// same wall by staging (NOTE [depthwise staged tile]): a block copies its whole input tile into shared memory with
// 16-byte cp.async chunks, all in flight at once, and several blocks per SM overlap one tile's copy with another's
// arithmetic. The staged int8 kernel does that for the fast thread programs: a block owns an output tile of
// strips * rows by col_tiles * cols outputs and a slab of cl channel words (C % 16 == 0, so that a slab is whole
// 16-byte chunks); its input tile -- (tile - 1) * stride + k rows and columns, zeros outside the map, so that no
// thread tests padding -- goes to shared memory as [row][column][cl] words, and the slab's packed filters and channel
// table after it in the same burst (loaded by each thread from global memory instead, the filters' round trip came
// after the barrier: sm_90 ptxas sank the loads past it); then each thread waits at the barrier, reads its filters
// from shared memory and walks its strip as the fast thread program does (transposes, windows, dp4a, rolling rows),
// each row's words read from shared memory (lanes on consecutive channel words: conflict-free within a pixel). The
// arithmetic is the same instruction for instruction, so the outputs are bit-identical to the fast kernels'.
//
// NOTE [depthwise int8 mma tile]
// Staging did not make the int8 kernel fast: Nsight Compute (H100, 2026-12-07, 144x56k3s1 b128) counted ~20 SASS
// instructions per output in the fast kernel, half of them on the ALU pipe (the per-channel byte transposes, the
// windows cut for dp4a, the clamps), which issues at half rate: ALU 59% busy at 56% issue, DRAM 40%. The tensor cores
// take the multiply and the windows off the SMs' pipes. For one channel, a row of 16 outputs of a k x k stride-1
// depthwise convolution is a 16 x 32 by 32 x 8 int8 product per kernel row r: A[m][j] = w[r][j - m] (a band, zero
// outside 0 <= j - m < k: k <= 7 keeps it inside 32 columns), B[j][n] = input column q0 + j - pad of the input row
// that kernel row r of output row n reads. One mma.m16n8k32.s8 thus makes 16 columns x 8 rows of one channel per
// kernel row; k of them (int32 accumulators, exact) give those 128 outputs. A block owns a tile of 8 * rs output rows
// x 16 * qb columns x 16 channels (a 16-byte chunk per pixel, so C % 16 == 0) and runs in three phases:
//  1. its threads load the input tile (16-byte loads of 4 consecutive pixels, all in flight before any use),
//     transpose them with byte permutes into per-channel planes ([channel][row][column] bytes) in shared memory;
//  2. each warp takes two channels; a lane builds its A fragments once per channel and kernel row (three byte
//     permutes of the kernel row's 8 bytes), then walks rs steps down the tile: B of output row n = lane / 4 is two
//     4-byte shared loads, and the k B fragments of a step are those of the step before shifted by one kernel row
//     (lane n's output rows are s + n * rs, s = 0 .. rs - 1, so its next row is its own window's next), so a step loads
//     one new B; the epilogue (bias, scale, clamp, round) of the 4 outputs a lane holds goes into per-channel output
//     planes in shared memory;
//  3. after a barrier the threads transpose the output planes back into 16-channel pixels and store them with
//     16-byte stores.
// Per output that is the epilogue (~5 instructions), a byte store, and about one instruction each for the two
// transposes, against ~20 in the fast kernel. The plane pitches are chosen so that a warp's B loads (8 rows x 4
// columns of words) and epilogue stores each fall in distinct banks. The arithmetic is NOTE [depthwise int8
// arithmetic]'s, so outputs are bit-identical to the other kernels'. int8 output only, for now.
// Measured (H100, 2026-12-07): the count above was wrong; Nsight Compute found ~28 instructions per output (144x56k3s1
// b128, tile 32x32), the input transpose ~8 and the mma walk with its epilogue ~14 of them, and after trimming (the
// sizes compile-time, the bias as the accumulators' start, a saturating conversion) the tiles win only 240x28k5s1
// (b128 52.6 us against the fast kernels' 56.1): the epilogue alone costs about as much as the dp4a it replaced.
//
// NOTE [depthwise int8 channel mma]
// The banded tensor-core kernel (NOTE [depthwise int8 mma tile]) still spent ~15-20 instructions per output, most of
// them transposing bytes into per-channel planes and back. This kernel keeps NHWC: an m16n8k16 s8 mma whose A is 16
// output pixels' input pixels x 16 channels (each lane's A registers are 4 consecutive channels of one pixel: one
// 4-byte shared load from the NHWC tile, conflict-free, no transpose) and whose B is the tap's weights on a diagonal
// (B[k][n] = w[k][tap] where k = n + 8h, zero elsewhere; h = 0, 1 picks channels 0-7 or 8-15): one mma per tap and
// channel half makes 16 pixels x 8 channels, so 3x3 takes 18 mma per 16 x 16 outputs, wasting 15/16 of the tensor
// cores' work, of which there is plenty (~17 us of the H100's int8 mma rate for 144x56 at batch 128, under its DRAM
// floor). A lane's results are 2 adjacent channels of 2 pixels: each pair is one 2-byte store into the NHWC output
// tile, which leaves as 16-byte stores. A warp walks rw output rows of one 16-column block; its A registers of input
// rows p .. p + 2 (three column shifts each) roll down one row per step, so a step loads 6 words a lane for 8
// outputs. Per output: ~2.3 mma, ~0.8 shared loads, the epilogue (~3 with the saturating conversion), ~1 to pack and
// store. 3x3 stride 1 only: 5x5's 25 taps would need 100 registers for A and B.
// Measured (H100, 2026-12-07, one block per tile, copy then compute then store): correct, but it won no case;
// Nsight Compute on 144x56k3s1 b128 (tile 16x32) counted 29 instructions per output, the per-block setup (the B
// registers of 9 taps, the channel constants), the copy and the store as large as the 4 row steps, and 1.4 eligible
// warps per scheduler. So the kernel is persistent (NOTE at dw_int8_diag_kernel): the setup once per block, the next
// tile's copy in flight while the current one is computed. Nsight Compute on that (tile 28x32, same case): 152 us at
// ncu's 1.46 GHz, 35.7 M warp instructions (20 per output, 17 per computed one: still not the ~11 counted above),
// issue slots 31% busy, 0.8 eligible warps per scheduler, stalls led by "wait" (each half's 9 mma were one dependent
// chain), short scoreboard and MIO throttle. Splitting each chain in two (taps 0-4 and 5-8, added at the end) passed
// the tests, but the bench saw no win either (no time of its own is recorded: the sweep keeps only the winner).
// Still to find: where the other ~6 instructions per output go, and whether one warp walking two rows at once
// (independent chains, A registers shared) hides the mma latency. Until a tile of it wins, it is listed for timing
// only.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>
#include <string>
#include <vector>

#include "backends/cuda/kernels/conv/conv_geometry.h"

namespace strata::cuda {

enum class DwInt8Act : int8_t { none, relu, relu6 };
enum class DwInt8Out : int8_t { int8, fp16 };

/// One output channel's epilogue constants (NOTE [depthwise int8 arithmetic]). 16 bytes: one vector load.
struct alignas(16) DwInt8Channel {
    float mul = 1.0f, add = 0.0f, lo = -128.0f, hi = 127.0f;
};

/// The quantisation of one depthwise convolution, on the host; depthwise_int8_channels() turns it into the
/// per-channel table the kernel reads.
struct DwInt8Quant {
    float in_scale = 1.0f;
    std::vector<float> w_scale;    ///< [C], per output channel
    std::vector<float> out_scale;  ///< [C] or [1] (per tensor); int8 output only
    std::vector<float> bias;       ///< [C] in real units, or empty
    DwInt8Act act = DwInt8Act::none;
    DwInt8Out out = DwInt8Out::int8;
};

/// A specialised thread program: kernel k x k, stride s (both dims), output columns per thread, where the filter
/// words live (in registers for the whole strip, or re-read from L1 for every input row: 4 * k * ceil(k/4)
/// registers against a 16-byte load per lane and filter row), and the blocks per SM it is compiled for
/// (__launch_bounds__(kDwInt8Threads, min_blocks): 5 -> 96 registers, 4 -> 128, 3 -> 168, each the most that
/// ptxas (CUDA 13, sm_90) fits without spilling).
struct DwInt8FastShape {
    int k, stride, cols;
    bool filters_in_registers;
    int min_blocks;
    /// Input rows loaded ahead of the one being multiplied: 1, or 2 (twice the loads in flight per thread, for
    /// (cols-1)*stride+k more registers). At batch 128 the 1-ahead 3x3 kernels reached 1.6 TB/s (H200, 2026-12-01)
    /// with about 16 warps x 6 loads x 128 bytes = 12 KiB in flight per SM, about half of the ~24 KiB that 4 TB/s
    /// over ~800 ns of DRAM latency asks of each of 132 SMs: a guess at the limit that the sweep will test. (The
    /// sm_90 SASS later showed that neither kernel had a row in flight while it multiplied: see `ring`.)
    int ahead = 1;
    /// The rows go through a cp.async ring in shared memory, `ahead` rows ahead (NOTE [depthwise async rows]): in the
    /// sm_90 SASS of the register kernels every row load shares one scoreboard with the next row's prefetch and the
    /// channel constants, and each wait on it drains them all, so no row is really loaded ahead.
    bool ring = false;
};
/// The instantiated specialisations (depthwise_int8.cu builds one kernel per entry and output mode). 5x5 comes both
/// ways: registers (fewer instructions, no L1 traffic for filters, 12 warps per SM) and L1 (16 warps); for equal
/// loads the selector takes the first. The 3x3 4-column tiles come again with two rows ahead, last, so that the
/// selector keeps the measured ones and the benchmark's sweep times the new ones beside them.
inline constexpr DwInt8FastShape kDwInt8FastShapes[] = {
    {3, 1, 4, true, 4},  {3, 1, 2, true, 5},  {3, 2, 4, true, 4},    {3, 2, 2, true, 5},
    {5, 1, 2, true, 3},  {5, 1, 2, false, 4}, {5, 2, 2, true, 3},    {5, 2, 2, false, 4},
    {7, 1, 2, false, 3}, {7, 2, 2, false, 3}, {3, 1, 4, true, 4, 2}, {3, 2, 4, true, 4, 2},
    // The cp.async ring (written 2026-12-02, last: the selector keeps the measured tiles; the sweep times these).
    {3, 1, 4, true, 4, 2, true}, {3, 2, 4, true, 4, 2, true}, {5, 1, 2, true, 3, 2, true}, {5, 2, 2, true, 3, 2, true},
    {7, 1, 2, false, 3, 2, true}, {7, 2, 2, false, 3, 2, true}};
inline constexpr int kDwInt8FastCount = static_cast<int>(sizeof(kDwInt8FastShapes) / sizeof(kDwInt8FastShapes[0]));
inline constexpr int kDwInt8Threads = 128;  ///< threads per block, every kernel (small blocks: finer occupancy steps)

/// Slots of a thread's ring (DwInt8FastShape::ring): `ahead` rows in flight, the row being read and the one read before
/// it (a copy must not overwrite a row the thread may still be reading: cp.async is not ordered after its loads).
constexpr int dw_int8_ring_slots(const DwInt8FastShape& f) {
    return f.ahead + 2;
}

/// Shared memory (bytes) of a block of fast kernel `f`: its threads' rings of (cols-1)*stride+k words per row.
constexpr size_t dw_int8_ring_bytes(const DwInt8FastShape& f) {
    return f.ring ? size_t(dw_int8_ring_slots(f)) * size_t(f.stride * (f.cols - 1) + f.k) * kDwInt8Threads * 4 : 0;
}

/// The staged form of a fast tile (NOTE [depthwise int8 staged tile]): a block copies one input tile of `cl` channel
/// words into shared memory, then each of its cl * col_tiles * strips threads runs fast shape `fast`'s thread program
/// over it, on its channel word, column tile (`cols` outputs) and strip (`rows` outputs). cl == 0: not staged.
struct DwInt8Stage {
    int cl = 0;         ///< channel words a block covers: a multiple of 4 (16-byte chunks) that divides C / 4
    int col_tiles = 1;  ///< thread column tiles across the block's output tile
    int strips = 1;     ///< thread strips down the block's output tile
};

/// The tensor-core form of a tile (NOTE [depthwise int8 mma tile]): a block's output tile is 8 * rs rows by 16 * qb
/// columns of 16 channels. rs == 0: not the tensor-core kernel.
struct DwInt8Mma {
    int rs = 0;  ///< output rows each lane's mma column walks (the tile's rows are 8 * rs)
    int qb = 1;  ///< 16-column blocks across the tile
};
/// The instantiated tensor-core tiles (depthwise_int8.cu builds one kernel per entry and kernel size 3, 5, 7).
inline constexpr DwInt8Mma kDwInt8MmaConfigs[] = {{1, 1}, {2, 1}, {2, 2}, {4, 2}};
inline constexpr int kDwInt8MmaConfigCount = static_cast<int>(sizeof(kDwInt8MmaConfigs) / sizeof(kDwInt8MmaConfigs[0]));
inline constexpr int kDwInt8MmaThreads = 256;  ///< threads per block of the tensor-core kernel (8 warps)

/// The channel-mma form of a 3x3 stride-1 tile (NOTE [depthwise int8 channel mma]): 8 warps, each walking rw output
/// rows of one 16-column block (qb blocks across), so the tile is rw * 8 / qb rows by 16 * qb columns of 16 channels.
/// rw == 0: not this kernel.
struct DwInt8Diag {
    int rw = 0;  ///< output rows a warp walks
    int qb = 1;  ///< 16-column blocks across the tile (1 or 2)
};
/// The instantiated channel-mma tiles: 16x16, 16x32 and 28x32 (maps of 14, 28, 56, 112 rows fit the last whole).
inline constexpr DwInt8Diag kDwInt8DiagConfigs[] = {{2, 1}, {4, 2}, {7, 2}};
inline constexpr int kDwInt8DiagConfigCount =
    static_cast<int>(sizeof(kDwInt8DiagConfigs) / sizeof(kDwInt8DiagConfigs[0]));

/// The NCHW tensor-core form (NOTE [depthwise int8 nchw band] in depthwise_int8_band.h): each warp multiplies
/// per_warp whole channel planes, one after another. per_warp == 0: not this kernel.
struct DwInt8Band {
    int per_warp = 0;
};

/// Which kernel runs and how much each thread covers.
struct DwInt8Tile {
    int fast = -1;      ///< index into kDwInt8FastShapes; -1 = the generic kernel
    int rows = 1;       ///< output rows per thread strip (fast kernels); the tile's rows (tensor-core tiles)
    DwInt8Stage stage;  ///< staged through shared memory when stage.cl > 0 (fast shapes with dw_int8_stageable only)
    DwInt8Mma mma;      ///< the tensor-core kernel when mma.rs > 0 (fast is then the k x k stride-1 fast shape)
    DwInt8Diag diag;    ///< the channel-mma kernel when diag.rw > 0 (fast is then the 3x3 stride-1 fast shape)
    DwInt8Band band;    ///< the NCHW band kernel when band.per_warp > 0 (fast is then -1, rows 1: unused)

    DwInt8Tile() = default;
    DwInt8Tile(int fast_, int rows_, DwInt8Stage stage_ = {}, DwInt8Mma mma_ = {}, DwInt8Diag diag_ = {},
               DwInt8Band band_ = {})
        : fast(fast_), rows(rows_), stage(stage_), mma(mma_), diag(diag_), band(band_) {}
};

/// Whether fast shape `f` has a staged form: its rows come from the tile, so neither a ring nor a second row ahead
/// applies, and the staged kernel's 256-thread blocks allow 128 registers, which the shapes compiled for three blocks
/// of 128 threads (168 registers) would spill.
constexpr bool dw_int8_stageable(const DwInt8FastShape& f) {
    return !f.ring && f.ahead == 1 && f.min_blocks >= 4;
}
inline constexpr int kDwInt8StagedMaxThreads = 256;              ///< threads per block of the staged kernels
inline constexpr size_t kDwInt8StagedMaxBytes = size_t{48} << 10;  ///< shared memory per block (no opt-in needed)

/// The sizes a staged tile implies, computed on the host and passed to the kernel.
struct DwInt8StagedGeometry {
    int tile_p = 1, tile_q = 1;    ///< output rows / columns of a block's tile: strips * rows, col_tiles * cols
    int in_rows = 1, in_cols = 1;  ///< its input rows / columns: (tile - 1) * stride + k
    int tiles_p = 1, tiles_q = 1;  ///< tiles down / across the output map
    int slabs = 1;                 ///< channel slabs: C / 4 / cl
    int threads = 1;               ///< threads per block: cl * col_tiles * strips
    int64_t blocks = 0;            ///< N * tiles_p * tiles_q * slabs
    int filters_at = 0;            ///< where the slab's packed filters start in shared memory (words; after the tile)
    int chan_at = 0;               ///< where its channel table starts (words; after the filters)
    size_t bytes = 0;              ///< shared memory per block: tile, filters and channel table
};
struct DwInt8Params;
/// p.tile's staged sizes (p.tile.stage.cl > 0 and p.tile.fast a fast shape; no other checks).
DwInt8StagedGeometry depthwise_int8_staged_geometry(const DwInt8Params& p);

/// The sizes a tensor-core tile implies (NOTE [depthwise int8 mma tile]), computed on the host. Byte counts: a plane is
/// one channel's rows of one tile, int8.
struct DwInt8MmaGeometry {
    int tile_p = 8, tile_q = 16;    ///< output rows / columns of a block's tile: 8 * rs, 16 * qb
    int in_rows = 1, in_cols = 1;   ///< input rows / columns the tile reads: tile + k - 1
    int in_pitch = 0, in_plane = 0; ///< an input plane's row pitch (>= tile_q + 16: the last mma's window) and size
    int quads_per_row = 0, quads = 0;  ///< 4-column quads of an input plane row, and of all its rows
    int out_pitch = 0, out_plane = 0;  ///< an output plane's row pitch (>= tile_q) and size
    int tiles_p = 1, tiles_q = 1;   ///< tiles down / across the output map
    int slabs = 1;                  ///< 16-channel slabs: C / 16
    int64_t blocks = 0;             ///< N * tiles_p * tiles_q * slabs
    size_t bytes = 0;               ///< shared memory per block: 16 input planes, then 16 output planes
};
/// The smallest row pitch in words of at least `min_words` whose rows `step` apart lie `target` banks apart modulo
/// `modulus`: NOTE [depthwise int8 mma tile]'s conflict-free B loads and epilogue stores.
constexpr int dw_int8_mma_pitch_words(int min_words, int step, int target, int modulus) {
    int words = min_words;
    while ((step * words) % modulus != target) ++words;
    return words;
}
/// The sizes of one tensor-core tile of kernel size k (the fields up to bytes but the map's tiles and blocks), a
/// compile-time constant for the kernels. B loads: lanes n = 0..7 read rows n * rs apart, 4 words each, and
/// rs * pitch = 4 (mod 8) words spreads them over the 32 banks. Epilogue stores: lanes' rows 2 * rs apart, and
/// 2 * rs * pitch = 8 (mod 32) words puts the 4 row groups 8 banks apart, a group's 8 columns in 2 words. Only the
/// input columns the tile reads are loaded (quads_per_row); the plane's last 16-column block reads up to column
/// tile_q + 15 of its pitch, and what lies past in_cols there meets only zero taps of the banded A.
constexpr DwInt8MmaGeometry dw_int8_mma_shape(int k, int rs, int qb) {
    DwInt8MmaGeometry sh;
    sh.tile_p = 8 * rs;
    sh.tile_q = 16 * qb;
    sh.in_rows = sh.tile_p + k - 1;
    sh.in_cols = sh.tile_q + k - 1;
    sh.in_pitch = 4 * dw_int8_mma_pitch_words((sh.tile_q + 16) / 4, rs, 4, 8);
    sh.in_plane = sh.in_rows * sh.in_pitch;
    sh.quads_per_row = (sh.in_cols + 3) / 4;
    sh.quads = sh.in_rows * sh.quads_per_row;
    sh.out_pitch = 4 * dw_int8_mma_pitch_words(sh.tile_q / 4, 2 * rs, 8, 32);
    sh.out_plane = sh.tile_p * sh.out_pitch;
    sh.bytes = static_cast<size_t>(16) * (sh.in_plane + sh.out_plane);
    return sh;
}
/// The sizes of one channel-mma tile (NOTE [depthwise int8 channel mma]) in DwInt8MmaGeometry's fields: the input
/// tile is NHWC, [in_rows][in_cols][16] bytes (in_pitch a row's bytes, in_plane the whole tile's), twice (the next
/// tile's copy lands in the second while the first is computed), then the output tile [tile_p][tile_q][16]
/// (out_pitch, out_plane); quads: the input tile's 16-byte chunks. blocks: the map's tiles (the kernel runs fewer
/// blocks, each taking several).
constexpr DwInt8MmaGeometry dw_int8_diag_shape(int k, int rw, int qb) {
    DwInt8MmaGeometry sh;
    sh.tile_p = rw * 8 / qb;
    sh.tile_q = 16 * qb;
    sh.in_rows = sh.tile_p + k - 1;
    sh.in_cols = sh.tile_q + k - 1;
    sh.in_pitch = 16 * sh.in_cols;
    sh.in_plane = sh.in_rows * sh.in_pitch;
    sh.quads_per_row = sh.in_cols;
    sh.quads = sh.in_rows * sh.in_cols;
    sh.out_pitch = 16 * sh.tile_q;
    sh.out_plane = sh.tile_p * sh.out_pitch;
    sh.bytes = static_cast<size_t>(2) * sh.in_plane + sh.out_plane;
    return sh;
}
/// p.tile's tensor-core sizes (p.tile.mma.rs > 0 or p.tile.diag.rw > 0; no other checks).
DwInt8MmaGeometry depthwise_int8_mma_geometry(const DwInt8Params& p);

struct DwInt8Params {
    ConvGeometry g;                       ///< depthwise: group == c == k; r, s, strides, dilations, top/left pads any
    const int8_t* x = nullptr;            ///< [N, H, W, C] (NHWC; [N, C, H, W] when nchw), 16-byte aligned
    const int8_t* w = nullptr;            ///< depthwise_int8_pack_weights() layout, 16-byte aligned
    const DwInt8Channel* chan = nullptr;  ///< [C] from depthwise_int8_channels() for this `out`, 16-byte aligned
    const int32_t* bias_i32 = nullptr;    ///< [C] or null, 16-byte aligned
    void* y = nullptr;                    ///< [N, P, Q, C] (NHWC; [N, C, P, Q] when nchw), int8 or fp16; not
                                          ///< overlapping x
    DwInt8Out out = DwInt8Out::int8;
    bool nchw = false;  ///< x and y NCHW: only the band tiles run it (NOTE [depthwise int8 nchw band])
    DwInt8Tile tile;  ///< from depthwise_int8_select() (or any of depthwise_int8_tiles())
};

/// Byte offset of tap (r, s) of channel c in the packed weights of a kernel `kw` taps wide and C = 4 * c_words
/// channels (rounded up): 16 bytes per (kernel row, group of 4 taps, channel word), see depthwise_int8_pack_weights.
constexpr int64_t depthwise_int8_packed_index(int c, int r, int s, int kw, int c_words) {
    const int64_t unit = (int64_t{r} * ((kw + 3) / 4) + s / 4) * c_words + c / 4;
    return (unit * 4 + c % 4) * 4 + s % 4;
}
/// Bytes of the packed weights: R * ceil(S / 4) * ceil(C / 4) * 16.
size_t depthwise_int8_packed_bytes(int c, int r, int s);
/// Repacks weights [C][R][S] (PyTorch's [C, 1, R, S]) for the kernels: for each kernel row r and group of 4 taps
/// g, for each channel word (4 channels), 16 bytes = 4 words, word j = taps 4g..4g+3 of channel 4*word + j (zeros
/// past S and past C). Done once, while building.
std::vector<int8_t> depthwise_int8_pack_weights(const int8_t* w, int c, int r, int s);
/// The per-channel constants of NOTE [depthwise int8 arithmetic]. Throws strata::Error on sizes that do not fit C,
/// or scales that are not positive and finite.
std::vector<DwInt8Channel> depthwise_int8_channels(const DwInt8Quant& q, int c);

/// Empty when `p` can be launched with its tile; otherwise what is wrong.
std::string depthwise_int8_problem(const DwInt8Params& p);
/// Why the shape runs the generic kernel ("C % 4 != 0", "dilation 2x1", ...); empty when a fast kernel applies.
std::string depthwise_int8_generic_reason(const DwInt8Params& p);
/// Every tile that can run p's shape (the fast ones first, the generic kernel last): for autotuning and benchmarks.
std::vector<DwInt8Tile> depthwise_int8_tiles(const DwInt8Params& p);
/// The tile for p's shape on a GPU with `sm_count` SMs: among the fast tiles that give at least sm_count * 1024
/// threads (about two waves at the occupancy these kernels reach), the one that loads the fewest input words per
/// output; when none does, the one with the most threads. Host only, deterministic, cheap.
DwInt8Tile depthwise_int8_select(const DwInt8Params& p, int sm_count);
/// What p.tile runs: "fast k3 s1: 4 ch x 4 cols x 8 rows per thread, 113400 threads (443 blocks of 256)".
std::string depthwise_int8_describe(const DwInt8Params& p);
/// Threads the kernel of p.tile launches (one per output element for the generic kernel).
int64_t depthwise_int8_threads(const DwInt8Params& p);

/// Enqueues the convolution on `stream`: no allocation, no synchronisation, so it can be captured in a CUDA graph.
/// p must pass depthwise_int8_problem(); the caller checks the launch (check_launch) afterwards.
void depthwise_int8_launch(const DwInt8Params& p, cudaStream_t stream);
/// Runs the very same thread programs on the host, one simulated thread after another, with every pointer of p in
/// host memory: slow, for tests of the kernels' indexing on machines without a GPU.
void depthwise_int8_run_on_host(const DwInt8Params& p);

}  // namespace strata::cuda
