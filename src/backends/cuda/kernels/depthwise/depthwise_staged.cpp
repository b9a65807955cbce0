// depthwise_staged.cpp: how the staged NHWC kernel (NOTE [depthwise staged tile]) cuts a layer into tiles: the
// input tile per block, the strip each thread walks, the block size.
#include <algorithm>
#include <cstdint>
#include <vector>

#include "backends/cuda/kernels/depthwise/depthwise.h"

namespace strata::cuda {

namespace {

// Blocks per SM the selector aims for before it gives up halo for parallelism.
constexpr int kStagedBlocksPerSm = 3;
constexpr int kMaxWarps = 8;
constexpr int kMinTileSide = 4;  // smaller tiles re-read more halo than they save in parallelism

int64_t ceil_div(int64_t a, int64_t b) {
    return (a + b - 1) / b;
}

struct StagedCandidate {
    int tile_p = 0, tile_q = 0;
    int64_t blocks = 0;
    double reread = 0;  ///< input pixels staged per input pixel of the map (halo)
};

/// The candidate tiles: each column split of the map (whole width, halves, quarters, ... down to kMinTileSide
/// columns) with as many rows as the budget allows, then those rows halved, balanced so the last tile is not a sliver.
/// Tile sides are whole multiples of `unit_p` rows and `unit_q` columns (1 for the column walkers; the blocked
/// walkers' BR x BC, NOTE [depthwise blocked walkers]).
std::vector<StagedCandidate> staged_candidates(const ConvGeometry& g, int channel_lanes, int64_t slabs, int unit_p,
                                               int unit_q, size_t budget = kDepthwiseStagedTileBudget) {
    std::vector<StagedCandidate> out;
    const int64_t pixel_bytes = int64_t{channel_lanes} * 4;
    const int64_t units_q = ceil_div(g.q, unit_q), units_p = ceil_div(g.p, unit_p);
    const int64_t min_units_q = std::min(units_q, ceil_div(kMinTileSide, unit_q));
    const int64_t min_units_p = std::min(units_p, ceil_div(kMinTileSide, unit_p));
    for (int64_t splits_q = 1; splits_q <= units_q; ++splits_q) {
        const int64_t uq = ceil_div(units_q, splits_q);
        if (splits_q > 1 && uq == ceil_div(units_q, splits_q - 1)) continue;  // same tile width as the previous split
        if (uq < min_units_q) break;
        const int tq = static_cast<int>(uq * unit_q);
        const int64_t in_cols = int64_t{tq - 1} * g.stride_w + g.s;
        const int64_t rows_fit = static_cast<int64_t>(budget) / (in_cols * pixel_bytes);
        if (rows_fit < g.r) continue;
        const int64_t up_max = std::min<int64_t>(((rows_fit - g.r) / g.stride_h + 1) / unit_p, units_p);
        for (int64_t up = up_max; up >= 1 && up >= min_units_p; up = (up + 1) / 2) {
            const int64_t tiles_p = ceil_div(units_p, up);
            StagedCandidate c;
            c.tile_p = static_cast<int>(ceil_div(units_p, tiles_p) * unit_p);
            c.tile_q = tq;
            c.blocks = int64_t{g.n} * slabs * tiles_p * splits_q;
            const double in_rows = double(c.tile_p - 1) * g.stride_h + g.r;
            c.reread = in_rows * double(in_cols) * double(tiles_p * splits_q) / (double(g.h) * double(g.w));
            out.push_back(c);
            if (up == 1) break;
        }
    }
    return out;
}

/// The least re-read among the tiles that launch `target` blocks; the most blocks when none does.
const StagedCandidate* least_reread_filling(const std::vector<StagedCandidate>& candidates, int64_t target) {
    const StagedCandidate* best = nullptr;
    for (const StagedCandidate& c : candidates) {
        const bool fills = c.blocks >= target;
        if (!best) {
            best = &c;
            continue;
        }
        const bool best_fills = best->blocks >= target;
        if (fills != best_fills ? fills : fills ? c.reread < best->reread : c.blocks > best->blocks) best = &c;
    }
    return best;
}

/// Whether the staged kernels can run `prm` in `dtype` with `channel_lanes` lanes on channels: the tiled geometry,
/// channels contiguous and in whole 16-byte chunks, images within 32-bit offsets, Y in 4-byte words.
bool staged_preconditions(const DepthwiseParams& prm, DType dtype, int channel_lanes) {
    const ConvGeometry& g = prm.g;
    if (dtype != DType::f32 && dtype != DType::f16 && dtype != DType::bf16) return false;
    const int elem = static_cast<int>(dtype_size(dtype)), chunk = 16 / elem;
    const bool chunks_aligned = g.c % chunk == 0 && prm.x_stride[0] % chunk == 0 && prm.x_stride[2] % chunk == 0 &&
                                prm.x_stride[3] % chunk == 0;
    if (!depthwise_tiled_geometry(prm) || prm.x_stride[1] != 1 || prm.y_stride[1] != 1 || !chunks_aligned) return false;
    if (channel_lanes != 32 && channel_lanes != 8) return false;
    // The tile copy keeps its source offsets within an image in 32 bits (stage_input_tile), also for the tile pixels
    // past the map's edges (up to a kernel's extent beyond them), whose offsets it computes but never reads.
    const int64_t image_extent = int64_t{g.h + g.r} * prm.x_stride[2] + int64_t{g.w + g.s} * prm.x_stride[3] + g.c;
    if (image_extent >= (int64_t{1} << 31) || prm.x_stride[2] >= (int64_t{1} << 31)) return false;
    const int vec = 4 / elem;
    // Y (and the residual, which has Y's strides) is stored and read in 4-byte words of vec channels.
    return prm.y_stride[0] % vec == 0 && prm.y_stride[2] % vec == 0 && prm.y_stride[3] % vec == 0;
}

DepthwiseTile staged_tile_of(const StagedCandidate& best, DType dtype, int channel_lanes, bool persistent) {
    DepthwiseTile tile;
    tile.kind = DepthwiseKernelKind::staged_nhwc;
    tile.vec = 4 / static_cast<int>(dtype_size(dtype));
    tile.half2 = dtype == DType::f16;
    tile.channel_lanes = channel_lanes;
    tile.persistent = persistent;
    tile.tile_p = best.tile_p, tile.tile_q = best.tile_q;
    return tile;
}

}  // namespace

size_t staged_tile_bytes(const ConvGeometry& g, int tile_p, int tile_q, int channel_lanes) {
    const size_t in_rows = size_t(tile_p - 1) * g.stride_h + g.r, in_cols = size_t(tile_q - 1) * g.stride_w + g.s;
    return in_rows * in_cols * size_t(channel_lanes) * 4;
}

bool stage_depthwise_tile(DepthwiseTile& tile, const DepthwiseParams& prm, DType dtype, int sm_count, int channel_lanes,
                          bool persistent) {
    const ConvGeometry& g = prm.g;
    if (!staged_preconditions(prm, dtype, channel_lanes)) return false;
    const int vec = 4 / static_cast<int>(dtype_size(dtype));
    const int64_t slabs = ceil_div(g.c, int64_t{channel_lanes} * vec);
    const std::vector<StagedCandidate> candidates = staged_candidates(g, channel_lanes, slabs, 1, 1);
    if (candidates.empty()) return false;
    const int64_t target = int64_t{std::max(sm_count, 1)} * kStagedBlocksPerSm;
    const StagedCandidate& best = *least_reread_filling(candidates, target);
    tile = staged_tile_of(best, dtype, channel_lanes, persistent);
    // Strips: the longest (fewest warm-up rows re-walked) that still give every walker of up to kMaxWarps warps a
    // column-strip; then only as many warps as there are strips.
    const int walkers_per_warp = 32 / channel_lanes;
    int strip = tile.tile_p;
    while (strip > 1 && int64_t{tile.tile_q} * ceil_div(tile.tile_p, strip) < kMaxWarps * walkers_per_warp)
        strip = (strip + 1) / 2;
    tile.rows = strip;
    const int64_t items = int64_t{tile.tile_q} * ceil_div(tile.tile_p, strip);
    const int warps = static_cast<int>(std::clamp<int64_t>(ceil_div(items, walkers_per_warp), 1, kMaxWarps));
    tile.block_x = 32 * warps;
    tile.block_y = 1;
    tile.threads = best.blocks * tile.block_x;
    return true;
}

bool block_depthwise_tile(DepthwiseTile& tile, const DepthwiseParams& prm, DType dtype, int sm_count, int channel_lanes,
                          bool persistent, size_t budget) {
    const ConvGeometry& g = prm.g;
    if (dtype == DType::bf16 || (g.r != 3 && g.r != 5) || !staged_preconditions(prm, dtype, channel_lanes)) return false;
    // The walkers address Y (and the residual) within an image in 32 bits.
    const int64_t y_extent = int64_t{g.p} * prm.y_stride[2] + int64_t{g.q} * prm.y_stride[3] + g.c;
    if (y_extent >= (int64_t{1} << 31)) return false;
    const int vec = 4 / static_cast<int>(dtype_size(dtype));
    const int64_t slabs = ceil_div(g.c, int64_t{channel_lanes} * vec);
    const std::vector<StagedCandidate> candidates =
        staged_candidates(g, channel_lanes, slabs, kDepthwiseBlockRows, kDepthwiseBlockCols, budget);
    if (candidates.empty()) return false;
    const int64_t target = int64_t{std::max(sm_count, 1)} * kStagedBlocksPerSm;
    const StagedCandidate& best = *least_reread_filling(candidates, target);
    tile = staged_tile_of(best, dtype, channel_lanes, persistent);
    tile.blocked = true;
    tile.rows = kDepthwiseBlockRows, tile.cols = kDepthwiseBlockCols;
    const int64_t items = int64_t{tile.tile_p / kDepthwiseBlockRows} * (tile.tile_q / kDepthwiseBlockCols);
    const int warps = static_cast<int>(std::clamp<int64_t>(ceil_div(items, 32 / channel_lanes), 1, kMaxWarps));
    tile.block_x = 32 * warps;
    tile.block_y = 1;
    tile.threads = best.blocks * tile.block_x;
    return true;
}

}  // namespace strata::cuda
