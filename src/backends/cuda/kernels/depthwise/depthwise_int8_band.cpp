// depthwise_int8_band.cpp: the host side of the NCHW band kernel (NOTE [depthwise int8 nchw band] in
// depthwise_int8_band.h): its sizes, its refusals and its tiles.
#include "backends/cuda/kernels/depthwise/depthwise_int8_band.h"

#include <fmt/format.h>

#include <algorithm>

namespace strata::cuda {

namespace {

int64_t ceil_div(int64_t a, int64_t b) {
    return (a + b - 1) / b;
}

bool aligned(const void* ptr, uintptr_t bytes) {
    return reinterpret_cast<uintptr_t>(ptr) % bytes == 0;
}

/// The plane pitch in words: at least min_words, and rows rs apart 4 words apart modulo 8, so that the 8 rows x 4
/// words of a warp's A loads fall in 32 distinct banks; where no pitch does that (rs a multiple of 8), min_words.
int band_pitch_words(int min_words, int rs) {
    for (int words = min_words; words < min_words + 8; ++words)
        if ((int64_t{rs} * words) % 8 == 4) return words;
    return min_words;
}

}  // namespace

DwInt8BandGeometry depthwise_int8_band_geometry(const DwInt8Params& p) {
    const ConvGeometry& g = p.g;
    DwInt8BandGeometry bg;
    bg.rs = static_cast<int>(ceil_div(g.p, 16));
    bg.col_tiles = static_cast<int>(ceil_div(g.q, 8));
    bg.rows = 16 * bg.rs + g.r - 1;
    bg.off = ((kDwInt8BandMargin - g.pad_w) % 4 + 4) % 4;
    bg.col0 = kDwInt8BandMargin - g.pad_w - bg.off;
    // The last column tile's window ends at col0 + 8 (col_tiles - 1) + 15; the data at margin + W - 1.
    const int min_bytes = std::max(bg.col0 + 8 * (bg.col_tiles - 1) + 16, kDwInt8BandMargin + g.w);
    bg.pitch = 4 * band_pitch_words((min_bytes + 3) / 4, bg.rs);
    bg.plane_bytes = bg.rows * bg.pitch;
    bg.copy_rows = std::max(32 / std::max(g.w / 4, 1), 1);
    bg.words_per_lane = static_cast<int>(ceil_div(g.h, bg.copy_rows));
    bg.planes = int64_t{g.n} * g.c;
    const int per_warp = std::max(p.tile.band.per_warp, 1);
    bg.warps = ceil_div(bg.planes, per_warp);
    bg.blocks = ceil_div(bg.warps, kDwInt8BandWarps);
    bg.out_offset = static_cast<int>(ceil_div(bg.plane_bytes, 16) * 16);
    bg.out_bytes = g.p * g.q;
    bg.out_vec = bg.out_bytes % 16 == 0 && aligned(p.y, 16) ? 16 : bg.out_bytes % 4 == 0 && aligned(p.y, 4) ? 4 : 1;
    // All 16 rs rows of the walk: rows past P are stored there too (no test a step) and never copied out.
    bg.warp_bytes = bg.out_offset + static_cast<int>(ceil_div(int64_t{16} * bg.rs * g.q, 16) * 16);
    bg.bytes = static_cast<size_t>(kDwInt8BandWarps) * bg.warp_bytes;
    return bg;
}

std::string depthwise_int8_band_problem(const DwInt8Params& p) {
    const ConvGeometry& g = p.g;
    if (!p.nchw) return "band tiles run NCHW tensors only (DwInt8Params::nchw)";
    if (p.tile.band.per_warp < 1) return fmt::format("band planes per warp {} must be >= 1", p.tile.band.per_warp);
    if (g.r != g.s || (g.r != 3 && g.r != 5))
        return fmt::format("band tiles are 3x3 and 5x5, the kernel is {}x{}", g.r, g.s);
    if (g.stride_h != 1 || g.stride_w != 1 || g.dil_h != 1 || g.dil_w != 1)
        return fmt::format("band tiles need stride 1 and no dilation, the shape is {}", g.str());
    if (g.pad_w > kDwInt8BandMargin) return fmt::format("band tiles need a left pad <= {}", kDwInt8BandMargin);
    if (p.out != DwInt8Out::int8) return "band tiles store int8 only";
    if (g.w % 4 != 0) return fmt::format("band tiles copy planes in words: W {} % 4 != 0", g.w);
    if (int64_t{g.h} * g.w > int64_t{kDwInt8BandMaxWords} * 32 * 4)
        return fmt::format("band tiles hold planes of up to {} bytes, H x W is {}", kDwInt8BandMaxWords * 128,
                           int64_t{g.h} * g.w);
    if (g.w > 128) return fmt::format("band tiles copy whole rows of up to 128 bytes a pass, W is {}", g.w);
    if (!aligned(p.x, 4) || !aligned(p.w, 4)) return "band tiles need x and w 4-byte aligned";
    const DwInt8BandGeometry bg = depthwise_int8_band_geometry(p);
    if (bg.words_per_lane > kDwInt8BandMaxWords)
        return fmt::format("band tiles copy a plane in up to {} passes of whole rows; H {} x W {} needs {}",
                           kDwInt8BandMaxWords, g.h, g.w, bg.words_per_lane);
    if (bg.blocks >= (int64_t{1} << 31)) return fmt::format("too many band blocks ({})", bg.blocks);
    if (bg.bytes > size_t{227} << 10) return fmt::format("a band block needs {} bytes of shared memory", bg.bytes);
    return {};
}

std::vector<DwInt8Tile> depthwise_int8_band_tiles(const DwInt8Params& p) {
    std::vector<DwInt8Tile> tiles;
    DwInt8Params probe = p;
    for (int per_warp : kDwInt8BandPerWarp) {
        probe.tile = DwInt8Tile(-1, 1, {}, {}, {}, DwInt8Band{per_warp});
        if (depthwise_int8_band_problem(probe).empty()) tiles.push_back(probe.tile);
    }
    return tiles;
}

}  // namespace strata::cuda
