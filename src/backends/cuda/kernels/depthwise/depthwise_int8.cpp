// depthwise_int8.cpp: the host side of the int8 depthwise kernels: weight packing, the per-channel epilogue table,
// the checks, the tile list and the tile selector (see depthwise_int8.h).
#include "backends/cuda/kernels/depthwise/depthwise_int8.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <iterator>
#include <limits>

#include "backends/cuda/kernels/depthwise/depthwise_int8_band.h"
#include "core/check.h"

namespace strata::cuda {

namespace {

bool aligned(const void* ptr, uintptr_t bytes) {
    return reinterpret_cast<uintptr_t>(ptr) % bytes == 0;
}

bool fast_matches(const DwInt8FastShape& f, const ConvGeometry& g) {
    return f.k == g.r && f.stride == g.stride_h;
}

/// The first fast shape of g's kernel size and stride.
int first_fast_index(const ConvGeometry& g) {
    for (int i = 0; i < kDwInt8FastCount; ++i)
        if (fast_matches(kDwInt8FastShapes[i], g)) return i;
    return -1;
}

/// Output rows per strip worth trying: ceil(P / strips) for every strip count, each once (largest first).
std::vector<int> strip_rows(int p) {
    std::vector<int> rows;
    for (int strips = 1; strips <= p; ++strips) {
        const int r = (p + strips - 1) / strips;
        if (rows.empty() || rows.back() != r) rows.push_back(r);
    }
    return rows;
}

/// Input words a fast tile loads per output word: rows (S per output row plus K - S per strip) times columns
/// (TW * S + K - S per TW outputs, over whole column tiles). What the selector minimises.
double fast_load_ratio(const ConvGeometry& g, const DwInt8Tile& t) {
    const DwInt8FastShape& f = kDwInt8FastShapes[t.fast];
    const int strips = (g.p + t.rows - 1) / t.rows, col_tiles = (g.q + f.cols - 1) / f.cols;
    const double rows = f.stride + static_cast<double>(strips) * (f.k - f.stride) / g.p;
    const double cols = static_cast<double>(col_tiles) * (f.stride * (f.cols - 1) + f.k) / g.q;
    return rows * cols;
}

/// The channel words of a staged block: the largest multiple of 4 up to 32 that divides C / 4 (C % 16 == 0).
int staged_channel_words(int cwords) {
    for (int cl = 32; cl >= 4; cl -= 4)
        if (cwords % cl == 0) return cl;
    return 0;
}

/// What is wrong with p.tile's staged form, or empty (p.tile.fast is a fast shape of p's kernel size and stride).
std::string staged_problem(const DwInt8Params& p) {
    const ConvGeometry& g = p.g;
    const DwInt8Stage& st = p.tile.stage;
    if (!dw_int8_stageable(kDwInt8FastShapes[p.tile.fast]))
        return fmt::format("fast tile {} has no staged form", p.tile.fast);
    if (g.c % 16 != 0) return fmt::format("staged tiles need C % 16 == 0, C is {}", g.c);
    if (st.cl < 4 || st.cl % 4 != 0 || (g.c / 4) % st.cl != 0)
        return fmt::format("staged channel words {} must be a multiple of 4 that divides C / 4 = {}", st.cl, g.c / 4);
    if (st.col_tiles < 1 || st.strips < 1)
        return fmt::format("staged column tiles {} and strips {} must be >= 1", st.col_tiles, st.strips);
    if (!aligned(p.x, 16)) return "staged tiles need x 16-byte aligned";
    if (int64_t{g.h} * g.w * g.c >= (int64_t{1} << 31)) return fmt::format("an image of {} too large", g.str());
    const DwInt8StagedGeometry sg = depthwise_int8_staged_geometry(p);
    if (sg.threads > kDwInt8StagedMaxThreads)
        return fmt::format("staged block of {} threads (at most {})", sg.threads, kDwInt8StagedMaxThreads);
    if (sg.bytes > kDwInt8StagedMaxBytes)
        return fmt::format("staged tile of {} bytes (at most {})", sg.bytes, kDwInt8StagedMaxBytes);
    if (sg.blocks >= (int64_t{1} << 31)) return fmt::format("{} staged blocks", sg.blocks);
    return {};
}

/// Staged forms of fast shape `fast` worth timing on p's shape: the output tile split 1, 2 or 4 times across and 1, 2,
/// 4, 8 or 16 times down, walked by 1, 2 or 4 strips, where the block has 64-256 threads and its tile fits.
std::vector<DwInt8Tile> staged_tiles(const DwInt8Params& p, int fast) {
    const ConvGeometry& g = p.g;
    const DwInt8FastShape& f = kDwInt8FastShapes[fast];
    std::vector<DwInt8Tile> tiles;
    if (!dw_int8_stageable(f) || g.c % 16 != 0) return tiles;
    const int cl = staged_channel_words(g.c / 4), q_tiles = (g.q + f.cols - 1) / f.cols;
    DwInt8Params probe = p;
    for (int dq : {1, 2, 4}) {
        for (int dp : {1, 2, 4, 8, 16}) {
            for (int strips : {1, 2, 4}) {
                const int col_tiles = (q_tiles + dq - 1) / dq, tile_p = (g.p + dp - 1) / dp;
                const int rows = (tile_p + strips - 1) / strips, threads = cl * col_tiles * strips;
                probe.tile = {fast, rows, {cl, col_tiles, strips}};
                if (threads < 64 || !staged_problem(probe).empty()) continue;
                const bool seen = std::any_of(tiles.begin(), tiles.end(), [&](const DwInt8Tile& t) {
                    return t.rows == rows && t.stage.col_tiles == col_tiles && t.stage.strips == strips;
                });
                if (!seen) tiles.push_back(probe.tile);
            }
        }
    }
    return tiles;
}

/// What both tensor-core kernels need of the shape and the buffers, or empty: stride 1, whole 16-byte channel slabs,
/// int8 output, aligned x and y, images within 32-bit offsets; `kind` and `rows` (the tile's output rows) name the
/// tile in the messages.
std::string tensor_core_problem(const DwInt8Params& p, const char* kind, int rows) {
    const ConvGeometry& g = p.g;
    if (g.stride_h != 1 || g.stride_w != 1)
        return fmt::format("{} tiles need stride 1, the shape is {}", kind, g.str());
    if (g.c % 16 != 0) return fmt::format("{} tiles need C % 16 == 0, C is {}", kind, g.c);
    if (p.out != DwInt8Out::int8) return fmt::format("{} tiles store int8 only", kind);
    if (!aligned(p.x, 16) || !aligned(p.y, 16)) return fmt::format("{} tiles need x and y 16-byte aligned", kind);
    if (int64_t{g.h} * g.w * g.c >= (int64_t{1} << 31) || int64_t{g.p} * g.q * g.c >= (int64_t{1} << 31))
        return fmt::format("an image of {} too large", g.str());
    if (p.tile.rows != rows) return fmt::format("{} tile rows {} must be {}", kind, p.tile.rows, rows);
    if (depthwise_int8_mma_geometry(p).blocks >= (int64_t{1} << 31)) return fmt::format("too many {} blocks", kind);
    return {};
}

/// What is wrong with p.tile's tensor-core form, or empty.
std::string mma_problem(const DwInt8Params& p) {
    const DwInt8Mma& m = p.tile.mma;
    const bool listed = std::any_of(std::begin(kDwInt8MmaConfigs), std::end(kDwInt8MmaConfigs),
                                    [&](const DwInt8Mma& c) { return c.rs == m.rs && c.qb == m.qb; });
    if (!listed) return fmt::format("tensor-core tile rs {} qb {} is not instantiated", m.rs, m.qb);
    return tensor_core_problem(p, "tensor-core", 8 * m.rs);
}

/// What is wrong with p.tile's channel-mma form, or empty.
std::string diag_problem(const DwInt8Params& p) {
    const DwInt8Diag& d = p.tile.diag;
    const bool listed = std::any_of(std::begin(kDwInt8DiagConfigs), std::end(kDwInt8DiagConfigs),
                                    [&](const DwInt8Diag& c) { return c.rw == d.rw && c.qb == d.qb; });
    if (!listed) return fmt::format("channel-mma tile rw {} qb {} is not instantiated", d.rw, d.qb);
    if (p.g.r != 3) return fmt::format("channel-mma tiles are 3x3 stride 1, the shape is {}", p.g.str());
    return tensor_core_problem(p, "channel-mma", dw_int8_diag_shape(3, d.rw, d.qb).tile_p);
}

/// The channel-mma tiles of p's shape (fast shape `fast` is its 3x3 stride-1 one), each instantiated config once.
std::vector<DwInt8Tile> diag_tiles(const DwInt8Params& p, int fast) {
    std::vector<DwInt8Tile> tiles;
    if (kDwInt8FastShapes[fast].stride != 1 || kDwInt8FastShapes[fast].k != 3) return tiles;
    DwInt8Params probe = p;
    for (const DwInt8Diag& d : kDwInt8DiagConfigs) {
        probe.tile = {fast, dw_int8_diag_shape(3, d.rw, d.qb).tile_p, {}, {}, d};
        if (diag_problem(probe).empty()) tiles.push_back(probe.tile);
    }
    return tiles;
}

/// The tensor-core tiles of p's shape (fast shape `fast` is its k x k stride-1 one), each instantiated config once.
std::vector<DwInt8Tile> mma_tiles(const DwInt8Params& p, int fast) {
    std::vector<DwInt8Tile> tiles;
    if (kDwInt8FastShapes[fast].stride != 1) return tiles;
    DwInt8Params probe = p;
    for (const DwInt8Mma& m : kDwInt8MmaConfigs) {
        probe.tile = {fast, 8 * m.rs, {}, m};
        if (mma_problem(probe).empty()) tiles.push_back(probe.tile);
    }
    return tiles;
}

}  // namespace

DwInt8MmaGeometry depthwise_int8_mma_geometry(const DwInt8Params& p) {
    const ConvGeometry& g = p.g;
    DwInt8MmaGeometry mg = p.tile.diag.rw > 0 ? dw_int8_diag_shape(g.r, p.tile.diag.rw, p.tile.diag.qb)
                                              : dw_int8_mma_shape(g.r, std::max(p.tile.mma.rs, 1), p.tile.mma.qb);
    mg.tiles_p = (g.p + mg.tile_p - 1) / mg.tile_p;
    mg.tiles_q = (g.q + mg.tile_q - 1) / mg.tile_q;
    mg.slabs = g.c / 16;
    mg.blocks = int64_t{g.n} * mg.tiles_p * mg.tiles_q * mg.slabs;
    return mg;
}

DwInt8StagedGeometry depthwise_int8_staged_geometry(const DwInt8Params& p) {
    const ConvGeometry& g = p.g;
    const DwInt8FastShape& f = kDwInt8FastShapes[p.tile.fast];
    const DwInt8Stage& st = p.tile.stage;
    DwInt8StagedGeometry sg;
    sg.tile_p = st.strips * p.tile.rows;
    sg.tile_q = st.col_tiles * f.cols;
    sg.in_rows = (sg.tile_p - 1) * f.stride + f.k;
    sg.in_cols = (sg.tile_q - 1) * f.stride + f.k;
    sg.tiles_p = (g.p + sg.tile_p - 1) / sg.tile_p;
    sg.tiles_q = (g.q + sg.tile_q - 1) / sg.tile_q;
    sg.slabs = st.cl > 0 ? g.c / 4 / st.cl : 1;
    sg.threads = st.cl * st.col_tiles * st.strips;
    sg.blocks = int64_t{g.n} * sg.tiles_p * sg.tiles_q * sg.slabs;
    sg.filters_at = sg.in_rows * sg.in_cols * st.cl;
    sg.chan_at = sg.filters_at + f.k * ((f.k + 3) / 4) * st.cl * 4;  // a uint4 per (kernel row, tap group, word)
    sg.bytes = (static_cast<size_t>(sg.chan_at) + 16 * st.cl) * 4;    // 4 DwInt8Channel (16 bytes) per word
    return sg;
}

size_t depthwise_int8_packed_bytes(int c, int r, int s) {
    return static_cast<size_t>(r) * ((s + 3) / 4) * ((c + 3) / 4) * 16;
}

std::vector<int8_t> depthwise_int8_pack_weights(const int8_t* w, int c, int r, int s) {
    STRATA_CHECK(c > 0 && r > 0 && s > 0, StatusCode::invalid_argument, "depthwise int8 weights [{}, {}, {}]", c, r, s);
    std::vector<int8_t> packed(depthwise_int8_packed_bytes(c, r, s), 0);
    const int c_words = (c + 3) / 4;
    for (int ch = 0; ch < c; ++ch)
        for (int i = 0; i < r; ++i)
            for (int j = 0; j < s; ++j)
                packed[depthwise_int8_packed_index(ch, i, j, s, c_words)] = w[(int64_t{ch} * r + i) * s + j];
    return packed;
}

std::vector<DwInt8Channel> depthwise_int8_channels(const DwInt8Quant& q, int c) {
    auto good = [](float v) { return std::isfinite(v) && v > 0.0f; };
    STRATA_CHECK(good(q.in_scale), StatusCode::invalid_argument, "depthwise int8: input scale {} must be positive",
                 q.in_scale);
    STRATA_CHECK(q.w_scale.size() == static_cast<size_t>(c), StatusCode::invalid_argument,
                 "depthwise int8: {} weight scales for {} channels", q.w_scale.size(), c);
    STRATA_CHECK(q.bias.empty() || q.bias.size() == static_cast<size_t>(c), StatusCode::invalid_argument,
                 "depthwise int8: {} biases for {} channels", q.bias.size(), c);
    const bool to_int8 = q.out == DwInt8Out::int8;
    if (to_int8)
        STRATA_CHECK(q.out_scale.size() == 1 || q.out_scale.size() == static_cast<size_t>(c),
                     StatusCode::invalid_argument, "depthwise int8: {} output scales for {} channels (1 or C)",
                     q.out_scale.size(), c);
    constexpr float kInf = std::numeric_limits<float>::infinity();
    std::vector<DwInt8Channel> table(c);
    for (int k = 0; k < c; ++k) {
        STRATA_CHECK(good(q.w_scale[k]), StatusCode::invalid_argument, "depthwise int8: weight scale {} of channel {}",
                     q.w_scale[k], k);
        DwInt8Channel& e = table[k];
        const float bias = q.bias.empty() ? 0.0f : q.bias[k];
        if (to_int8) {
            const float os = q.out_scale.size() == 1 ? q.out_scale[0] : q.out_scale[k];
            STRATA_CHECK(good(os), StatusCode::invalid_argument, "depthwise int8: output scale {} of channel {}", os,
                         k);
            e.mul = (q.in_scale * q.w_scale[k]) / os;
            e.add = bias / os;
            e.lo = q.act == DwInt8Act::none ? -128.0f : 0.0f;
            e.hi = q.act == DwInt8Act::relu6 ? std::min(127.0f, 6.0f / os) : 127.0f;
        } else {
            e.mul = q.in_scale * q.w_scale[k];
            e.add = bias;
            e.lo = q.act == DwInt8Act::none ? -kInf : 0.0f;
            e.hi = q.act == DwInt8Act::relu6 ? 6.0f : kInf;
        }
        if (e.add == 0.0f) e.add = 0.0f;  // -0 -> +0: v is then never -0 (NOTE [depthwise int8 arithmetic])
    }
    return table;
}

std::string depthwise_int8_problem(const DwInt8Params& p) {
    const ConvGeometry& g = p.g;
    if (g.group != g.c || g.k != g.c)
        return fmt::format("depthwise needs group == C == K (multiplier 1), got {}", g.str());
    if (g.n < 1 || g.c < 1 || g.h < 1 || g.w < 1 || g.p < 1 || g.q < 1 || g.r < 1 || g.s < 1)
        return fmt::format("empty or negative size: {}", g.str());
    if (g.stride_h < 1 || g.stride_w < 1 || g.dil_h < 1 || g.dil_w < 1 || g.pad_h < 0 || g.pad_w < 0)
        return fmt::format("strides and dilations must be >= 1 and pads >= 0: {}", g.str());
    if (!p.x || !p.w || !p.chan || !p.y) return "x, w, chan and y must be set";
    if (!aligned(p.chan, 16) || !aligned(p.bias_i32, 4)) return "chan must be 16-byte aligned, bias_i32 4-byte";
    if (p.nchw || p.tile.band.per_warp != 0) {
        if (p.tile.band.per_warp == 0)
            return "NCHW int8 runs only the band tiles (NOTE [depthwise int8 nchw band]: k 3 or 5, stride 1, "
                   "W % 4 == 0)";
        return depthwise_int8_band_problem(p);
    }
    if (p.tile.fast >= kDwInt8FastCount) return fmt::format("tile {} out of range", p.tile.fast);
    if (p.tile.fast >= 0) {
        if (std::string why = depthwise_int8_generic_reason(p); !why.empty())
            return fmt::format("fast tile {} on a shape for the generic kernel: {}", p.tile.fast, why);
        if (!fast_matches(kDwInt8FastShapes[p.tile.fast], g))
            return fmt::format("fast tile {} is k{} s{}, the shape is {}", p.tile.fast,
                               kDwInt8FastShapes[p.tile.fast].k, kDwInt8FastShapes[p.tile.fast].stride, g.str());
        if (p.tile.rows < 1) return fmt::format("tile rows {} must be >= 1", p.tile.rows);
        if ((p.tile.stage.cl != 0) + (p.tile.mma.rs != 0) + (p.tile.diag.rw != 0) > 1)
            return "a tile is one of staged, tensor-core and channel-mma, not several";
        if (p.tile.diag.rw != 0) return diag_problem(p);  // own block counts: no thread limit below
        if (p.tile.mma.rs != 0) return mma_problem(p);
        if (p.tile.stage.cl != 0)
            if (std::string why = staged_problem(p); !why.empty()) return why;
    }
    const int64_t limit = std::numeric_limits<int32_t>::max() - kDwInt8Threads;  // fast: 32-bit thread index
    if (p.tile.stage.cl == 0 && depthwise_int8_threads(p) > (p.tile.fast >= 0 ? limit : limit * kDwInt8Threads))
        return fmt::format("too many threads ({}) for {}", depthwise_int8_threads(p), g.str());
    return {};
}

std::string depthwise_int8_generic_reason(const DwInt8Params& p) {
    const ConvGeometry& g = p.g;
    if (g.c % 4 != 0) return fmt::format("C {} % 4 != 0", g.c);
    if (g.r != g.s || (g.r != 3 && g.r != 5 && g.r != 7)) return fmt::format("kernel {}x{}", g.r, g.s);
    if (g.stride_h != g.stride_w || g.stride_h > 2) return fmt::format("stride {}x{}", g.stride_h, g.stride_w);
    if (g.dil_h != 1 || g.dil_w != 1) return fmt::format("dilation {}x{}", g.dil_h, g.dil_w);
    const uintptr_t y_align = p.out == DwInt8Out::int8 ? 4 : 8;
    if (!aligned(p.x, 4) || !aligned(p.y, y_align) || !aligned(p.w, 16) || !aligned(p.bias_i32, 16))
        return "x/y/w/bias_i32 not aligned for vector access";
    return {};
}

std::vector<DwInt8Tile> depthwise_int8_tiles(const DwInt8Params& p) {
    if (p.nchw) return depthwise_int8_band_tiles(p);
    std::vector<DwInt8Tile> tiles;
    if (depthwise_int8_generic_reason(p).empty()) {
        for (int i = 0; i < kDwInt8FastCount; ++i) {
            if (!fast_matches(kDwInt8FastShapes[i], p.g)) continue;
            for (int rows : strip_rows(p.g.p)) tiles.push_back({i, rows});
            for (const DwInt8Tile& t : staged_tiles(p, i)) tiles.push_back(t);
            // The tensor-core tiles once per shape, after the first fast shape of its kernel size (5x5 has two).
            if (i == first_fast_index(p.g)) {
                for (const DwInt8Tile& t : mma_tiles(p, i)) tiles.push_back(t);
                for (const DwInt8Tile& t : diag_tiles(p, i)) tiles.push_back(t);
            }
        }
    }
    tiles.push_back({-1, 1});
    return tiles;
}

DwInt8Tile depthwise_int8_select(const DwInt8Params& p, int sm_count) {
    const int64_t target = int64_t{std::max(sm_count, 1)} * 1024;
    if (p.nchw) {  // the most planes per warp that still give every SM 1024 threads; refused when none applies
        const std::vector<DwInt8Tile> band = depthwise_int8_band_tiles(p);
        if (band.empty()) return {};
        DwInt8Params probe = p;
        DwInt8Tile best = band.front();
        for (const DwInt8Tile& t : band) {
            probe.tile = t;
            if (depthwise_int8_threads(probe) >= target) best = t;
        }
        return best;
    }
    DwInt8Tile best{-1, 1}, widest{-1, 1};
    double best_ratio = 0, widest_ratio = 0;
    int64_t widest_threads = 0;
    DwInt8Params probe = p;
    for (const DwInt8Tile& t : depthwise_int8_tiles(p)) {
        if (t.fast < 0 || t.stage.cl > 0 || t.mma.rs > 0 || t.diag.rw > 0) continue;  // the rest: only by timing
        probe.tile = t;
        const int64_t threads = depthwise_int8_threads(probe);
        const double ratio = fast_load_ratio(p.g, t);
        if (threads >= target && (best.fast < 0 || ratio < best_ratio)) best = t, best_ratio = ratio;
        if (threads > widest_threads || (threads == widest_threads && ratio < widest_ratio))
            widest = t, widest_threads = threads, widest_ratio = ratio;
    }
    return best.fast >= 0 ? best : widest;
}

int64_t depthwise_int8_threads(const DwInt8Params& p) {
    const ConvGeometry& g = p.g;
    if (p.tile.band.per_warp > 0) return depthwise_int8_band_geometry(p).blocks * kDwInt8BandWarps * 32;
    if (p.tile.fast < 0) return int64_t{g.n} * g.p * g.q * g.c;
    if (p.tile.stage.cl > 0) {
        const DwInt8StagedGeometry sg = depthwise_int8_staged_geometry(p);
        return sg.blocks * sg.threads;
    }
    if (p.tile.mma.rs > 0 || p.tile.diag.rw > 0) return depthwise_int8_mma_geometry(p).blocks * kDwInt8MmaThreads;
    const DwInt8FastShape& f = kDwInt8FastShapes[p.tile.fast];
    const int64_t strips = (g.p + p.tile.rows - 1) / p.tile.rows, col_tiles = (g.q + f.cols - 1) / f.cols;
    return int64_t{g.n} * (g.c / 4) * col_tiles * strips;
}

std::string depthwise_int8_describe(const DwInt8Params& p) {
    const int64_t threads = depthwise_int8_threads(p);
    const int64_t blocks = (threads + kDwInt8Threads - 1) / kDwInt8Threads;
    if (p.tile.band.per_warp > 0) {
        const DwInt8BandGeometry bg = depthwise_int8_band_geometry(p);
        return fmt::format(
            "band k{} s1, NCHW: one m16n8k16 mma per 16x8 outputs and kernel row, {} plane(s) per warp, {} steps x {} "
            "column tiles a plane ({} bytes of shared memory a warp), {} blocks of {}",
            p.g.r, p.tile.band.per_warp, bg.rs, bg.col_tiles, bg.warp_bytes, bg.blocks, kDwInt8BandWarps * 32);
    }
    if (p.tile.fast < 0) {
        std::string why = depthwise_int8_generic_reason(p);
        return fmt::format("generic ({}): one thread per output element, {} threads", why.empty() ? "chosen" : why,
                           threads);
    }
    const DwInt8FastShape& f = kDwInt8FastShapes[p.tile.fast];
    if (p.tile.diag.rw > 0) {
        const DwInt8MmaGeometry mg = depthwise_int8_mma_geometry(p);
        return fmt::format(
            "channel-mma k3 s1: tile {}x{} outputs x 16 channels, {} rows per warp ({} bytes of shared memory), {} "
            "blocks of {}",
            mg.tile_p, mg.tile_q, p.tile.diag.rw, mg.bytes, mg.blocks, kDwInt8MmaThreads);
    }
    if (p.tile.mma.rs > 0) {
        const DwInt8MmaGeometry mg = depthwise_int8_mma_geometry(p);
        return fmt::format(
            "mma k{} s1: tensor-core tile {}x{} outputs x 16 channels, {} mma steps per lane ({} bytes of shared "
            "memory), {} blocks of {}",
            f.k, mg.tile_p, mg.tile_q, p.tile.mma.rs, mg.bytes, mg.blocks, kDwInt8MmaThreads);
    }
    if (p.tile.stage.cl > 0) {
        const DwInt8StagedGeometry sg = depthwise_int8_staged_geometry(p);
        return fmt::format(
            "staged k{} s{}: 4 ch x {} cols x {} rows per thread, filters in {}, block tile {}x{} outputs x {} "
            "channels ({} bytes of shared memory), {} blocks of {}",
            f.k, f.stride, f.cols, p.tile.rows, f.filters_in_registers ? "registers" : "L1", sg.tile_p, sg.tile_q,
            4 * p.tile.stage.cl, sg.bytes, sg.blocks, sg.threads);
    }
    return fmt::format(
        "fast k{} s{}: 4 ch x {} cols x {} rows per thread, filters in {}, {} row(s) ahead{}, {} threads ({} blocks "
        "of {})",
        f.k, f.stride, f.cols, p.tile.rows, f.filters_in_registers ? "registers" : "L1", f.ahead,
        f.ring ? " through a cp.async ring" : "", threads, blocks, kDwInt8Threads);
}

}  // namespace strata::cuda
