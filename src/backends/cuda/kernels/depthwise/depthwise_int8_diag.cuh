// depthwise_int8_diag.cuh: the pieces of the channel-mma int8 depthwise kernel (NOTE [depthwise int8 channel mma] in
// depthwise_int8.h), each one thread's or one lane's share and __host__ __device__, so that
// depthwise_int8_run_on_host() runs them with the warp's mma emulated from its documented fragment layout.
#pragma once

#include "backends/cuda/kernels/depthwise/depthwise_int8_mma.cuh"

namespace strata::cuda {

/// A channel-mma tile's sizes as compile-time constants (dw_int8_diag_shape), with the member names of the host's
/// DwInt8MmaGeometry.
template <int RW, int QB>
struct DwInt8DiagStatic {
    static constexpr DwInt8MmaGeometry kShape = dw_int8_diag_shape(3, RW, QB);
    static constexpr int tile_p = kShape.tile_p, tile_q = kShape.tile_q, in_cols = kShape.in_cols;
    static constexpr int in_pitch = kShape.in_pitch, in_plane = kShape.in_plane, quads = kShape.quads;
    static constexpr int out_pitch = kShape.out_pitch;
};

/// Thread t's share of the input tile: 16-byte chunks (one pixel's 16 channels) t, t + 256, ... into
/// [in_rows][in_cols][16] bytes, zeros outside the map; asynchronous on the device (dw_int8_copy_chunk).
template <class Shape>
__host__ __device__ __forceinline__ void dw_int8_diag_stage(const DwInt8Params& prm, const Shape& sh,
                                                            const DwInt8StagedTileAt& at, uint8_t* tile, int t) {
    const ConvGeometry& g = prm.g;
    const int row0 = at.p0 - g.pad_h, col0 = at.q0 - g.pad_w;
    const int8_t* xs = prm.x + int64_t{at.n} * g.h * g.w * g.c + at.slab * 16;
    for (int i = t; i < sh.quads; i += kDwInt8MmaThreads) {
        const int ih = row0 + i / sh.in_cols, iw = col0 + i % sh.in_cols;
        const bool valid = static_cast<unsigned>(ih) < static_cast<unsigned>(g.h) &&
                           static_cast<unsigned>(iw) < static_cast<unsigned>(g.w);
        dw_int8_copy_chunk(reinterpret_cast<uint32_t*>(tile + 16 * i), valid ? xs + (ih * g.w + iw) * g.c : prm.x,
                           valid);
    }
}

/// A lane's B registers of tap (r, s), [h] for channel half h: B_h[k][n] = w[8h + n][r][s] where k == 8h + n. Lane
/// (n = lane / 4, k = 4 * (lane % 4) .. + 3) holds that one byte when its k range holds 8h + n, else zeros.
__host__ __device__ __forceinline__ void dw_int8_diag_b(const int8_t* w, int slab, int r, int s, int c_words,
                                                        int lane, uint32_t (&b)[2]) {
    const int n = lane / 4, t = lane % 4;
    b[0] = b[1] = 0u;
    if ((n >> 2) != (t & 1)) return;
    const int h = t >> 1, c = slab * 16 + 8 * h + n;
    const auto v = static_cast<uint8_t>(w[depthwise_int8_packed_index(c, r, s, 3, c_words)]);
    const uint32_t shifted = static_cast<uint32_t>(v) << (8 * (n & 3));
    b[0] = h == 0 ? shifted : 0u;  // selects, not b[h]: an index not known at compile time put b in local memory
    b[1] = h == 1 ? shifted : 0u;
}

/// A lane's A registers: channels 4 * (lane % 4) .. + 3 of tile pixels (row, col + lane / 4) and (row, col + 8 +
/// lane / 4): A[m][k] = channel k of the m-th of 16 consecutive pixels.
template <class Shape>
__host__ __device__ __forceinline__ void dw_int8_diag_a(const uint8_t* tile, const Shape& sh, int row, int col,
                                                        int lane, uint32_t (&a)[2]) {
    const uint8_t* at = tile + row * sh.in_pitch + (col + lane / 4) * 16 + 4 * (lane % 4);
    a[0] = dw_int8_load<uint32_t>(at);
    a[1] = dw_int8_load<uint32_t>(at + 8 * 16);
}

/// The epilogue of a lane's 4 results of channel half h (they started from the bias) into the output tile: c[0], c[1]
/// are channels 8h + 2 * (lane % 4) and + 1 of pixel (row, col + lane / 4), c[2], c[3] the same of pixel col + 8 +
/// lane / 4; each pair one 2-byte store. ep: the two channels' constants. kPlain as in dw_int8_mma_put.
template <bool kPlain, class Shape>
__host__ __device__ __forceinline__ void dw_int8_diag_put(uint8_t* out, const Shape& sh, int row, int col, int lane,
                                                          int h, const int32_t (&c)[4], const DwInt8Channel (&ep)[2]) {
    DW_INT8_UNROLL
    for (int v = 0; v < 2; ++v) {
        const uint32_t pair =
            dw_int8_out_byte<kPlain>(c[2 * v], ep[0]) | (dw_int8_out_byte<kPlain>(c[2 * v + 1], ep[1]) << 8);
        uint8_t* at = out + row * sh.out_pitch + (col + lane / 4 + 8 * v) * 16 + 8 * h + 2 * (lane % 4);
        dw_int8_store<uint16_t>(at, static_cast<uint16_t>(pair));
    }
}

/// A lane's channel constants, [h][e] for channel slab * 16 + 8h + 2 * (lane % 4) + e, and the accumulators each
/// half starts from (its two channels' int32 biases in a lane's C/D order: e, then e again for the pixel 8 on).
struct DwInt8DiagChannels {
    DwInt8Channel ep[2][2];
    int32_t acc_start[2][4];
    bool plain = true;  ///< every one of them clamps to the int8 range only (dw_int8_plain_clamp)
};
__host__ __device__ __forceinline__ DwInt8DiagChannels dw_int8_diag_channels(const DwInt8Params& prm, int slab,
                                                                             int lane) {
    DwInt8DiagChannels ch;
    DW_INT8_UNROLL
    for (int h = 0; h < 2; ++h) {
        DW_INT8_UNROLL
        for (int e = 0; e < 2; ++e) {
            const int c = slab * 16 + 8 * h + 2 * (lane % 4) + e;
            ch.ep[h][e] = dw_int8_channel(prm.chan, c);
            ch.acc_start[h][e] = ch.acc_start[h][e + 2] = prm.bias_i32 ? dw_int8_ldg(prm.bias_i32 + c) : 0;
            ch.plain = ch.plain && dw_int8_plain_clamp(ch.ep[h][e]);
        }
    }
    return ch;
}

/// Thread t's share of the output tile: 16-byte chunks (a pixel's 16 channels) t, t + 256, ... inside the map.
template <class Shape>
__host__ __device__ __forceinline__ void dw_int8_diag_store(const DwInt8Params& prm, const Shape& sh,
                                                            const DwInt8StagedTileAt& at, const uint8_t* out, int t) {
    const ConvGeometry& g = prm.g;
    int8_t* ys = static_cast<int8_t*>(prm.y) + int64_t{at.n} * g.p * g.q * g.c + at.slab * 16;
    for (int i = t; i < sh.tile_p * sh.tile_q; i += kDwInt8MmaThreads) {
        const int p = at.p0 + i / sh.tile_q, q = at.q0 + i % sh.tile_q;
        if (p < g.p && q < g.q)
            dw_int8_store<uint4>(ys + (int64_t{p} * g.q + q) * g.c, dw_int8_load<uint4>(out + 16 * i));
    }
}

}  // namespace strata::cuda
