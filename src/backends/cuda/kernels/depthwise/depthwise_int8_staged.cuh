// depthwise_int8_staged.cuh: the thread programs of the staged int8 depthwise kernels (NOTE [depthwise int8 staged
// tile] in depthwise_int8.h): a block's share of copying its input tile into shared memory, and one thread's walk of
// its strip over that tile. __host__ __device__ like the fast ones, so that depthwise_int8_run_on_host() runs them:
// on the host a block's copies are done at once and its "barrier" is the end of the copying loop.
#pragma once

#include "backends/cuda/kernels/common/mma.cuh"
#include "backends/cuda/kernels/depthwise/depthwise_int8_kernel.cuh"

namespace strata::cuda {

/// Where block b's tile lies: image, first output row and column, channel slab (slab fastest, so that the blocks
/// running at once share images and rows and their halos meet in L2). In 32 bits: there are fewer than 2^31 blocks
/// (depthwise_int8_problem), and 64-bit divisions are subroutine calls on the device. Geometry: the staged one or the
/// tensor-core one (DwInt8MmaGeometry), which both have slabs, tiles_q, tiles_p, tile_q and tile_p.
struct DwInt8StagedTileAt {
    int n, p0, q0, slab;
};

template <class Geometry>
__host__ __device__ __forceinline__ DwInt8StagedTileAt dw_int8_staged_tile_at(const Geometry& sg, uint32_t b) {
    const auto slabs = static_cast<uint32_t>(sg.slabs), tiles_q = static_cast<uint32_t>(sg.tiles_q),
               tiles_p = static_cast<uint32_t>(sg.tiles_p);
    DwInt8StagedTileAt at;
    at.slab = static_cast<int>(b % slabs), b /= slabs;
    at.q0 = static_cast<int>(b % tiles_q) * sg.tile_q, b /= tiles_q;
    at.p0 = static_cast<int>(b % tiles_p) * sg.tile_p;
    at.n = static_cast<int>(b / tiles_p);
    return at;
}

/// 16 bytes of x into the tile, or zeros when !valid: cp_async_16 on the device, a copy on the host.
__host__ __device__ __forceinline__ void dw_int8_copy_chunk(uint32_t* dst, const int8_t* src, bool valid) {
#ifdef __CUDA_ARCH__
    cp_async_16(shared_address(dst), src, valid ? 16 : 0);
#else
    if (valid)
        std::memcpy(dst, src, 16);
    else
        std::memset(dst, 0, 16);
#endif
}

/// Thread t's share of the copy of tile `at` into `tile` ([in_rows][in_cols][cl] words): the 16-byte chunks t,
/// t + threads, ... A thread keeps one part of a pixel (threads is a multiple of cl, so of the cl / 4 parts) and steps
/// by a fixed number of pixels, so its row, column, source offset and destination advance by addition: computed
/// afresh, each chunk's address took ~32 sm_90 instructions, a sixth of the kernel's work at a 14x14 tile. Offsets
/// within the image are 32-bit (depthwise_int8_problem refuses larger images for staged tiles); an offset outside
/// the image is never dereferenced.
__host__ __device__ __forceinline__ void dw_int8_stage_tile(const DwInt8Params& prm, const DwInt8StagedGeometry& sg,
                                                            const DwInt8StagedTileAt& at, uint32_t* tile, int t) {
    const ConvGeometry& g = prm.g;
    const int cl = prm.tile.stage.cl, parts = cl / 4;
    const int part = t % parts, pixel_step = sg.threads / parts;
    const int row0 = at.p0 * g.stride_h - g.pad_h, col0 = at.q0 * g.stride_w - g.pad_w;
    const int pixels = sg.in_rows * sg.in_cols, row_stride = g.w * g.c;
    const int8_t* xn = prm.x + int64_t{at.n} * g.h * g.w * g.c + (at.slab * cl + part * 4) * 4;
    int pix = t / parts;
    int row = pix / sg.in_cols, col = pix % sg.in_cols;
    const int step_rows = pixel_step / sg.in_cols, step_cols = pixel_step % sg.in_cols;
    int offset = (row0 + row) * row_stride + (col0 + col) * g.c;
    const int step_offset = step_rows * row_stride + step_cols * g.c, wrap_offset = row_stride - sg.in_cols * g.c;
    uint32_t* dst = tile + pix * cl + part * 4;
    const int dst_step = pixel_step * cl;
    for (; pix < pixels; pix += pixel_step) {
        const int ih = row0 + row, iw = col0 + col;
        const bool valid = static_cast<unsigned>(ih) < static_cast<unsigned>(g.h) &&
                           static_cast<unsigned>(iw) < static_cast<unsigned>(g.w);
        dw_int8_copy_chunk(dst, valid ? xn + offset : prm.x, valid);
        row += step_rows, col += step_cols, offset += step_offset, dst += dst_step;
        if (col >= sg.in_cols) col -= sg.in_cols, ++row, offset += wrap_offset;
    }
    // The slab's packed filters, (kernel row, tap group) units of cl uint4 (NOTE [depthwise int8 staged tile]), and its
    // channel table: a few chunks per thread, so plain divisions.
    const int units = g.r * ((g.s + 3) / 4), cwords = g.c / 4;
    const auto* w4 = reinterpret_cast<const uint4*>(prm.w) + at.slab * cl;
    for (int u = t; u < units * cl; u += sg.threads)
        dw_int8_copy_chunk(tile + sg.filters_at + 4 * u, reinterpret_cast<const int8_t*>(w4 + u / cl * cwords + u % cl),
                           true);
    const DwInt8Channel* chan = prm.chan + 4 * at.slab * cl;
    for (int u = t; u < 4 * cl; u += sg.threads)
        dw_int8_copy_chunk(tile + sg.chan_at + 4 * u, reinterpret_cast<const int8_t*>(chan + u), true);
}

/// Thread t of a staged block of fast shape I over tile `at`, whose input tile, filters and channel table are in
/// `tile` (dw_int8_stage_tile). It loads its bias, calls wait() (every thread of the block, active or not: on the
/// device the copy's wait and the barrier), reads its filters and walks its strip as dw_int8_fast_thread does, its
/// rows read from the tile. Input rows above the strip's first window feed only warm-up outputs and are not read.
template <int I, DwInt8Out OUT, class Wait>
__host__ __device__ __forceinline__ void dw_int8_staged_thread(const DwInt8Params& prm, const DwInt8StagedGeometry& sg,
                                                               const DwInt8StagedTileAt& at, const uint32_t* tile,
                                                               int t, Wait wait) {
    constexpr int K = kDwInt8FastShapes[I].k, S = kDwInt8FastShapes[I].stride, TW = kDwInt8FastShapes[I].cols;
    using T = DwInt8FastTile<K, S, TW>;
    constexpr int A = T::kAccRows, G = T::kGroups, NCOL = T::kCols, NW = T::kWords;
    constexpr bool kStream = !kDwInt8FastShapes[I].filters_in_registers;
    static_assert(dw_int8_stageable(kDwInt8FastShapes[I]), "a staged kernel of a shape without a staged form");
    const ConvGeometry& g = prm.g;
    const DwInt8Stage& st = prm.tile.stage;
    const int cl = st.cl, cw_local = t % cl, ct = t / cl % st.col_tiles, strip = t / cl / st.col_tiles;
    DwInt8FastCoords co;
    co.cw = at.slab * cl + cw_local;
    co.n = at.n;
    co.q0 = at.q0 + ct * TW;
    co.p0 = at.p0 + strip * prm.tile.rows;
    const int tile_end = at.p0 + sg.tile_p < g.p ? at.p0 + sg.tile_p : g.p;
    co.p_end = co.p0 + prm.tile.rows < tile_end ? co.p0 + prm.tile.rows : tile_end;
    const bool active = co.q0 < g.q && co.p0 < co.p_end;

    int32_t bias[4];
    dw_int8_load_bias(prm, co.cw, bias);
    wait();
    if (!active) return;
    const uint4* filters = reinterpret_cast<const uint4*>(tile + sg.filters_at) + cw_local;  // unit (r * G + gg) * cl
    [[maybe_unused]] uint32_t f[kStream ? 1 : K][G][4];
    if constexpr (!kStream) dw_int8_load_filters<K, true>(filters, cl, f);
    const auto* chan4 = reinterpret_cast<const DwInt8Channel*>(tile + sg.chan_at) + 4 * cw_local;

    int32_t acc[A][TW][4];
    dw_int8_zero(acc);
    const int p_begin = co.p0 - (A - 1);
    const int row_words = sg.in_cols * cl;
    const int first_row = (co.p0 - at.p0) * S;  // the tile row of the strip's first window
    int ir = (p_begin - at.p0) * S + K - S;     // the tile row consumed next
    const uint32_t* column = tile + ct * TW * S * cl + cw_local;  // this thread's first column, tile row 0
    const int64_t y_pitch = int64_t{g.q} * g.c;
    int64_t y_off = (int64_t{co.n} * g.p + p_begin) * y_pitch + int64_t{co.q0} * g.c + 4 * co.cw;
    auto step = [&](auto u_, int p, int live_from) {
        constexpr int U = decltype(u_)::value;
        dw_int8_static_for<S>([&](auto m_) {
            constexpr int M = decltype(m_)::value;
            uint32_t raw[NCOL];
            if (ir >= first_row) {
                const uint32_t* src = column + ir * row_words;
                DW_INT8_UNROLL
                for (int i = 0; i < NCOL; ++i) raw[i] = src[i * cl];
            } else {
                DW_INT8_UNROLL
                for (int i = 0; i < NCOL; ++i) raw[i] = 0u;
            }
            ++ir;
            uint32_t pk[4][NW];
            dw_int8_transpose<NCOL, NW>(raw, pk);
            if constexpr (kStream)
                DwInt8RowUpdate<K, S, TW, U, M>::streaming(pk, filters, cl, bias, live_from, acc);
            else
                DwInt8RowUpdate<K, S, TW, U, M>::with_filters(pk, f, bias, live_from, acc);
        });
        if (p >= co.p0) dw_int8_store_row<TW, OUT>(prm, co, chan4, y_off, acc[U]);
        y_off += y_pitch;
    };
    dw_int8_walk<A>(p_begin, co.p0, co.p_end, step);
}

}  // namespace strata::cuda
