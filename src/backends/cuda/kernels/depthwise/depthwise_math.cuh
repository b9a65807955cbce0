// depthwise_math.cuh: what the tiled depthwise kernels multiply with: vectors of VEC elements moved as one aligned
// access, the two arithmetic policies, and where filter taps come from.
//
// A depthwise layer does K*K multiply-adds per output but moves only a few bytes per output, so at DRAM speed the
// kernel must spend only ~10 instructions per output. FloatMath widens each element to float (fp32, and bf16 whose
// fp32 accumulation keeps its 8-bit mantissa from adding up rounding); Half2Math keeps fp16 pairs and accumulates
// with HFMA2: two products per instruction and no conversions. Its fp16 sums of 9-49 products err by a few fp16
// ulps of the largest partial sum, of the order of the output's own fp16 rounding and well inside fp16's 1e-2
// budget.
#pragma once

#include <cuda_fp16.h>

#include <cstring>
#include <type_traits>

#include "backends/cuda/kernels/common/dtype.cuh"

namespace strata::cuda::dw {

template <int Bytes>
struct RawVec;
template <>
struct RawVec<16> {
    using type = uint4;
};
template <>
struct RawVec<8> {
    using type = uint2;
};
template <>
struct RawVec<4> {
    using type = unsigned int;
};
template <>
struct RawVec<2> {
    using type = unsigned short;
};

/// VEC elements of T as they sit in memory: one aligned load or store.
template <class T, int VEC>
using Raw = typename RawVec<sizeof(T) * VEC>::type;

template <class T, int VEC>
__device__ __forceinline__ void widen(const Raw<T, VEC>& raw, float (&out)[VEC]) {
    T vals[VEC];
    memcpy(vals, &raw, sizeof(raw));
#pragma unroll
    for (int v = 0; v < VEC; ++v) out[v] = to_float(vals[v]);
}

template <class T, int VEC>
__device__ __forceinline__ Raw<T, VEC> narrow(const float (&in)[VEC]) {
    T vals[VEC];
#pragma unroll
    for (int v = 0; v < VEC; ++v) vals[v] = from_float<T>(in[v]);
    Raw<T, VEC> raw;
    memcpy(&raw, vals, sizeof(raw));
    return raw;
}

/// Every element as float; taps staged as float.
template <class T, int VEC>
struct FloatMath {
    static constexpr int kLanes = VEC;  ///< accumulator registers per vector
    using Acc = float;
    using Tap = float;  ///< a filter tap as staged in shared memory
    static __device__ __forceinline__ Acc zero() { return 0.0f; }
    static __device__ __forceinline__ void unpack(const Raw<T, VEC>& raw, Acc (&x)[kLanes]) { widen<T, VEC>(raw, x); }
    static __device__ __forceinline__ Acc fma(Acc x, Acc w, Acc a) { return fmaf(x, w, a); }
    static __device__ __forceinline__ Acc mul(Acc x, Acc w) { return x * w; }
    static __device__ __forceinline__ Tap stage(T w) { return to_float(w); }
    static __device__ __forceinline__ void to_floats(const Acc (&a)[kLanes], float (&out)[VEC]) {
#pragma unroll
        for (int v = 0; v < VEC; ++v) out[v] = a[v];
    }
};

/// fp16 pairs, HFMA2 accumulation; taps staged as fp16.
template <int VEC>
struct Half2Math {
    static_assert(VEC % 2 == 0, "Half2Math needs pairs");
    static constexpr int kLanes = VEC / 2;
    using Acc = __half2;
    using Tap = __half;
    static __device__ __forceinline__ Acc zero() { return __float2half2_rn(0.0f); }
    static __device__ __forceinline__ void unpack(const Raw<__half, VEC>& raw, Acc (&x)[kLanes]) {
        memcpy(x, &raw, sizeof(raw));
    }
    static __device__ __forceinline__ Acc fma(Acc x, Acc w, Acc a) { return __hfma2(x, w, a); }
    static __device__ __forceinline__ Acc mul(Acc x, Acc w) { return __hmul2(x, w); }
    static __device__ __forceinline__ Tap stage(__half w) { return w; }
    static __device__ __forceinline__ void to_floats(const Acc (&a)[kLanes], float (&out)[VEC]) {
#pragma unroll
        for (int l = 0; l < kLanes; ++l) {
            const float2 f = __half22float2(a[l]);
            out[2 * l] = f.x, out[2 * l + 1] = f.y;
        }
    }
};

/// The arithmetic of a tiled kernel for (T, VEC): fp16 pairs where there are pairs, float otherwise.
template <class T, int VEC, bool Pairs = std::is_same_v<T, __half>&& VEC % 2 == 0>
struct MathFor {
    using type = FloatMath<T, VEC>;
};
template <class T, int VEC>
struct MathFor<T, VEC, true> {
    using type = Half2Math<VEC>;
};

/// Filter taps from shared memory, staged as Math::Tap [K*K][block channels] (tiled NHWC): one vector load per tap.
template <class Math, int VEC>
struct SharedTaps {
    static constexpr bool kOneRowAhead = false;
    const typename Math::Tap* base;  ///< this thread's first channel in tap 0
    int tap_stride;                  ///< channels per block
    /// Hides the stride from the compiler so that it reloads the taps each row (K*K shared loads) instead of
    /// hoisting all K*K of them into registers: 36 registers for 3x3 in fp16 pairs, 100-200 for 5x5 and 7x7, which
    /// cost occupancy or spill.
    __device__ __forceinline__ void reload_each_row() { asm volatile("" : "+r"(tap_stride)); }
    __device__ __forceinline__ void fetch() {}  ///< read at each use instead
    __device__ __forceinline__ void load(int tap, typename Math::Acc (&w)[Math::kLanes]) const {
        static_assert(sizeof(w) == VEC * sizeof(typename Math::Tap), "a tap vector is VEC staged taps");
        constexpr int kBytes = sizeof(w), kChunk = kBytes < 16 ? kBytes : 16;  // 16-byte loads at most
        using Chunk = typename RawVec<kChunk>::type;
        const char* src = reinterpret_cast<const char*>(base + tap * tap_stride);
        char* dst = reinterpret_cast<char*>(w);
#pragma unroll
        for (int b = 0; b < kBytes; b += kChunk) {
            const Chunk c = *reinterpret_cast<const Chunk*>(src + b);
            memcpy(dst + b, &c, kChunk);
        }
    }
};

// NOTE [depthwise register taps]
// SharedTaps reloads every tap on every input row: for 5x5 in 16-byte vectors that is 25 shared loads a row beside
// ~100 HFMA2, and the 400 SASS instructions a row of dw_tiled_nhwc_kernel<__half, 8, 5, 1, 2> left the 5x5 cases
// instruction-bound at 37-68% of the copy bandwidth (H100, 2026-12-06). With 8-byte vectors (4 fp16 channels as two
// half2, or 2 floats) a thread's K*K taps take 2 registers each, 50 for 5x5, and fit beside the accumulators and
// rows: the taps are read from shared memory once, after the block staged them, and a row is its loads, its
// multiplies and its stores. The price is twice the threads per byte moved, each with its own strip bookkeeping.
/// A thread's K*K tap vectors held in registers, read once from the block's staged taps by fetch().
template <class Math, int VEC, int K>
struct RegisterTaps {
    /// The 5x5 taps' 50 registers leave no room for two rows in flight: with them the kernels spilled (sm_90,
    /// 2026-12-06: fp16 stride 1 252 bytes of spill stores), so their walk keeps one row ahead.
    static constexpr bool kOneRowAhead = K > 3;
    SharedTaps<Math, VEC> staged;
    typename Math::Acc w[K * K][Math::kLanes];
    __device__ __forceinline__ void reload_each_row() {}
    /// After the block has staged its taps (and passed the barrier that follows).
    __device__ __forceinline__ void fetch() {
#pragma unroll
        for (int tap = 0; tap < K * K; ++tap) staged.load(tap, w[tap]);
    }
    __device__ __forceinline__ void load(int tap, typename Math::Acc (&out)[Math::kLanes]) const {
#pragma unroll
        for (int l = 0; l < Math::kLanes; ++l) out[l] = w[tap][l];
    }
};

/// Filter taps of one channel straight from global memory (tiled NCHW: the lanes of a warp share the channel, so
/// the loads broadcast from L1). Read-only loads: plain ones may alias Y, which the walk stores between rows, so the
/// compiler reloaded every tap on every row, each load issued only when the row before it was done.
template <class T, int K>
struct GlobalTaps {
    static constexpr bool kOneRowAhead = false;
    const T* base;  ///< the channel's tap (0, 0)
    int64_t r_stride, s_stride;
    /// Starts the channel's first and last taps towards L1, to be called before the first rows are loaded: the first
    /// use of a tap then waits on the same memory round trip as those rows instead of taking one of its own.
    __device__ __forceinline__ void prefetch() const {
        asm volatile("prefetch.global.L1 [%0];" ::"l"(base));
        asm volatile("prefetch.global.L1 [%0];" ::"l"(base + (K - 1) * r_stride + (K - 1) * s_stride));
    }
    __device__ __forceinline__ void reload_each_row() {}
    __device__ __forceinline__ void fetch() {}
    __device__ __forceinline__ void load(int tap, float (&w)[1]) const {
        w[0] = to_float(__ldg(base + (tap / K) * r_stride + (tap % K) * s_stride));
    }
};

}  // namespace strata::cuda::dw
