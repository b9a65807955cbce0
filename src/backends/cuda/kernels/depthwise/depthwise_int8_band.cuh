// depthwise_int8_band.cuh: one lane's pieces of the NCHW band kernel (NOTE [depthwise int8 nchw band] in
// depthwise_int8_band.h), __host__ __device__ like the other int8 thread programs, so that the host run
// (depthwise_int8_band_run_on_host) checks every index on a machine without a GPU, with the mma emulated.
#pragma once

#include "backends/cuda/kernels/depthwise/depthwise_int8_band.h"
#include "backends/cuda/kernels/depthwise/depthwise_int8_mma.cuh"

namespace strata::cuda {

/// Lane `lane`'s byte selector of its B registers: byte i picks tap k - n - off of the 8-byte kernel row, k = 4 *
/// (lane % 4) + i, n = lane / 4, or byte 7 (a zero tap for k <= 7) outside the band. The same for every plane and
/// kernel row: computed once per warp.
template <int K>
__host__ __device__ __forceinline__ uint32_t dw_int8_band_sel(int off, int lane) {
    uint32_t sel = 0;
    DW_INT8_UNROLL
    for (int i = 0; i < 4; ++i) {
        const int j = 4 * (lane % 4) + i - lane / 4 - off;
        sel |= static_cast<uint32_t>(j >= 0 && j < K ? j : 7) << (4 * i);
    }
    return sel;
}

/// Lane `lane`'s B register for kernel row r of channel c: B[k][n] = w[r][k - n - off] (dw_int8_band_sel's `sel`).
template <int K>
__host__ __device__ __forceinline__ uint32_t dw_int8_band_b(const int8_t* w, int c, int r, int c_words, uint32_t sel) {
    uint32_t lo, hi;
    dw_int8_mma_kernel_row<K>(w, c, r, c_words, lo, hi);
    return dw_int8_prmt(lo, hi, sel);
}

/// Lane `lane`'s part of copying a plane, the same for every plane (computed once per warp): a warp copies copy_rows
/// input rows a pass, lane = row * W / 4 + word; the lane's k-th word is input row `row` + k copy_rows, `passes` of
/// them (0 for the lanes past copy_rows whole rows). Five registers, where a shared offset for each of the WPL words
/// took WPL (a 56 map needed 128 registers a thread: 16 warps an SM).
struct DwInt8BandCopy {
    int x0 = 0;      ///< byte of the lane's first word in the input plane
    int s0 = 0;      ///< its byte in the padded plane in shared memory
    int passes = 0;  ///< the lane's words
};

__host__ __device__ __forceinline__ DwInt8BandCopy dw_int8_band_copy(const DwInt8BandGeometry& bg, int w, int h,
                                                                     int pad_h, int lane) {
    const int w_words = w / 4, row = lane / w_words, word = lane - row * w_words;
    DwInt8BandCopy cp;
    if (row >= bg.copy_rows) return cp;
    cp.x0 = row * w + 4 * word;
    cp.s0 = (row + pad_h) * bg.pitch + kDwInt8BandMargin + 4 * word;
    cp.passes = (h - row + bg.copy_rows - 1) / bg.copy_rows;
    return cp;
}

/// Lane `lane`'s words of input plane `plane` (contiguous H * W bytes, W % 4 == 0) into registers.
template <int WPL>
__host__ __device__ __forceinline__ void dw_int8_band_fetch(const int8_t* plane, const DwInt8BandGeometry& bg, int w,
                                                            const DwInt8BandCopy& cp, uint32_t (&words)[WPL]) {
    const int8_t* at = plane + cp.x0;
    const int step = bg.copy_rows * w;
    DW_INT8_UNROLL
    for (int k = 0; k < WPL; ++k, at += step)
        words[k] = k < cp.passes ? dw_int8_ldg(reinterpret_cast<const uint32_t*>(at)) : 0u;
}

/// The words of dw_int8_band_fetch into the padded plane in shared memory (input row r at plane row r + pad_h, input
/// column c at byte c + kDwInt8BandMargin).
template <int WPL>
__host__ __device__ __forceinline__ void dw_int8_band_put_plane(uint8_t* smem_plane, const DwInt8BandGeometry& bg,
                                                                const DwInt8BandCopy& cp,
                                                                const uint32_t (&words)[WPL]) {
    uint8_t* at = smem_plane + cp.s0;
    const int step = bg.copy_rows * bg.pitch;
    DW_INT8_UNROLL
    for (int k = 0; k < WPL; ++k, at += step)
        if (k < cp.passes) dw_int8_store<uint32_t>(at, words[k]);
}

/// Lane `lane`'s walk down the plane for one column tile: each next() gives the A registers of the next window row,
/// plane rows `row` and row + 8 rs (its two output rows' rows for one kernel row), the 4 columns at byte col + 4 (lane
/// % 4). A pointer that steps one pitch a row: no address arithmetic per load beyond one add.
struct DwInt8BandRows {
    const uint8_t* at;
    int far, pitch;

    __host__ __device__ __forceinline__ DwInt8BandRows(const uint8_t* smem_plane, const DwInt8BandGeometry& bg,
                                                       int row, int col, int lane)
        : at(smem_plane + row * bg.pitch + col + 4 * (lane % 4)), far(8 * bg.rs * bg.pitch), pitch(bg.pitch) {}

    __host__ __device__ __forceinline__ void next(uint32_t (&a)[2]) {
        a[0] = dw_int8_load<uint32_t>(at);
        a[1] = dw_int8_load<uint32_t>(at + far);
        at += pitch;
    }
};

/// Two adjacent outputs of a lane (v0 at column x, v1 at x + 1) through the epilogue (NOTE [depthwise int8
/// arithmetic]: the clamp and the rounding add on the FMA pipe, where the saturating conversion would queue on the
/// conversion unit), packed into the low 2 bytes.
__host__ __device__ __forceinline__ uint32_t dw_int8_band_pair(int32_t v0, int32_t v1, const DwInt8Channel& ep) {
    return dw_int8_prmt(dw_int8_bits(dw_int8_value(v0, ep)), dw_int8_bits(dw_int8_value(v1, ep)), 0x0040u);
}

/// A lane's pair at `at` (columns x and x + 1, x inside the map): one 2-byte store where Q is even (x is then even
/// and x + 1 < Q), bytes otherwise.
template <DwInt8BandCols kCols>
__host__ __device__ __forceinline__ void dw_int8_band_store(uint8_t* at, bool col1_ok, uint32_t pair) {
    if constexpr (kCols != DwInt8BandCols::odd) {
        dw_int8_store<uint16_t>(at, static_cast<uint16_t>(pair));
    } else {
        at[0] = static_cast<uint8_t>(pair);
        if (col1_ok) at[1] = static_cast<uint8_t>(pair >> 8);
    }
}

/// Where a lane's outputs of column tile qt go in the warp's output plane (P x Q bytes in shared memory), step after
/// step: c[0], c[1] at output row rs * (lane / 4) + s, columns 8 qt + 2 (lane % 4) and + 1; c[2], c[3] 8 rs rows
/// further. put() stores step s's and moves to step s + 1 (one row down): a pointer and two row counts, the column
/// tests once per tile. Columns past the map are not stored; rows past it go to the plane's 16 rs - P spare rows,
/// which are never copied out (a row test a step, with the branches around it, was ~8 SASS instructions), and where
/// every tile is whole nothing is tested (the column test put a branch around the epilogue: 3 instructions a step).
template <DwInt8BandCols kCols>
struct DwInt8BandOut {
    uint8_t* at;
    int far, q;
    bool col_ok, col1_ok;

    __host__ __device__ __forceinline__ DwInt8BandOut(uint8_t* out_plane, const ConvGeometry& g,
                                                      const DwInt8BandGeometry& bg, int qt, int lane) {
        const int x = 8 * qt + 2 * (lane % 4), y = bg.rs * (lane / 4);
        at = out_plane + y * g.q + x;
        far = 8 * bg.rs * g.q, q = g.q;
        col_ok = x < g.q, col1_ok = x + 1 < g.q;
    }

    __host__ __device__ __forceinline__ void put(const int32_t (&c)[4], const DwInt8Channel& ep) {
        const uint32_t near_pair = dw_int8_band_pair(c[0], c[1], ep), far_pair = dw_int8_band_pair(c[2], c[3], ep);
        if (kCols == DwInt8BandCols::whole || col_ok) {
            dw_int8_band_store<kCols>(at, col1_ok, near_pair);
            dw_int8_band_store<kCols>(at + far, col1_ok, far_pair);
        }
        at += q;
    }
};

/// Lane `lane`'s share of storing the warp's output plane (bg.out_bytes in shared memory) to Y: out_vec bytes at a
/// time, lane after lane, so that a warp's store is 512 contiguous bytes (out_vec 16). The mma's own layout would store
/// 8 rows x 8 bytes an instruction, 8 sectors a quarter full (NOTE [depthwise int8 nchw band]).
__host__ __device__ __forceinline__ void dw_int8_band_copy_out(const uint8_t* out_plane, uint8_t* y_plane,
                                                               const DwInt8BandGeometry& bg, int lane) {
    if (bg.out_vec == 16) {
        for (int i = 16 * lane; i < bg.out_bytes; i += 16 * 32)
            dw_int8_store<uint4>(y_plane + i, dw_int8_load<uint4>(out_plane + i));
    } else if (bg.out_vec == 4) {
        for (int i = 4 * lane; i < bg.out_bytes; i += 4 * 32)
            dw_int8_store<uint32_t>(y_plane + i, dw_int8_load<uint32_t>(out_plane + i));
    } else {
        for (int i = lane; i < bg.out_bytes; i += 32) y_plane[i] = out_plane[i];
    }
}

}  // namespace strata::cuda
