// depthwise_kernel.cuh: the depthwise kernels of depthwise.h and their typed launcher, instantiated once per dtype
// by depthwise_f32.cu / depthwise_f16.cu / depthwise_bf16.cu.
//
// NOTE [depthwise rolling rows]
// A thread owns output rows p_first..p_end-1 of one strip (COLS columns, VEC channels). Output row p reads input rows
// p*S - pad + r, r = 0..K-1. Walking p upwards, only S input rows are new at each step (offsets K-S..K-1 of row p's
// window); a new row at offset r_in also lies in the windows of rows p+1, p+2, ... at offsets r_in - S, r_in - 2S, ...
// So each input row is loaded once and multiplied into A = (K-1)/S + 1 accumulator rows: acc[d] holds row p+d. After
// the step acc[0] (row p) is complete: it is stored and the accumulators shift down. The walk starts A-1 steps before
// p_first so that the first row also sees its top taps (the products for rows above the strip are dropped).
#pragma once

#include <cstring>

#include "backends/cuda/cuda_check.h"
#include "backends/cuda/kernels/conv/conv_epilogue.cuh"
#include "backends/cuda/kernels/depthwise/depthwise.h"

namespace strata::cuda::dw {

constexpr int kGenericThreads = 256;

template <int Bytes> struct RawVec;
template <> struct RawVec<16> { using type = uint4; };
template <> struct RawVec<8> { using type = uint2; };
template <> struct RawVec<4> { using type = unsigned int; };
template <> struct RawVec<2> { using type = unsigned short; };

/// VEC consecutive elements of T, loaded as one aligned access and widened to float.
template <class T, int VEC>
__device__ __forceinline__ void load_vec(const T* p, float (&out)[VEC]) {
    using Raw = typename RawVec<sizeof(T) * VEC>::type;
    const Raw raw = __ldg(reinterpret_cast<const Raw*>(p));
    T vals[VEC];
    memcpy(vals, &raw, sizeof(raw));
#pragma unroll
    for (int v = 0; v < VEC; ++v) out[v] = to_float(vals[v]);
}

template <class T, int VEC>
__device__ __forceinline__ void store_vec(T* p, const float (&in)[VEC]) {
    using Raw = typename RawVec<sizeof(T) * VEC>::type;
    T vals[VEC];
#pragma unroll
    for (int v = 0; v < VEC; ++v) vals[v] = from_float<T>(in[v]);
    Raw raw;
    memcpy(&raw, vals, sizeof(raw));
    *reinterpret_cast<Raw*>(p) = raw;
}

/// y[off..off+VEC) = act(acc + bias[c0..] + residual[off..]) for VEC channels that are contiguous (stride 1).
template <class T, int VEC>
__device__ __forceinline__ void store_epilogue(const EpilogueParams& e, const float (&acc)[VEC], int c0, T* y,
                                               int64_t off) {
    float res[VEC] = {};
    if (e.residual) load_vec<T, VEC>(static_cast<const T*>(e.residual) + off, res);
    float out[VEC];
#pragma unroll
    for (int v = 0; v < VEC; ++v) {
        float a = acc[v] + res[v];
        if (e.bias) a += e.bias[c0 + v];
        out[v] = apply_activation(e.act, a);
    }
    store_vec<T, VEC>(y + off, out);
}

/// Filter taps from shared memory, staged as float [K*K][block channels] (tiled NHWC).
template <int VEC>
struct SharedTaps {
    const float* base;  ///< this thread's first channel in tap 0
    int tap_stride;     ///< channels per block
    __device__ __forceinline__ void load(int tap, float (&wv)[VEC]) const {
        const float* p = base + tap * tap_stride;
        if constexpr (VEC % 4 == 0) {
#pragma unroll
            for (int v = 0; v < VEC; v += 4) {
                const float4 f = *reinterpret_cast<const float4*>(p + v);
                wv[v] = f.x, wv[v + 1] = f.y, wv[v + 2] = f.z, wv[v + 3] = f.w;
            }
        } else {
#pragma unroll
            for (int v = 0; v < VEC; ++v) wv[v] = p[v];
        }
    }
};

/// Filter taps of one channel straight from global memory (tiled NCHW: the lanes of a warp share the channel, so
/// the loads broadcast from L1).
template <class T, int K>
struct GlobalTaps {
    const T* base;  ///< the channel's tap (0, 0)
    int64_t r_stride, s_stride;
    __device__ __forceinline__ void load(int tap, float (&wv)[1]) const {
        wv[0] = to_float(base[(tap / K) * r_stride + (tap % K) * s_stride]);
    }
};

/// VEC elements of T as they sit in memory, widened to float only when used, so a prefetched row costs half the
/// registers in 16-bit types.
template <class T, int VEC>
using Raw = typename RawVec<sizeof(T) * VEC>::type;

template <class T, int VEC>
__device__ __forceinline__ void widen(const Raw<T, VEC>& raw, float (&out)[VEC]) {
    T vals[VEC];
    memcpy(vals, &raw, sizeof(raw));
#pragma unroll
    for (int v = 0; v < VEC; ++v) out[v] = to_float(vals[v]);
}

/// One input row's kInCols vectors starting at column iw0 (zero outside the map: all-zero bits are +0 in every float
/// type); nothing is read when the row is outside the map.
template <class T, int VEC, int N>
__device__ __forceinline__ void load_row(const DepthwiseParams& prm, const T* xb, int ih, int iw0, Raw<T, VEC> (&row)[N]) {
    const bool row_in = ih >= 0 && ih < prm.g.h;
#pragma unroll
    for (int j = 0; j < N; ++j) {
        const int iw = iw0 + j;
        row[j] = Raw<T, VEC>{};
        if (row_in && iw >= 0 && iw < prm.g.w)
            row[j] = __ldg(reinterpret_cast<const Raw<T, VEC>*>(xb + ih * prm.x_stride[2] + iw * prm.x_stride[3]));
    }
}

/// One strip of one thread: rows [p_first, p_end) x columns [q0, q0 + COLS) x channels [c0, c0 + VEC), with the
/// rolling accumulators of NOTE [depthwise rolling rows]. xb points at (n, c0) of X, y_base is the offset of (n, c0)
/// in Y. The input rows are walked in order, the next one loading while the current one is multiplied.
template <class T, int VEC, int K, int S, int COLS, class Taps>
__device__ __forceinline__ void dw_strip(const DepthwiseParams& prm, const Taps& taps, const T* xb, int64_t y_base,
                                         int c0, int q0, int p_first, int p_end) {
    constexpr int A = (K - 1) / S + 1;
    constexpr int kInCols = (COLS - 1) * S + K;
    const ConvGeometry& g = prm.g;
    const int iw0 = q0 * S - g.pad_w;
    // Row (p, t) of the walk is input row p*S - pad + K - S + t: consecutive rows, so the next is ih + 1.
    const int ih_last = (p_end - 1) * S - g.pad_h + K - 1;
    int ih = (p_first - (A - 1)) * S - g.pad_h + K - S;
    Raw<T, VEC> next[kInCols];
    load_row<T, VEC>(prm, xb, ih, iw0, next);
    float acc[A][COLS][VEC] = {};
    for (int p = p_first - (A - 1); p < p_end; ++p) {
#pragma unroll
        for (int t = 0; t < S; ++t, ++ih) {
            const int r_in = K - S + t;
            Raw<T, VEC> cur[kInCols];
#pragma unroll
            for (int j = 0; j < kInCols; ++j) cur[j] = next[j];
            if (ih < ih_last) load_row<T, VEC>(prm, xb, ih + 1, iw0, next);
            if (ih < 0 || ih >= g.h) continue;  // padding rows add nothing
            float xv[kInCols][VEC];
#pragma unroll
            for (int j = 0; j < kInCols; ++j) widen<T, VEC>(cur[j], xv[j]);
#pragma unroll
            for (int d = 0; d < A; ++d) {
                const int rr = r_in - S * d;
                if (rr < 0) continue;
#pragma unroll
                for (int cc = 0; cc < K; ++cc) {
                    float wv[VEC];
                    taps.load(rr * K + cc, wv);
#pragma unroll
                    for (int c = 0; c < COLS; ++c)
#pragma unroll
                        for (int v = 0; v < VEC; ++v) acc[d][c][v] = fmaf(xv[c * S + cc][v], wv[v], acc[d][c][v]);
                }
            }
        }
        if (p >= p_first) {
            T* y = static_cast<T*>(prm.y);
#pragma unroll
            for (int c = 0; c < COLS; ++c) {
                const int q = q0 + c;
                if (q < g.q)
                    store_epilogue<T, VEC>(prm.epilogue, acc[0][c], c0, y,
                                           y_base + p * prm.y_stride[2] + q * prm.y_stride[3]);
            }
        }
#pragma unroll
        for (int d = 0; d + 1 < A; ++d)
#pragma unroll
            for (int c = 0; c < COLS; ++c)
#pragma unroll
                for (int v = 0; v < VEC; ++v) acc[d][c][v] = acc[d + 1][c][v];
#pragma unroll
        for (int c = 0; c < COLS; ++c)
#pragma unroll
            for (int v = 0; v < VEC; ++v) acc[A - 1][c][v] = 0.0f;
    }
}

/// Launch arguments shared by both tiled kernels (strip counts precomputed on the host).
struct TiledArgs {
    DepthwiseParams prm;
    int rows = 1;          ///< output rows per strip
    int strips_q = 1;      ///< ceil(Q / COLS)
    int strips_p = 1;      ///< ceil(P / rows)
    int64_t strips = 0;    ///< nhwc: N * strips_p * strips_q; nchw: N * C * strips_p * strips_q
    int cvecs = 0;         ///< nhwc: C / VEC
};

// Grid: x over strips (block_y per block), y over channel blocks (blockDim.x vectors of VEC channels each). At least
// two blocks per SM (16 warps, registers capped at 128): fewer warps leave too few loads in flight to cover DRAM.
template <class T, int VEC, int K, int S, int COLS>
__global__ void __launch_bounds__(256, 2) dw_tiled_nhwc_kernel(TiledArgs a) {
    extern __shared__ float w_s[];  // [K*K][blockDim.x * VEC]
    const DepthwiseParams& prm = a.prm;
    const int block_c = blockDim.x * VEC;
    const int c_first = blockIdx.y * block_c;
    const T* w = static_cast<const T*>(prm.w);
    const int nthreads = blockDim.x * blockDim.y;
    for (int i = threadIdx.y * blockDim.x + threadIdx.x; i < K * K * block_c; i += nthreads) {
        const int tap = i / block_c, c = c_first + i % block_c;
        w_s[i] = c < prm.g.c ? to_float(w[c * prm.w_stride[0] + (tap / K) * prm.w_stride[2] +
                                          (tap % K) * prm.w_stride[3]])
                             : 0.0f;
    }
    __syncthreads();
    const int cvec = blockIdx.y * blockDim.x + threadIdx.x;
    const int64_t strip = int64_t{blockIdx.x} * blockDim.y + threadIdx.y;
    if (cvec >= a.cvecs || strip >= a.strips) return;
    const int sq = static_cast<int>(strip % a.strips_q);
    const int64_t rest = strip / a.strips_q;
    const int sp = static_cast<int>(rest % a.strips_p);
    const int n = static_cast<int>(rest / a.strips_p);
    const int c0 = cvec * VEC;
    const int p_first = sp * a.rows;
    const int p_end = min(p_first + a.rows, prm.g.p);
    const T* xb = static_cast<const T*>(prm.x) + n * prm.x_stride[0] + c0 * prm.x_stride[1];
    const int64_t y_base = n * prm.y_stride[0] + c0 * prm.y_stride[1];
    SharedTaps<VEC> taps{w_s + threadIdx.x * VEC, block_c};
    dw_strip<T, VEC, K, S, COLS>(prm, taps, xb, y_base, c0, sq * COLS, p_first, p_end);
}

// One thread per strip of one channel; strips of a row are neighbours so that lanes walk along W.
template <class T, int K, int S, int COLS>
__global__ void __launch_bounds__(256) dw_tiled_nchw_kernel(TiledArgs a) {
    const DepthwiseParams& prm = a.prm;
    const int64_t strip = int64_t{blockIdx.x} * blockDim.x + threadIdx.x;
    if (strip >= a.strips) return;
    const int sq = static_cast<int>(strip % a.strips_q);
    int64_t rest = strip / a.strips_q;
    const int sp = static_cast<int>(rest % a.strips_p);
    rest /= a.strips_p;
    const int c = static_cast<int>(rest % prm.g.c);
    const int n = static_cast<int>(rest / prm.g.c);
    const int p_first = sp * a.rows;
    const int p_end = min(p_first + a.rows, prm.g.p);
    const T* xb = static_cast<const T*>(prm.x) + n * prm.x_stride[0] + c * prm.x_stride[1];
    const int64_t y_base = n * prm.y_stride[0] + c * prm.y_stride[1];
    GlobalTaps<T, K> taps{static_cast<const T*>(prm.w) + c * prm.w_stride[0], prm.w_stride[2], prm.w_stride[3]};
    dw_strip<T, 1, K, S, COLS>(prm, taps, xb, y_base, c, sq * COLS, p_first, p_end);
}

/// Any depthwise convolution: one thread per output element; k_fastest walks outputs channel-innermost (NHWC).
template <class T>
__global__ void dw_generic_kernel(DepthwiseParams prm, bool k_fastest) {
    const ConvGeometry& g = prm.g;
    const int64_t total = int64_t{g.n} * g.k * g.p * g.q;
    const T* x = static_cast<const T*>(prm.x);
    const T* w = static_cast<const T*>(prm.w);
    for (int64_t i = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; i < total; i += int64_t{gridDim.x} * blockDim.x) {
        int n, k, p, q;
        int64_t rest = i;
        if (k_fastest) {
            k = static_cast<int>(rest % g.k), rest /= g.k;
            q = static_cast<int>(rest % g.q), rest /= g.q;
            p = static_cast<int>(rest % g.p), rest /= g.p;
        } else {
            q = static_cast<int>(rest % g.q), rest /= g.q;
            p = static_cast<int>(rest % g.p), rest /= g.p;
            k = static_cast<int>(rest % g.k), rest /= g.k;
        }
        n = static_cast<int>(rest);
        const T* xc = x + n * prm.x_stride[0] + (k / prm.multiplier) * prm.x_stride[1];
        const T* wk = w + k * prm.w_stride[0];
        const int ih0 = p * g.stride_h - g.pad_h, iw0 = q * g.stride_w - g.pad_w;
        float acc = 0.0f;
        for (int r = 0; r < g.r; ++r) {
            const int ih = ih0 + r * g.dil_h;
            if (ih < 0 || ih >= g.h) continue;
            for (int s = 0; s < g.s; ++s) {
                const int iw = iw0 + s * g.dil_w;
                if (iw < 0 || iw >= g.w) continue;
                acc = fmaf(to_float(xc[ih * prm.x_stride[2] + iw * prm.x_stride[3]]),
                           to_float(wk[r * prm.w_stride[2] + s * prm.w_stride[3]]), acc);
            }
        }
        const int64_t off = n * prm.y_stride[0] + k * prm.y_stride[1] + p * prm.y_stride[2] + q * prm.y_stride[3];
        static_cast<T*>(prm.y)[off] = from_float<T>(conv_epilogue_value<T>(prm.epilogue, acc, k, off));
    }
}

/// Calls f(integral_constant K, integral_constant S) for the specialised (K, S); false when there is none.
template <class F>
bool with_kernel_stride(int k, int s, F&& f) {
    auto one = [&](auto kc, auto sc) {
        if (k != decltype(kc)::value || s != decltype(sc)::value) return false;
        f(kc, sc);
        return true;
    };
    using std::integral_constant;
    return one(integral_constant<int, 3>{}, integral_constant<int, 1>{}) ||
           one(integral_constant<int, 3>{}, integral_constant<int, 2>{}) ||
           one(integral_constant<int, 5>{}, integral_constant<int, 1>{}) ||
           one(integral_constant<int, 5>{}, integral_constant<int, 2>{}) ||
           one(integral_constant<int, 7>{}, integral_constant<int, 1>{}) ||
           one(integral_constant<int, 7>{}, integral_constant<int, 2>{});
}

inline TiledArgs tiled_args(const DepthwiseParams& prm, const DepthwiseTile& tile, bool nhwc) {
    const ConvGeometry& g = prm.g;
    TiledArgs a;
    a.prm = prm;
    a.rows = tile.rows;
    a.strips_q = (g.q + tile.cols - 1) / tile.cols;
    a.strips_p = (g.p + tile.rows - 1) / tile.rows;
    a.strips = int64_t{g.n} * a.strips_p * a.strips_q * (nhwc ? 1 : g.c);
    a.cvecs = nhwc ? g.c / tile.vec : 0;
    return a;
}

template <class T>
bool launch_tiled_nhwc(const DepthwiseParams& prm, const DepthwiseTile& tile, cudaStream_t stream) {
    constexpr int kWide = 16 / sizeof(T), kNarrow = 4 / sizeof(T);
    const TiledArgs a = tiled_args(prm, tile, true);
    const dim3 grid(static_cast<unsigned>((a.strips + tile.block_y - 1) / tile.block_y),
                    static_cast<unsigned>((a.cvecs + tile.block_x - 1) / tile.block_x));
    const dim3 block(tile.block_x, tile.block_y);
    const size_t smem = depthwise_smem_bytes(prm, tile);
    const bool wide = tile.vec == kWide;
    if (!wide && tile.vec != kNarrow) return false;  // no kernel for this width: the generic one runs
    return with_kernel_stride(prm.g.r, prm.g.stride_h, [&](auto kc, auto sc) {
        constexpr int K = decltype(kc)::value, S = decltype(sc)::value;
        auto go = [&](auto vc, auto cc) {
            dw_tiled_nhwc_kernel<T, decltype(vc)::value, K, S, decltype(cc)::value><<<grid, block, smem, stream>>>(a);
        };
        using std::integral_constant;
        if (wide && tile.cols == 2) go(integral_constant<int, kWide>{}, integral_constant<int, 2>{});
        else if (wide) go(integral_constant<int, kWide>{}, integral_constant<int, 1>{});
        else if (tile.cols == 2) go(integral_constant<int, kNarrow>{}, integral_constant<int, 2>{});
        else go(integral_constant<int, kNarrow>{}, integral_constant<int, 1>{});
    });
}

template <class T>
bool launch_tiled_nchw(const DepthwiseParams& prm, const DepthwiseTile& tile, cudaStream_t stream) {
    const TiledArgs a = tiled_args(prm, tile, false);
    const unsigned blocks = static_cast<unsigned>((a.strips + tile.block_x - 1) / tile.block_x);
    return with_kernel_stride(prm.g.r, prm.g.stride_h, [&](auto kc, auto sc) {
        constexpr int K = decltype(kc)::value, S = decltype(sc)::value;
        if (tile.cols == 4)
            dw_tiled_nchw_kernel<T, K, S, 4><<<blocks, tile.block_x, 0, stream>>>(a);
        else
            dw_tiled_nchw_kernel<T, K, S, 1><<<blocks, tile.block_x, 0, stream>>>(a);
    });
}

template <class T>
void launch_generic(const DepthwiseParams& prm, bool k_fastest, cudaStream_t stream) {
    const int64_t total = prm.g.out_pixels() * prm.g.k;
    const int64_t blocks = std::min<int64_t>((total + kGenericThreads - 1) / kGenericThreads, int64_t{1} << 20);
    dw_generic_kernel<T><<<static_cast<unsigned>(blocks), kGenericThreads, 0, stream>>>(prm, k_fastest);
}

/// The launcher each per-dtype .cu instantiates.
template <class T>
void launch_typed(const DepthwiseParams& prm, const DepthwiseTile& tile, cudaStream_t stream) {
    if (prm.g.out_pixels() * prm.g.k == 0) return;
    bool launched = false;
    if (tile.kind == DepthwiseKernelKind::tiled_nhwc) launched = launch_tiled_nhwc<T>(prm, tile, stream);
    if (tile.kind == DepthwiseKernelKind::tiled_nchw) launched = launch_tiled_nchw<T>(prm, tile, stream);
    if (!launched) launch_generic<T>(prm, prm.y_stride[1] == 1, stream);
}

}  // namespace strata::cuda::dw
