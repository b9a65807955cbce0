// depthwise_int8_mma.cuh: the pieces of the tensor-core int8 depthwise kernel (NOTE [depthwise int8 mma tile] in
// depthwise_int8.h). Each piece is one thread's (or one lane's) share and __host__ __device__ like the fast thread
// programs, so that depthwise_int8_run_on_host() runs them with the warp's mma emulated from its documented fragment
// layout (dw_int8_mma_emulate): the CPU tests check every index here, the GPU tests the layout itself.
#pragma once

#include "backends/cuda/kernels/depthwise/depthwise_int8_kernel.cuh"
#include "backends/cuda/kernels/depthwise/depthwise_int8_staged.cuh"

namespace strata::cuda {

/// Thread t's share of the input tile: quads of 4 consecutive plane columns of one plane row, t, t + 256, ... Each
/// quad is read as 4 pixels of the slab's 16 channels (16-byte loads; zeros outside the map and past in_cols),
/// transposed into 16 words of 4 pixels each, one per channel, and stored into the channels' planes. All of a
/// thread's loads go out before the first transpose.
template <int ROUNDS, class Shape>
__host__ __device__ __forceinline__ void dw_int8_mma_stage(const DwInt8Params& prm, const Shape& sh,
                                                           const DwInt8StagedTileAt& at, uint8_t* planes, int t) {
    const ConvGeometry& g = prm.g;
    const int row0 = at.p0 - g.pad_h, col0 = at.q0 - g.pad_w;
    const int8_t* xs = prm.x + int64_t{at.n} * g.h * g.w * g.c + at.slab * 16;
    uint4 px[ROUNDS][4];
    DW_INT8_UNROLL
    for (int k = 0; k < ROUNDS; ++k) {
        const int quad = t + k * kDwInt8MmaThreads, row = quad / sh.quads_per_row, u = quad % sh.quads_per_row;
        DW_INT8_UNROLL
        for (int i = 0; i < 4; ++i) {
            const int ih = row0 + row, iw = col0 + 4 * u + i;
            const bool valid = quad < sh.quads && 4 * u + i < sh.in_cols &&
                               static_cast<unsigned>(ih) < static_cast<unsigned>(g.h) &&
                               static_cast<unsigned>(iw) < static_cast<unsigned>(g.w);
            px[k][i] = valid ? dw_int8_ldg(reinterpret_cast<const uint4*>(xs + (ih * g.w + iw) * g.c))
                             : uint4{0u, 0u, 0u, 0u};
        }
    }
    DW_INT8_UNROLL
    for (int k = 0; k < ROUNDS; ++k) {
        const int quad = t + k * kDwInt8MmaThreads;
        if (quad >= sh.quads) break;
        uint8_t* dst = planes + (quad / sh.quads_per_row) * sh.in_pitch + 4 * (quad % sh.quads_per_row);
        DW_INT8_UNROLL
        for (int cq = 0; cq < 4; ++cq) {
            auto word = [&](const uint4& v) { return cq == 0 ? v.x : cq == 1 ? v.y : cq == 2 ? v.z : v.w; };
            const uint32_t raw[4] = {word(px[k][0]), word(px[k][1]), word(px[k][2]), word(px[k][3])};
            uint32_t pk[4][1];
            dw_int8_transpose<4, 1>(raw, pk);
            DW_INT8_UNROLL
            for (int ch = 0; ch < 4; ++ch)
                dw_int8_store<uint32_t>(dst + (4 * cq + ch) * sh.in_plane, pk[ch][0]);
        }
    }
}

/// The byte selectors of a lane's A fragment (NOTE [depthwise int8 mma tile]): registers 0, 1 and 3 hold taps
/// x .. x + 3 of the kernel row for x = d, d - 8 and d + 8, d = 4 * (lane % 4) - lane / 4 (register 2 is always
/// zero for k <= 7). Selector nibble i picks byte x + i of the 8-byte kernel row (lo word, hi word), or byte 7, which
/// is a zero tap for k <= 7, where x + i lies outside the row.
__host__ __device__ __forceinline__ void dw_int8_mma_selectors(int lane, uint32_t (&sel)[3]) {
    const int d = 4 * (lane % 4) - lane / 4;
    const int xs[3] = {d, d - 8, d + 8};
    DW_INT8_UNROLL
    for (int k = 0; k < 3; ++k) {
        uint32_t s = 0;
        DW_INT8_UNROLL
        for (int i = 0; i < 4; ++i) {
            const int b = xs[k] + i;
            s |= static_cast<uint32_t>(b >= 0 && b < 7 ? b : 7) << (4 * i);
        }
        sel[k] = s;
    }
}

/// Kernel row r of channel c as two words (taps 0-3 and 4-7; the packed layout's zeros past k) from the packed
/// weights (depthwise_int8_packed_index).
template <int K>
__host__ __device__ __forceinline__ void dw_int8_mma_kernel_row(const int8_t* w, int c, int r, int c_words,
                                                                uint32_t& lo, uint32_t& hi) {
    constexpr int G = (K + 3) / 4;
    lo = dw_int8_ldg(reinterpret_cast<const uint32_t*>(w + depthwise_int8_packed_index(c, r, 0, K, c_words)));
    hi = G > 1 ? dw_int8_ldg(reinterpret_cast<const uint32_t*>(w + depthwise_int8_packed_index(c, r, 4, K, c_words)))
               : 0u;
}

/// A lane's A fragment for one kernel row: the banded 16 x 32 matrix A[m][j] = w[j - m] (zero outside 0..k-1).
__host__ __device__ __forceinline__ void dw_int8_mma_a(uint32_t lo, uint32_t hi, const uint32_t (&sel)[3],
                                                       uint32_t (&a)[3]) {
    a[0] = dw_int8_prmt(lo, hi, sel[0]);
    a[1] = dw_int8_prmt(lo, hi, sel[1]);
    a[2] = dw_int8_prmt(lo, hi, sel[2]);  // the mma's register 3; its register 2 is zero
}

/// A lane's B fragment: plane row `row` of channel plane `plane`, columns 16j + 4 * (lane % 4) .. + 3 and 16 further
/// (B[i][n] = input column 16j + i of output row n = lane / 4's window row).
template <class Shape>
__host__ __device__ __forceinline__ void dw_int8_mma_b(const uint8_t* plane, const Shape& sh, int row, int j, int lane,
                                                       uint32_t (&b)[2]) {
    const uint8_t* at = plane + row * sh.in_pitch + 16 * j + 4 * (lane % 4);
    b[0] = dw_int8_load<uint32_t>(at);
    b[1] = dw_int8_load<uint32_t>(at + 16);
}

/// D = A B + C for one m16n8k16 s8 mma of a warp (on the host dw_int8_mma_emulate<16>).
__device__ __forceinline__ void dw_int8_mma16(const uint32_t (&a)[2], uint32_t b, int32_t (&c)[4]) {
#ifdef __CUDA_ARCH__
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.s32.s8.s8.s32 {%0, %1, %2, %3}, {%4, %5}, {%6}, {%0, %1, %2, %3};\n"
        : "+r"(c[0]), "+r"(c[1]), "+r"(c[2]), "+r"(c[3])
        : "r"(a[0]), "r"(a[1]), "r"(b));
#endif
}
/// The same with C read from `c` and D written to `d` (the first mma of an output: C is the bias, no moves).
__device__ __forceinline__ void dw_int8_mma16_from(const uint32_t (&a)[2], uint32_t b, const int32_t (&c)[4],
                                                   int32_t (&d)[4]) {
#ifdef __CUDA_ARCH__
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.s32.s8.s8.s32 {%0, %1, %2, %3}, {%4, %5}, {%6}, {%7, %8, %9, %10};\n"
        : "=r"(d[0]), "=r"(d[1]), "=r"(d[2]), "=r"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(b), "r"(c[0]), "r"(c[1]), "r"(c[2]), "r"(c[3]));
#endif
}

/// D = A B + C for one m16n8k32 s8 mma of a warp: on the device the instruction, issued by every lane with its own
/// fragments (a: the mma's registers 0, 1 and 3; its register 2 is zero); on the host dw_int8_mma_emulate.
__device__ __forceinline__ void dw_int8_mma(const uint32_t (&a)[3], const uint32_t (&b)[2], int32_t (&c)[4]) {
#ifdef __CUDA_ARCH__
    asm volatile(
        "mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
        "{%0, %1, %2, %3};\n"
        : "+r"(c[0]), "+r"(c[1]), "+r"(c[2]), "+r"(c[3])
        : "r"(a[0]), "r"(a[1]), "r"(0u), "r"(a[2]), "r"(b[0]), "r"(b[1]));
#endif
}

/// D = A B + C for one m16n8kKD s8 mma (KD = 16 or 32) of a warp on the host, lane arrays in the documented fragment
/// layout: A[m][k] is byte k % 4 of lane (m % 8, (k % 16) / 4)'s register (m / 8) + 2 * (k / 16); B[k][n] byte k % 4
/// of lane (n, (k % 16) / 4)'s register k / 16; C/D[m][n] lane (m % 8, n / 2)'s register 2 * (m / 8) + n % 2.
template <int KD>
void dw_int8_mma_emulate(const uint32_t (&a)[32][KD / 8], const uint32_t (&b)[32][KD / 16], int32_t (&c)[32][4]) {
    auto byte = [](uint32_t w, int i) { return static_cast<int32_t>(static_cast<int8_t>(w >> (8 * i))); };
    for (int m = 0; m < 16; ++m) {
        for (int n = 0; n < 8; ++n) {
            int32_t sum = 0;
            for (int k = 0; k < KD; ++k)
                sum += byte(a[(m % 8) * 4 + (k % 16) / 4][m / 8 + 2 * (k / 16)], k % 4) *
                       byte(b[n * 4 + (k % 16) / 4][k / 16], k % 4);
            int32_t& d = c[(m % 8) * 4 + n / 2][2 * (m / 8) + n % 2];
            d = dw_int8_add_wrap(d, sum);
        }
    }
}

/// round-half-even(v) saturated to [-128, 127], in the low byte: cvt.rni.sat.s8.f32 on the device (one instruction
/// where clamp and the rounding add take three); the same as dw_int8_bits(dw_int8_clamp(v, -128, 127)), since the
/// bounds are integers.
__host__ __device__ __forceinline__ uint32_t dw_int8_saturate(float v) {
#ifdef __CUDA_ARCH__
    uint32_t r;
    asm("cvt.rni.sat.s8.f32 %0, %1;\n" : "=r"(r) : "f"(v));
    return r;
#else
    return static_cast<uint32_t>(static_cast<int32_t>(std::nearbyint(std::fmin(std::fmax(v, -128.0f), 127.0f))));
#endif
}

/// The int8 byte of one accumulator (the bias included) through the epilogue (NOTE [depthwise int8 arithmetic]), in
/// the low byte. kPlain: the channel's clamp is the int8 range itself (no activation), so the saturating conversion
/// does it (a compile-time choice: as a run-time one the compiler computed both and selected).
template <bool kPlain>
__host__ __device__ __forceinline__ uint32_t dw_int8_out_byte(int32_t acc, const DwInt8Channel& ep) {
    if constexpr (kPlain)
        return dw_int8_saturate(dw_int8_fma(dw_int8_i2f(acc), ep.mul, ep.add)) & 0xFFu;
    else
        return dw_int8_bits(dw_int8_value(acc, ep)) & 0xFFu;
}

/// A lane's four accumulators through dw_int8_out_byte into the output planes: D[m][n] is output column 16j + m of
/// output row s + n * RS of the tile; c[0], c[1]: m = lane / 4, n = 2 (lane % 4) and + 1; c[2], c[3]: m + 8.
template <int RS, bool kPlain, class Shape>
__host__ __device__ __forceinline__ void dw_int8_mma_put(uint8_t* out_plane, const Shape& sh, int s, int j, int lane,
                                                         const int32_t (&c)[4], const DwInt8Channel& ep) {
    const int m = lane / 4, n = 2 * (lane % 4);
    DW_INT8_UNROLL
    for (int v = 0; v < 4; ++v) {
        const int row = s + (n + v % 2) * RS, col = 16 * j + m + 8 * (v / 2);
        out_plane[row * sh.out_pitch + col] = static_cast<uint8_t>(dw_int8_out_byte<kPlain>(c[v], ep));
    }
}

/// Whether a channel's clamp is the int8 range (dw_int8_mma_put's `plain`).
__host__ __device__ __forceinline__ bool dw_int8_plain_clamp(const DwInt8Channel& ep) {
    return ep.lo == -128.0f && ep.hi == 127.0f;
}

/// Thread t's share of the output tile: quads of 4 columns of one output row, t, t + 256, ...: 16 words (one per
/// channel plane) transposed back into 4 pixels of 16 channels and stored with 16-byte stores inside the map.
template <class Shape>
__host__ __device__ __forceinline__ void dw_int8_mma_store(const DwInt8Params& prm, const Shape& sh,
                                                           const DwInt8StagedTileAt& at, const uint8_t* out_planes,
                                                           int t) {
    const ConvGeometry& g = prm.g;
    const int quads_per_row = sh.tile_q / 4, quads = sh.tile_p * quads_per_row;
    int8_t* ys = static_cast<int8_t*>(prm.y) + int64_t{at.n} * g.p * g.q * g.c + at.slab * 16;
    for (int quad = t; quad < quads; quad += kDwInt8MmaThreads) {
        const int row = quad / quads_per_row, u = quad % quads_per_row, p = at.p0 + row;
        if (p >= g.p || at.q0 + 4 * u >= g.q) continue;
        const uint8_t* src = out_planes + row * sh.out_pitch + 4 * u;
        uint32_t px[4][4];  // [pixel][channel quad]
        DW_INT8_UNROLL
        for (int cq = 0; cq < 4; ++cq) {
            uint32_t raw[4];
            DW_INT8_UNROLL
            for (int ch = 0; ch < 4; ++ch) raw[ch] = dw_int8_load<uint32_t>(src + (4 * cq + ch) * sh.out_plane);
            uint32_t pk[4][1];
            dw_int8_transpose<4, 1>(raw, pk);
            DW_INT8_UNROLL
            for (int i = 0; i < 4; ++i) px[i][cq] = pk[i][0];
        }
        DW_INT8_UNROLL
        for (int i = 0; i < 4; ++i) {
            const int q = at.q0 + 4 * u + i;
            if (q >= g.q) break;
            dw_int8_store<uint4>(ys + (int64_t{p} * g.q + q) * g.c, uint4{px[i][0], px[i][1], px[i][2], px[i][3]});
        }
    }
}

/// A tile's sizes as compile-time constants (dw_int8_mma_shape), for the kernels: the same member names as the
/// host's DwInt8MmaGeometry, so that the pieces above take either.
template <int K, int RS, int QB>
struct DwInt8MmaStatic {
    static constexpr DwInt8MmaGeometry kShape = dw_int8_mma_shape(K, RS, QB);
    static constexpr int tile_p = kShape.tile_p, tile_q = kShape.tile_q, in_cols = kShape.in_cols;
    static constexpr int in_pitch = kShape.in_pitch, in_plane = kShape.in_plane;
    static constexpr int quads_per_row = kShape.quads_per_row, quads = kShape.quads;
    static constexpr int out_pitch = kShape.out_pitch, out_plane = kShape.out_plane;
    /// Quads per thread in the stage.
    static constexpr int kRounds = (quads + kDwInt8MmaThreads - 1) / kDwInt8MmaThreads;
};

}  // namespace strata::cuda
