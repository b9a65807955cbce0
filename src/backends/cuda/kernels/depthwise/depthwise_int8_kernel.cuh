// depthwise_int8_kernel.cuh: the thread programs of the int8 depthwise kernels (see depthwise_int8.h for the
// arithmetic and the layout). They are __host__ __device__: the device intrinsics (__byte_perm, __dp4a, __ldg, the
// _rn float operations) sit behind dw_int8_* wrappers with exact host equivalents, so depthwise_int8_run_on_host()
// runs the same indexing on the CPU. Levels: ThreadTile = 4 channels x TW output columns x a strip of output rows;
// BlockTile = kDwInt8Threads consecutive thread tiles (channel words fastest, then column tiles, strips, images).
#pragma once

#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "backends/cuda/kernels/depthwise/depthwise_int8.h"
#include "core/half.h"

// `#pragma unroll` for the device pass only (the host compiler warns about the pragma it does not know).
#ifdef __CUDA_ARCH__
#define DW_INT8_UNROLL _Pragma("unroll")
#else
#define DW_INT8_UNROLL
#endif

namespace strata::cuda {

/// f(std::integral_constant<int, i>) for i = 0 .. N-1: loops whose index must be a compile-time constant.
template <int N, int I = 0, class F>
__host__ __device__ __forceinline__ void dw_int8_static_for(F&& f) {
    if constexpr (I < N) {
        f(std::integral_constant<int, I>{});
        dw_int8_static_for<N, I + 1>(f);
    }
}

// ---- wrappers: one device instruction each, an exact host equivalent ----

/// Byte permute: byte i of the result is byte (sel >> 4i) & 7 of the 8 bytes b:a (a = bytes 0..3). sel nibbles < 8.
__host__ __device__ __forceinline__ uint32_t dw_int8_prmt(uint32_t a, uint32_t b, uint32_t sel) {
#ifdef __CUDA_ARCH__
    return __byte_perm(a, b, sel);
#else
    const uint64_t ab = (uint64_t{b} << 32) | a;
    uint32_t r = 0;
    for (int i = 0; i < 4; ++i) r |= static_cast<uint32_t>((ab >> (8 * ((sel >> (4 * i)) & 7))) & 0xffu) << (8 * i);
    return r;
#endif
}

/// c + the dot product of the 4 signed bytes of a and b (wrapping int32).
__host__ __device__ __forceinline__ int32_t dw_int8_dp4a(uint32_t a, uint32_t b, int32_t c) {
#ifdef __CUDA_ARCH__
    return __dp4a(static_cast<int>(a), static_cast<int>(b), c);
#else
    uint32_t s = static_cast<uint32_t>(c);
    for (int i = 0; i < 4; ++i)
        s += static_cast<uint32_t>(int{static_cast<int8_t>(a >> (8 * i))} * int{static_cast<int8_t>(b >> (8 * i))});
    return static_cast<int32_t>(s);
#endif
}

__host__ __device__ __forceinline__ int32_t dw_int8_add_wrap(int32_t a, int32_t b) {
    return static_cast<int32_t>(static_cast<uint32_t>(a) + static_cast<uint32_t>(b));
}

/// A read-only load (ld.global.nc). The host copies bytes: the buffers hold int8, read here as words.
template <class T>
__host__ __device__ __forceinline__ T dw_int8_ldg(const T* p) {
#ifdef __CUDA_ARCH__
    return __ldg(p);
#else
    T v;
    std::memcpy(&v, p, sizeof(T));
    return v;
#endif
}

/// A plain load (ld.global, through L1): unlike __ldg, the compiler cannot hoist it past stores to y.
template <class T>
__host__ __device__ __forceinline__ T dw_int8_load(const void* p) {
#ifdef __CUDA_ARCH__
    return *static_cast<const T*>(p);
#else
    T v;
    std::memcpy(&v, p, sizeof(T));
    return v;
#endif
}

template <class T>
__host__ __device__ __forceinline__ void dw_int8_store(void* p, T v) {
#ifdef __CUDA_ARCH__
    *static_cast<T*>(p) = v;
#else
    std::memcpy(p, &v, sizeof(T));
#endif
}

/// One 4-byte word of x into `dst`, a slot of this thread's ring (DwInt8FastShape::ring), or zeros when !valid: on the
/// device an asynchronous copy into shared memory (cp.async.ca with a source size of 0 reads nothing and writes zeros),
/// on the host a store at once.
__host__ __device__ __forceinline__ void dw_int8_copy_word(uint32_t* dst, const int8_t* src, bool valid) {
#ifdef __CUDA_ARCH__
    asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;\n" ::"r"(
                     static_cast<uint32_t>(__cvta_generic_to_shared(dst))),
                 "l"(__cvta_generic_to_global(src)), "r"(valid ? 4 : 0)
                 : "memory");
#else
    uint32_t v = 0;
    if (valid) std::memcpy(&v, src, sizeof v);
    *dst = v;
#endif
}

/// Closes this thread's group of copies (one input row); the host's copies are done already.
__host__ __device__ __forceinline__ void dw_int8_copy_commit() {
#ifdef __CUDA_ARCH__
    asm volatile("cp.async.commit_group;\n" ::: "memory");
#endif
}

/// Waits until at most N of this thread's groups are in flight (DEPBAR.LE SB0, N: a counted wait).
template <int N>
__host__ __device__ __forceinline__ void dw_int8_copy_wait() {
#ifdef __CUDA_ARCH__
    asm volatile("cp.async.wait_group %0;\n" ::"n"(N) : "memory");
#endif
}

__host__ __device__ __forceinline__ float dw_int8_i2f(int32_t v) {
#ifdef __CUDA_ARCH__
    return __int2float_rn(v);
#else
    return static_cast<float>(v);
#endif
}

__host__ __device__ __forceinline__ float dw_int8_fma(float a, float b, float c) {
#ifdef __CUDA_ARCH__
    return __fmaf_rn(a, b, c);
#else
    return std::fmaf(a, b, c);
#endif
}

__host__ __device__ __forceinline__ float dw_int8_clamp(float v, float lo, float hi) {
#ifdef __CUDA_ARCH__
    return fminf(fmaxf(v, lo), hi);
#else
    return std::fmin(std::fmax(v, lo), hi);
#endif
}

/// The int8 of v in [-128, 127], rounded half to even, in the low byte: 1.5 * 2^23 + v has an ulp of 1.
__host__ __device__ __forceinline__ uint32_t dw_int8_bits(float v) {
#ifdef __CUDA_ARCH__
    return __float_as_uint(__fadd_rn(v, 12582912.0f));
#else
    return float_to_bits(v + 12582912.0f);
#endif
}

__host__ __device__ __forceinline__ uint16_t dw_int8_half_bits(float v) {
#ifdef __CUDA_ARCH__
    return __half_as_ushort(__float2half_rn(v));
#else
    return float_to_fp16(v);
#endif
}

/// v = clamp(fmaf(float(acc), mul, add), lo, hi): NOTE [depthwise int8 arithmetic].
__host__ __device__ __forceinline__ float dw_int8_value(int32_t acc, const DwInt8Channel& e) {
    return dw_int8_clamp(dw_int8_fma(dw_int8_i2f(acc), e.mul, e.add), e.lo, e.hi);
}

__host__ __device__ __forceinline__ DwInt8Channel dw_int8_channel(const DwInt8Channel* table, int c) {
    const float4 v = dw_int8_ldg(reinterpret_cast<const float4*>(table) + c);
    return {v.x, v.y, v.z, v.w};
}

// ---- the fast thread program: NHWC, C % 4 == 0, k x k, stride S, no dilation ----

template <int K, int S, int TW>
struct DwInt8FastTile {
    static constexpr int kGroups = (K + 3) / 4;       // dp4a words per kernel row
    static constexpr int kAccRows = (K + S - 1) / S;  // output rows one input row feeds
    static constexpr int kCols = S * (TW - 1) + K;    // input columns one row of the tile reads
    static constexpr int kWords = (kCols + 3) / 4;    // packed words per channel and row
    static_assert(kCols <= 32, "column mask is 32 bits");
};

/// raw[i] = channels 4cw..4cw+3 of input column iw0 + i of one row (0 outside the image or when !row_ok).
/// `off` is the byte offset of (n, row, iw0, 4cw), which lies before x when iw0 < 0. Interior tiles (every column
/// inside, the common case) load unpredicated from one row pointer; edge tiles dereference in-image columns only.
template <int NCOL>
__host__ __device__ __forceinline__ void dw_int8_load_row(const int8_t* x, int64_t off, int c, bool row_ok,
                                                          uint32_t col_ok, uint32_t (&raw)[NCOL]) {
    constexpr uint32_t kAll = NCOL == 32 ? ~0u : (1u << NCOL) - 1u;
    if (!row_ok) {
        DW_INT8_UNROLL
        for (int i = 0; i < NCOL; ++i) raw[i] = 0u;
    } else if (col_ok == kAll) {
        const int8_t* row = x + off;
        DW_INT8_UNROLL
        for (int i = 0; i < NCOL; ++i) raw[i] = dw_int8_ldg(reinterpret_cast<const uint32_t*>(row + i * c));
    } else {
        DW_INT8_UNROLL
        for (int i = 0; i < NCOL; ++i)
            raw[i] = (col_ok >> i) & 1u ? dw_int8_ldg(reinterpret_cast<const uint32_t*>(x + (off + i * c))) : 0u;
    }
}

/// Transposes 4-channel pixel words into per-channel words of 4 consecutive pixels: pk[ch][m] byte b = channel ch
/// of column 4m + b (zero past NCOL). 8 byte permutes per 4 pixels.
template <int NCOL, int NW>
__host__ __device__ __forceinline__ void dw_int8_transpose(const uint32_t (&raw)[NCOL], uint32_t (&pk)[4][NW]) {
    DW_INT8_UNROLL
    for (int m = 0; m < NW; ++m) {
        const uint32_t a = 4 * m < NCOL ? raw[4 * m] : 0u;
        const uint32_t b = 4 * m + 1 < NCOL ? raw[4 * m + 1] : 0u;
        const uint32_t c = 4 * m + 2 < NCOL ? raw[4 * m + 2] : 0u;
        const uint32_t d = 4 * m + 3 < NCOL ? raw[4 * m + 3] : 0u;
        // Columns past NCOL are constant zeros: skip their permutes (the compiler does not fold PRMT of zeros).
        const uint32_t ab_lo = dw_int8_prmt(a, b, 0x5140u);  // a0 b0 a1 b1
        const uint32_t ab_hi = dw_int8_prmt(a, b, 0x7362u);  // a2 b2 a3 b3
        const uint32_t cd_lo = 4 * m + 2 < NCOL ? dw_int8_prmt(c, d, 0x5140u) : 0u;
        const uint32_t cd_hi = 4 * m + 2 < NCOL ? dw_int8_prmt(c, d, 0x7362u) : 0u;
        pk[0][m] = dw_int8_prmt(ab_lo, cd_lo, 0x5410u);  // a0 b0 c0 d0
        pk[1][m] = dw_int8_prmt(ab_lo, cd_lo, 0x7632u);  // a1 b1 c1 d1
        pk[2][m] = dw_int8_prmt(ab_hi, cd_hi, 0x5410u);
        pk[3][m] = dw_int8_prmt(ab_hi, cd_hi, 0x7632u);
    }
}

/// Bytes o..o+3 of one channel's packed row (o is a compile-time constant after unrolling). Bytes past the row's
/// NCOL columns read as 0; they only ever meet the zero taps past K of a filter word.
template <int NW>
__host__ __device__ __forceinline__ uint32_t dw_int8_window(const uint32_t (&pk)[NW], int o) {
    const int m = o >> 2, sh = o & 3;
    if (sh == 0) return pk[m];
    return dw_int8_prmt(pk[m], m + 1 < NW ? pk[m + 1] : 0u, 0x3210u + 0x1111u * static_cast<uint32_t>(sh));
}

/// Which thread tile thread t owns.
struct DwInt8FastCoords {
    int cw, q0, p0, p_end, n;
};

template <int TW>
__host__ __device__ __forceinline__ DwInt8FastCoords dw_int8_fast_coords(const ConvGeometry& g, int rows, int t) {
    const int cwords = g.c / 4, col_tiles = (g.q + TW - 1) / TW, strips = (g.p + rows - 1) / rows;
    DwInt8FastCoords co;
    co.cw = static_cast<int>(t % cwords), t /= cwords;
    co.q0 = static_cast<int>(t % col_tiles) * TW, t /= col_tiles;
    co.p0 = static_cast<int>(t % strips) * rows;
    co.n = static_cast<int>(t / strips);
    co.p_end = co.p0 + rows < g.p ? co.p0 + rows : g.p;
    return co;
}

/// Requantises / dequantises one finished output row of the tile and stores it (4 channels per pixel) at byte or
/// element offset `off` of (n, p, q0, 4cw). The channel constants (chan4: channels 4cw..4cw+3 of the table, in global
/// or shared memory) are read here, with plain loads (L1 or shared-memory hits) that the compiler cannot hoist out of
/// the row loop past the stores, so that they do not hold 16 registers all along.
template <int TW, DwInt8Out OUT>
__host__ __device__ __forceinline__ void dw_int8_store_row(const DwInt8Params& prm, const DwInt8FastCoords& co,
                                                           const DwInt8Channel* chan4, int64_t off,
                                                           const int32_t (&acc)[TW][4]) {
    const ConvGeometry& g = prm.g;
    DwInt8Channel ep[4];
    DW_INT8_UNROLL
    for (int ch = 0; ch < 4; ++ch) {
        const float4 e = dw_int8_load<float4>(chan4 + ch);
        ep[ch] = {e.x, e.y, e.z, e.w};
    }
    DW_INT8_UNROLL
    for (int j = 0; j < TW; ++j, off += g.c) {
        if (co.q0 + j >= g.q) break;
        const float v0 = dw_int8_value(acc[j][0], ep[0]), v1 = dw_int8_value(acc[j][1], ep[1]);
        const float v2 = dw_int8_value(acc[j][2], ep[2]), v3 = dw_int8_value(acc[j][3], ep[3]);
        if constexpr (OUT == DwInt8Out::int8) {
            const uint32_t lo = dw_int8_prmt(dw_int8_bits(v0), dw_int8_bits(v1), 0x0040u);  // v0 v1 . .
            const uint32_t hi = dw_int8_prmt(dw_int8_bits(v2), dw_int8_bits(v3), 0x0040u);
            dw_int8_store<uint32_t>(static_cast<int8_t*>(prm.y) + off, dw_int8_prmt(lo, hi, 0x5410u));
        } else {
            uint2 h;
            h.x = uint32_t{dw_int8_half_bits(v0)} | (uint32_t{dw_int8_half_bits(v1)} << 16);
            h.y = uint32_t{dw_int8_half_bits(v2)} | (uint32_t{dw_int8_half_bits(v3)} << 16);
            dw_int8_store<uint2>(static_cast<uint16_t*>(prm.y) + off, h);
        }
    }
}

/// Adds one input row (transposed into pk) into the accumulator rows that use it. Row M of the S rows of step U
/// (of the A-step unrolled cycle) is kernel row r = K - S + M - d*S of output p + d, whose accumulators are slot
/// (U + d) % A; outputs p + d with d < live_from are warm-up outputs of the strip and get nothing (live_from is a
/// literal 0 outside the first cycle). Kernel row 0 is the first row an output sees: its dp4a starts from the int32
/// bias instead of adding, so finished slots need no reset. Filters in registers (f): each window is cut once and fed
/// to every output row. (A second filter copy shifted by one byte would spare the odd columns' window permutes, but at
/// 96-128 registers ptxas rematerialises it every row: more permutes, not fewer.) Filters streamed (5x5 and 7x7 have 40
/// and 56 filter words): the windows are cut once into registers and the filter rows are re-read per input row from L1
/// (fstream, plain loads the compiler keeps inside the loop).
template <int K, int S, int TW, int U, int M>
struct DwInt8RowUpdate {
    using T = DwInt8FastTile<K, S, TW>;
    static constexpr int A = T::kAccRows, G = T::kGroups, NW = T::kWords;

    __host__ __device__ static __forceinline__ int32_t mac(int r, int gg, uint32_t win, uint32_t f, int32_t acc,
                                                           int32_t bias) {
        return dw_int8_dp4a(win, f, r == 0 && gg == 0 ? bias : acc);
    }

    __host__ __device__ static __forceinline__ void with_filters(const uint32_t (&pk)[4][NW],
                                                                 const uint32_t (&f)[K][G][4], const int32_t (&bias)[4],
                                                                 int live_from, int32_t (&acc)[A][TW][4]) {
        DW_INT8_UNROLL
        for (int j = 0; j < TW; ++j) {
            DW_INT8_UNROLL
            for (int gg = 0; gg < G; ++gg) {
                DW_INT8_UNROLL
                for (int ch = 0; ch < 4; ++ch) {
                    const uint32_t win = dw_int8_window<NW>(pk[ch], j * S + 4 * gg);
                    DW_INT8_UNROLL
                    for (int d = 0; d < A; ++d) {
                        const int r = K - S + M - d * S;
                        int32_t& a = acc[(U + d) % A][j][ch];
                        if (r >= 0 && d >= live_from) a = mac(r, gg, win, f[r][gg][ch], a, bias[ch]);
                    }
                }
            }
        }
    }

    __host__ __device__ static __forceinline__ void streaming(const uint32_t (&pk)[4][NW], const uint4* fstream,
                                                              int cwords, const int32_t (&bias)[4], int live_from,
                                                              int32_t (&acc)[A][TW][4]) {
        uint32_t win[TW][G][4];
        DW_INT8_UNROLL
        for (int j = 0; j < TW; ++j) {
            DW_INT8_UNROLL
            for (int gg = 0; gg < G; ++gg) {
                DW_INT8_UNROLL
                for (int ch = 0; ch < 4; ++ch) win[j][gg][ch] = dw_int8_window<NW>(pk[ch], j * S + 4 * gg);
            }
        }
        DW_INT8_UNROLL
        for (int d = 0; d < A; ++d) {
            const int r = K - S + M - d * S;
            if (r < 0 || d < live_from) continue;
            int32_t(&a)[TW][4] = acc[(U + d) % A];
            DW_INT8_UNROLL
            for (int gg = 0; gg < G; ++gg) {
                const uint4 fw = dw_int8_load<uint4>(fstream + (r * G + gg) * cwords);
                const uint32_t fr[4] = {fw.x, fw.y, fw.z, fw.w};
                DW_INT8_UNROLL
                for (int j = 0; j < TW; ++j) {
                    DW_INT8_UNROLL
                    for (int ch = 0; ch < 4; ++ch) a[j][ch] = mac(r, gg, win[j][gg][ch], fr[ch], a[j][ch], bias[ch]);
                }
            }
        }
    }
};

/// One channel word's filters into registers: f[r][gg][ch] = taps 4gg..4gg+3 of kernel row r of channel 4cw+ch, from
/// `fw` (the word's first uint4 of the packed weights, in global memory, or of a copy in shared memory with kShared)
/// with `stride` uint4 between (r, gg) units.
template <int K, bool kShared = false>
__host__ __device__ __forceinline__ void dw_int8_load_filters(const uint4* fw, int stride,
                                                              uint32_t (&f)[K][(K + 3) / 4][4]) {
    constexpr int G = (K + 3) / 4;
    DW_INT8_UNROLL
    for (int r = 0; r < K; ++r) {
        DW_INT8_UNROLL
        for (int gg = 0; gg < G; ++gg) {
            const uint4* at = fw + (r * G + gg) * stride;
            const uint4 v = kShared ? dw_int8_load<uint4>(at) : dw_int8_ldg(at);
            f[r][gg][0] = v.x, f[r][gg][1] = v.y, f[r][gg][2] = v.z, f[r][gg][3] = v.w;
        }
    }
}

/// Channel word cw's int32 bias (zeros without one).
__host__ __device__ __forceinline__ void dw_int8_load_bias(const DwInt8Params& prm, int cw, int32_t (&bias)[4]) {
    bias[0] = bias[1] = bias[2] = bias[3] = 0;
    if (prm.bias_i32) {
        const int4 b = dw_int8_ldg(reinterpret_cast<const int4*>(prm.bias_i32) + cw);
        bias[0] = b.x, bias[1] = b.y, bias[2] = b.z, bias[3] = b.w;
    }
}

/// Zeros a strip's rolling accumulators (warm-up slots then hold partial sums that are never stored).
template <int A, int TW>
__host__ __device__ __forceinline__ void dw_int8_zero(int32_t (&acc)[A][TW][4]) {
    DW_INT8_UNROLL
    for (int a = 0; a < A; ++a) {
        DW_INT8_UNROLL
        for (int j = 0; j < TW; ++j) {
            DW_INT8_UNROLL
            for (int ch = 0; ch < 4; ++ch) acc[a][j][ch] = 0;
        }
    }
}

/// Runs step(slot U, output row p, live_from) for p = p_begin .. p_end - 1 in cycles of A steps, U = the step's place
/// in its cycle (a compile-time constant: it names the accumulator slots). The first cycle holds the A - 1 warm-up
/// steps (which skip the accumulators of outputs before p0: live_from = p0 - p) and step p0; the steady cycles after
/// it need no such check (live_from is a literal 0 there).
template <int A, class Step>
__host__ __device__ __forceinline__ void dw_int8_walk(int p_begin, int p0, int p_end, Step&& step) {
    dw_int8_static_for<A>([&](auto u_) {
        const int p = p_begin + decltype(u_)::value;
        if (p < p_end) step(u_, p, p0 - p);
    });
    for (int pb = p_begin + A; pb < p_end; pb += A) {
        dw_int8_static_for<A>([&](auto u_) {
            const int p = pb + decltype(u_)::value;
            if (p < p_end) step(u_, p, 0);
        });
    }
}

/// Thread t of the fast kernel kDwInt8FastShapes[I]: walks its strip of output rows one step per output row; step p
/// consumes the S input rows p*S - pad + K - S .. p*S - pad + K - 1 (each loaded one row ahead, transposed and
/// windowed once) into the accumulators of outputs p .. p + kAccRows - 1, after which output p is complete. The
/// strip starts kAccRows - 1 steps early so that its first outputs see their top rows; those warm-up outputs are not
/// stored, and input rows above the strip's first window are not loaded.
/// `ring` (kDwInt8FastShapes[I].ring): this thread's word (slot 0, column 0) of its ring, `ring_stride` words between
/// its columns (the threads of a block interleave: kDwInt8Threads on the device, 1 on the host).
template <int I, DwInt8Out OUT>
__host__ __device__ void dw_int8_fast_thread(const DwInt8Params& prm, int t, uint32_t* ring = nullptr,
                                             int ring_stride = 1) {
    constexpr int K = kDwInt8FastShapes[I].k, S = kDwInt8FastShapes[I].stride, TW = kDwInt8FastShapes[I].cols;
    using T = DwInt8FastTile<K, S, TW>;
    constexpr int A = T::kAccRows, G = T::kGroups, NCOL = T::kCols, NW = T::kWords;
    constexpr bool kStream = !kDwInt8FastShapes[I].filters_in_registers;
    constexpr int kAhead = kDwInt8FastShapes[I].ahead;
    static_assert(kAhead == 1 || kAhead == 2, "one or two input rows ahead");
    const ConvGeometry& g = prm.g;
    const DwInt8FastCoords co = dw_int8_fast_coords<TW>(g, prm.tile.rows, t);
    const int cwords = g.c / 4;

    const uint4* fstream = reinterpret_cast<const uint4*>(prm.w) + co.cw;  // unit (r * G + gg) * cwords + cw
    [[maybe_unused]] uint32_t f[kStream ? 1 : K][G][4];  // 3x3: taps 4gg..4gg+3 of row r of channel 4cw+ch
    if constexpr (!kStream) dw_int8_load_filters<K>(fstream, cwords, f);
    int32_t bias[4];
    dw_int8_load_bias(prm, co.cw, bias);

    const int iw0 = co.q0 * S - g.pad_w;
    uint32_t col_ok = 0;
    DW_INT8_UNROLL
    for (int i = 0; i < NCOL; ++i) col_ok |= (iw0 + i >= 0 && iw0 + i < g.w ? 1u : 0u) << i;
    const int row_lo = co.p0 * S - g.pad_h > 0 ? co.p0 * S - g.pad_h : 0;  // rows above feed only warm-up outputs
    const int last = (co.p_end - 1) * S - g.pad_h + K - 1;
    const int row_hi = last < g.h - 1 ? last : g.h - 1;
    const int64_t x_pitch = int64_t{g.w} * g.c, y_pitch = int64_t{g.q} * g.c;  // bytes/elements per row

    int32_t acc[A][TW][4];
    dw_int8_zero(acc);

    const int p_begin = co.p0 - (A - 1);
    // The next input row to consume, its byte offset (of (n, ih, iw0, 4cw)) and the output offset of (n, p, q0, 4cw).
    int ih = p_begin * S - g.pad_h + K - S;
    int64_t x_off = (int64_t{co.n} * g.h + ih) * x_pitch + iw0 * g.c + 4 * co.cw;
    int64_t y_off = (int64_t{co.n} * g.p + p_begin) * y_pitch + co.q0 * g.c + 4 * co.cw;
    auto row_in = [&](int r) { return r >= row_lo && r <= row_hi; };
    constexpr bool kRing = kDwInt8FastShapes[I].ring;
    constexpr int kSlots = dw_int8_ring_slots(kDwInt8FastShapes[I]);
    // The ring (NOTE [depthwise async rows]): input row `r` at byte offset `off` into `slot`, one group of copies.
    auto copy_row = [&](int r, int64_t off, int slot) {
        const bool ok = row_in(r);
        uint32_t* dst = ring + slot * NCOL * ring_stride;
        DW_INT8_UNROLL
        for (int i = 0; i < NCOL; ++i) {
            const bool valid = ok && ((col_ok >> i) & 1u);
            dw_int8_copy_word(dst + i * ring_stride, valid ? prm.x + (off + i * g.c) : prm.x, valid);
        }
        dw_int8_copy_commit();
    };
    int slot = 0;  // of row ih in the ring
    uint32_t nxt[NCOL];                        // input row ih, the next one consumed
    uint32_t nxt2[kAhead == 2 && !kRing ? NCOL : 1];  // input row ih + 1 when two rows are in flight
    if constexpr (kRing) {
        DW_INT8_UNROLL
        for (int j = 0; j < kAhead; ++j) copy_row(ih + j, x_off + j * x_pitch, j);
    } else {
        dw_int8_load_row<NCOL>(prm.x, x_off, g.c, row_in(ih), col_ok, nxt);
        if constexpr (kAhead == 2) dw_int8_load_row<NCOL>(prm.x, x_off + x_pitch, g.c, row_in(ih + 1), col_ok, nxt2);
    }
    // Step p (slot U of the A-step cycle): its S input rows, then output p is complete.
    auto step = [&](auto u_, int p, int live_from) {
        constexpr int U = decltype(u_)::value;
        dw_int8_static_for<S>([&](auto m_) {
            constexpr int M = decltype(m_)::value;
            uint32_t pk[4][NW];
            if constexpr (kRing) {
                // Row ih + kAhead into the slot of the row two before this one; then wait for row ih alone.
                const int ahead = slot + kAhead < kSlots ? slot + kAhead : slot + kAhead - kSlots;
                copy_row(ih + kAhead, x_off + kAhead * x_pitch, ahead);
                dw_int8_copy_wait<kAhead>();
                const uint32_t* src = ring + slot * NCOL * ring_stride;
                DW_INT8_UNROLL
                for (int i = 0; i < NCOL; ++i) nxt[i] = src[i * ring_stride];
                slot = slot + 1 < kSlots ? slot + 1 : 0;
            }
            dw_int8_transpose<NCOL, NW>(nxt, pk);
            ++ih, x_off += x_pitch;  // prefetch the following row(s) while this one is multiplied
            if constexpr (!kRing && kAhead == 2) {
                DW_INT8_UNROLL
                for (int i = 0; i < NCOL; ++i) nxt[i] = nxt2[i];
                dw_int8_load_row<NCOL>(prm.x, x_off + x_pitch, g.c, row_in(ih + 1), col_ok, nxt2);
            } else if constexpr (!kRing) {
                dw_int8_load_row<NCOL>(prm.x, x_off, g.c, row_in(ih), col_ok, nxt);
            }
            if constexpr (kStream)
                DwInt8RowUpdate<K, S, TW, U, M>::streaming(pk, fstream, cwords, bias, live_from, acc);
            else
                DwInt8RowUpdate<K, S, TW, U, M>::with_filters(pk, f, bias, live_from, acc);
        });
        if (p >= co.p0) dw_int8_store_row<TW, OUT>(prm, co, prm.chan + 4 * co.cw, y_off, acc[U]);
        y_off += y_pitch;
    };
    dw_int8_walk<A>(p_begin, co.p0, co.p_end, step);
}

// ---- the generic thread program: one output element, any geometry, any C ----

template <DwInt8Out OUT>
__host__ __device__ void dw_int8_generic_thread(const DwInt8Params& prm, int64_t e) {
    const ConvGeometry& g = prm.g;
    int64_t rest = e;
    const int c = static_cast<int>(rest % g.c);
    rest /= g.c;
    const int q = static_cast<int>(rest % g.q);
    rest /= g.q;
    const int p = static_cast<int>(rest % g.p);
    const int n = static_cast<int>(rest / g.p);
    const int cwords = (g.c + 3) / 4;
    int32_t acc = prm.bias_i32 ? dw_int8_ldg(prm.bias_i32 + c) : 0;
    for (int r = 0; r < g.r; ++r) {
        const int ih = p * g.stride_h - g.pad_h + r * g.dil_h;
        if (ih < 0 || ih >= g.h) continue;
        const int8_t* xrow = prm.x + (int64_t{n} * g.h + ih) * g.w * g.c + c;
        for (int s = 0; s < g.s; ++s) {
            const int iw = q * g.stride_w - g.pad_w + s * g.dil_w;
            if (iw < 0 || iw >= g.w) continue;
            const int xv = dw_int8_ldg(xrow + int64_t{iw} * g.c);
            const int wv = dw_int8_ldg(prm.w + depthwise_int8_packed_index(c, r, s, g.s, cwords));
            acc = dw_int8_add_wrap(acc, xv * wv);
        }
    }
    const float v = dw_int8_value(acc, dw_int8_channel(prm.chan, c));
    if constexpr (OUT == DwInt8Out::int8)
        static_cast<int8_t*>(prm.y)[e] = static_cast<int8_t>(dw_int8_bits(v) & 0xffu);
    else
        static_cast<uint16_t*>(prm.y)[e] = dw_int8_half_bits(v);
}

}  // namespace strata::cuda
