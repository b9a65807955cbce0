// depthwise.cpp: the host side of the depthwise family: which kernel and tile a shape gets (the dynamic tile
// selector of SEEDS.md section 5), and the launch that dispatches on the dtype.
#include "backends/cuda/kernels/depthwise/depthwise.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "backends/cuda/kernels/conv/direct_conv.h"
#include "core/check.h"

namespace strata::cuda {

namespace {

// Resident threads worth aiming for: 32 warps per SM fill each SM about twice over at the ~100 registers per thread
// the tiled kernels use, so memory latency hides behind other warps.
constexpr int kTargetThreadsPerSm = 1024;
constexpr int kThreadsPerBlock = 256;
constexpr size_t kMaxTapBytes = 48 * 1024;  // static shared memory limit without opt-in
// Registers a tile's data may take (accumulators, the rows in flight, the widened row) before the kernel would need
// more than its 128 (2 blocks of 256 threads per SM).
constexpr int kMaxTileRegisters = 96;

int64_t ceil_div(int64_t a, int64_t b) {
    return (a + b - 1) / b;
}

}  // namespace

bool depthwise_tiled_geometry(const DepthwiseParams& prm) {
    const ConvGeometry& g = prm.g;
    const bool k_ok = g.r == g.s && (g.r == 3 || g.r == 5 || g.r == 7);
    const bool s_ok = g.stride_h == g.stride_w && (g.stride_h == 1 || g.stride_h == 2);
    return !g.one_d && k_ok && s_ok && g.dil_h == 1 && g.dil_w == 1 && prm.multiplier == 1;
}

namespace {

/// The registers dw_strip's arrays take: A x cols accumulators and two or three raw rows of (cols-1)*S+K vectors, plus
/// the row widened to float on the float path (half2 keeps fp16 pairs: half the accumulator registers, no widening).
int tile_registers(int k, int s, int cols, int vec, DType dtype, bool half2) {
    const int a = (k - 1) / s + 1, in_cols = (cols - 1) * s + k;
    const int raw_per_vec = std::max(1, vec * static_cast<int>(dtype_size(dtype)) / 4);
    const int acc_per_vec = half2 ? vec / 2 : vec;  // 4-byte accumulator registers per vector
    const int acc = a * cols * acc_per_vec;
    const int rows_held = depthwise_two_rows_ahead(in_cols * raw_per_vec * 4, acc_per_vec * 4) ? 3 : 2;
    return acc + rows_held * in_cols * raw_per_vec + (half2 ? 0 : in_cols * vec);
}

int64_t strips(const ConvGeometry& g, int rows, int cols) {
    return int64_t{g.n} * ceil_div(g.p, rows) * ceil_div(g.q, cols);
}

/// Rows per strip for at most `rows`: as many strips as `rows` gives, of equal height. Strips of one warp walk side
/// by side, so 14 rows as 8 + 6 kept the warp for 8 + A - 1 steps (12 for 5x5) where 7 + 7 takes 11.
int balanced_rows(int rows, int p) {
    const int64_t count = ceil_div(p, std::max(1, rows));
    return static_cast<int>(ceil_div(p, count));
}

/// The largest (rows x cols) tile, rows first (each row of the strip saves K/S - 1 input row loads), that still
/// launches `target` threads; the smallest when none does, to give a small problem all the parallelism it has.
void choose_strip(DepthwiseTile& t, const ConvGeometry& g, int64_t lanes, std::initializer_list<int> col_options,
                  int64_t target) {
    for (int rows : {8, 4, 2, 1}) {
        for (int cols : col_options) {
            if (rows > 1 && rows >= 2 * g.p) continue;  // a strip much taller than the map is wasted walking
            if (lanes * strips(g, rows, cols) >= target) {
                t.rows = balanced_rows(rows, g.p), t.cols = cols;
                return;
            }
        }
    }
    t.rows = 1, t.cols = *std::min_element(col_options.begin(), col_options.end());
}

int largest_divisor_at_most(int n, int cap) {
    for (int d = std::min(n, cap); d > 1; --d)
        if (n % d == 0) return d;
    return 1;
}

// NOTE [depthwise block width]
// The tiled NHWC kernel re-reads its K*K taps from shared memory on every input row (SharedTaps), one 16-byte load
// per tap, and the lanes of a warp that share threadIdx.x share the tap vector. A warp of block_x = 24 or 28 lanes
// on channels reads 24-28 distinct 16-byte vectors per tap load: 3-4 shared-memory wavefronts, where 8 lanes (one
// 128-byte line) take 1. For 5x5 that is 25 loads x 4 wavefronts per warp and input row, against 200 HFMA2: by this
// count 672x14k5s1 at batch 128 spends ~19 of its 53 us (2026-12-02) in tap reads alone. And 24 or 30 lanes leave the
// block 240 threads, half a warp idle, in a kernel whose occupancy its registers cap at 16 warps per SM.
// With 16-byte vectors, eight channel vectors per row of the block still read one full 128-byte line per pixel, so
// the global loads take as many wavefronts as before: eight it is, where the channels allow; else four (64 bytes per
// pixel) where a wider row took 3 or more tap wavefronts. STRATA_DEPTHWISE_WIDE_BLOCKS=1 keeps the widest divisor (the
// rule before 2026-12-02), so that one run can time both.
int tiled_nhwc_block_x(int64_t cvecs, int vec_bytes, int cap) {
    const int widest = largest_divisor_at_most(static_cast<int>(cvecs), std::min(32, cap));
    const char* env = std::getenv("STRATA_DEPTHWISE_WIDE_BLOCKS");
    if (vec_bytes != 16 || widest <= 8 || (env && std::string(env) == "1")) return widest;
    if (cvecs % 8 == 0 && cap >= 8) return 8;
    if (cvecs % 4 == 0 && widest > 16 && cap >= 4) return 4;
    return widest;
}

/// Any depthwise convolution: the generic direct convolution (one thread per output, groups of one channel).
void launch_generic(const DepthwiseParams& prm, DType dtype, cudaStream_t stream) {
    DirectConvParams d;
    d.g = prm.g;
    std::copy(prm.x_stride, prm.x_stride + 4, d.x_stride);
    std::copy(prm.w_stride, prm.w_stride + 4, d.w_stride);
    std::copy(prm.y_stride, prm.y_stride + 4, d.y_stride);
    d.k_fastest = prm.y_stride[1] == 1;
    d.x = prm.x, d.w = prm.w, d.y = prm.y;
    d.epilogue = prm.epilogue;
    direct_conv_launch(d, dtype, stream);
}

}  // namespace

std::string DepthwiseTile::str() const {
    switch (kind) {
        case DepthwiseKernelKind::tiled_nhwc:
            return fmt::format("{}nhwc vec{}{} cols{} rows{} block {}x{}, {} threads{}", async_rows ? "async " : "",
                               vec, half2 ? " half2" : "", cols, rows, block_x, block_y, threads,
                               register_taps ? ", register taps" : "");
        case DepthwiseKernelKind::tiled_nchw:
            return fmt::format("nchw cols{} rows{} block {}, {} threads", cols, rows, block_x, threads);
        case DepthwiseKernelKind::staged_nhwc:
            if (blocked)
                return fmt::format("staged nhwc{} lanes{} tile {}x{} blocks {}x{}{}{} block {}, {} threads",
                                   persistent ? " persistent" : "", channel_lanes, tile_p, tile_q, rows, cols,
                                   chains > 1 ? " chains2" : "", tma ? " tma" : "", block_x, threads);
            return fmt::format("staged nhwc{} lanes{} tile {}x{} strip{} block {}, {} threads",
                               persistent ? " persistent" : "", channel_lanes, tile_p, tile_q, rows, block_x, threads);
        case DepthwiseKernelKind::generic:
            break;
    }
    return fmt::format("generic, {} threads", threads);
}

std::string depthwise_problem(const ConvGeometry& g) {
    if (g.group != g.c) return fmt::format("not depthwise (group {} != C {})", g.group, g.c);
    if (g.k % g.c != 0) return fmt::format("K {} is not a multiple of C {}", g.k, g.c);
    return {};
}

DepthwiseTile select_depthwise_tile(const DepthwiseParams& prm, DType dtype, bool nhwc, int sm_count) {
    const ConvGeometry& g = prm.g;
    const int64_t target = int64_t{std::max(sm_count, 1)} * kTargetThreadsPerSm;
    const int elem = static_cast<int>(dtype_size(dtype));
    DepthwiseTile t;
    if (depthwise_tiled_geometry(prm) && nhwc && prm.x_stride[1] == 1 && prm.y_stride[1] == 1) {
        const int wide = 16 / elem, narrow = 4 / elem;
        t.vec = g.c % wide == 0 ? wide : (g.c % narrow == 0 ? narrow : 0);
        if (t.vec > 0) {
            t.kind = DepthwiseKernelKind::tiled_nhwc;
            t.half2 = dtype == DType::f16 && t.vec % 2 == 0;
            t.wide_fits = tile_registers(g.r, g.stride_h, 2, t.vec, dtype, t.half2) <= kMaxTileRegisters;
            const bool two_cols = t.wide_fits;
            const int64_t cvecs = g.c / t.vec;
            if (two_cols)
                choose_strip(t, g, cvecs, {2, 1}, target);
            else
                choose_strip(t, g, cvecs, {1}, target);
            const int tap_cap = static_cast<int>(kMaxTapBytes / (sizeof(float) * g.r * g.s * t.vec));
            t.block_x = tiled_nhwc_block_x(cvecs, t.vec * elem, tap_cap);
            t.block_y = std::max(1, kThreadsPerBlock / t.block_x);
            t.threads = cvecs * strips(g, t.rows, t.cols);
            return t;
        }
    }
    if (depthwise_tiled_geometry(prm) && !nhwc) {
        t.kind = DepthwiseKernelKind::tiled_nchw;
        choose_strip(t, g, g.c, {4, 1}, target);
        t.block_x = kThreadsPerBlock;
        t.threads = int64_t{g.c} * strips(g, t.rows, t.cols);
        return t;
    }
    t.kind = DepthwiseKernelKind::generic;
    t.threads = g.out_pixels() * g.k;
    return t;
}

bool force_depthwise_strip(DepthwiseTile& tile, const DepthwiseParams& prm, int rows, bool wide) {
    const ConvGeometry& g = prm.g;
    if (tile.kind == DepthwiseKernelKind::generic) return false;
    const bool nhwc = tile.kind == DepthwiseKernelKind::tiled_nhwc;
    const int cols = !wide ? 1 : nhwc ? 2 : 4;
    if (nhwc && cols == 2 && !tile.wide_fits) return false;
    tile.rows = balanced_rows(rows, g.p);
    tile.cols = cols;
    tile.threads = (nhwc ? g.c / tile.vec : g.c) * strips(g, tile.rows, tile.cols);
    return true;
}

// NOTE [depthwise blocks for every SM]
// At batch 1 the selector's smallest tile still puts 256 threads in a block, so a small map launches fewer blocks than
// the GPU has SMs: 384x14k3s1 fp32 74 blocks, 576x14k3s1 110, 960x7k3s1 46, 672x14k5s1 64 (fp16 144x56k3s2: 55), and
// those are the cases where cuDNN was faster (H100, 2026-12-06, by 2-5%), while the batch-1 cases of ~200 blocks
// won by 1.4-1.9x. Idle SMs add nothing to a latency-bound launch but their share of its loads, so a tile with blocks
// of fewer rows of strips (whole warps still, each staging its own channels' taps) is offered as a config beside the
// selector's, and the builder's timing decides.
bool fill_sms_with_blocks(DepthwiseTile& tile, const DepthwiseParams& prm, int sm_count) {
    if (tile.kind != DepthwiseKernelKind::tiled_nhwc || tile.block_x <= 0 || tile.vec <= 0) return false;
    const int64_t cvecs = prm.g.c / tile.vec;
    const int64_t strip_count = tile.threads / cvecs;
    const int64_t grid_y = (cvecs + tile.block_x - 1) / tile.block_x;
    auto blocks = [&](int block_y) { return (strip_count + block_y - 1) / block_y * grid_y; };
    const int warp_rows = std::max(1, 32 / tile.block_x);  // rows of strips that make the block whole warps
    int block_y = tile.block_y;
    while (blocks(block_y) < sm_count && block_y / 2 >= warp_rows && (block_y / 2) % warp_rows == 0) block_y /= 2;
    if (block_y == tile.block_y) return false;
    tile.block_y = block_y;
    return true;
}

bool make_depthwise_register_taps(DepthwiseTile& tile, const DepthwiseParams& prm, DType dtype, int rows) {
    const ConvGeometry& g = prm.g;
    if (tile.kind != DepthwiseKernelKind::tiled_nhwc || (dtype != DType::f16 && dtype != DType::f32) || g.r > 5)
        return false;
    const int elem = static_cast<int>(dtype_size(dtype));
    const int vec = 8 / elem;
    if (g.c % vec != 0) return false;
    DepthwiseTile t = tile;
    t.vec = vec;
    t.half2 = dtype == DType::f16;
    t.register_taps = true;
    t.async_rows = false;
    t.wide_fits = true;
    t.rows = balanced_rows(rows, g.p);
    t.cols = 2;
    const int64_t cvecs = g.c / vec;
    const int tap_cap = static_cast<int>(kMaxTapBytes / (sizeof(float) * g.r * g.s * vec));
    t.block_x = tiled_nhwc_block_x(cvecs, vec * elem, tap_cap);
    t.block_y = std::max(1, kThreadsPerBlock / t.block_x);
    t.threads = cvecs * strips(g, t.rows, t.cols);
    tile = t;
    return true;
}

size_t depthwise_async_ring_offset(const DepthwiseParams& prm, const DepthwiseTile& tile) {
    const size_t taps = sizeof(float) * prm.g.r * prm.g.s * tile.block_x * tile.vec;
    return (taps + 15) / 16 * 16;
}

size_t depthwise_smem_bytes(const DepthwiseParams& prm, const DepthwiseTile& tile) {
    if (tile.kind == DepthwiseKernelKind::staged_nhwc)
        return (tile.persistent ? 2 : 1) * staged_tile_bytes(prm.g, tile.tile_p, tile.tile_q, tile.channel_lanes);
    if (tile.kind != DepthwiseKernelKind::tiled_nhwc) return 0;
    if (tile.async_rows)
        return depthwise_async_ring_offset(prm, tile) +
               depthwise_async_ring_bytes(prm.g, tile.cols, tile.block_x * tile.block_y);
    return sizeof(float) * prm.g.r * prm.g.s * tile.block_x * tile.vec;
}

bool make_depthwise_async(DepthwiseTile& tile, const DepthwiseParams& prm, DType dtype, size_t smem_optin) {
    if (tile.kind != DepthwiseKernelKind::tiled_nhwc || tile.vec * dtype_size(dtype) != 16) return false;
    DepthwiseTile async = tile;
    async.async_rows = true;
    if (depthwise_smem_bytes(prm, async) > smem_optin) return false;
    tile = async;
    return true;
}

void depthwise_forward_launch(const DepthwiseParams& prm, const DepthwiseTile& tile, DType dtype, cudaStream_t stream) {
    if (prm.g.out_pixels() * prm.g.k == 0) return;
    bool launched = false;
    if (tile.kind == DepthwiseKernelKind::tiled_nhwc || tile.kind == DepthwiseKernelKind::staged_nhwc) {
        // The staged kernel copies X in 16-byte chunks (and reads Y's residual in 4-byte words).
        const uintptr_t align =
            tile.kind == DepthwiseKernelKind::staged_nhwc ? 16 : static_cast<uintptr_t>(tile.vec) * dtype_size(dtype);
        auto aligned = [&](const void* p) { return p == nullptr || reinterpret_cast<uintptr_t>(p) % align == 0; };
        if (!aligned(prm.x) || !aligned(prm.y) || !aligned(prm.epilogue.residual)) {
            launch_generic(prm, dtype, stream);
            return;
        }
    }
    switch (dtype) {
        case DType::f32:
            launched = depthwise_launch_f32(prm, tile, stream);
            break;
        case DType::f16:
            launched = depthwise_launch_f16(prm, tile, stream);
            break;
        case DType::bf16:
            launched = depthwise_launch_bf16(prm, tile, stream);
            break;
        default:
            STRATA_ASSERT(false, "depthwise: dtype {}", dtype_name(dtype));
    }
    if (!launched) launch_generic(prm, dtype, stream);
}

}  // namespace strata::cuda
