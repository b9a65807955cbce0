// pool_kernel.cu: the pooling kernels of pool.h. Windowed pooling: threads walk the output in memory order (in nhwc,
// neighbouring threads read neighbouring channels: coalesced), each thread V channels in 16-byte accesses where C
// allows. Global pooling of row-major inputs: one warp per contiguous plane (channels-last inputs take the spatially
// split kernel of global_pool_split.cu).
#include <cstdint>

#include "backends/cuda/kernels/common/dtype.cuh"
#include "backends/cuda/kernels/pool/pool.h"

namespace strata::cuda {
namespace {

__device__ __forceinline__ int ceil_div(int a, int b) {
    return a >= 0 ? (a + b - 1) / b : -((-a) / b);
}

struct TapRange {
    int lo, hi;
};
// The taps t in [0, k) of output o whose position o*stride - pad + t*dil lies in [lo, hi).
__device__ __forceinline__ TapRange taps_within(int o, int stride, int pad, int dil, int k, int lo, int hi) {
    int start = o * stride - pad;
    int first = max(0, ceil_div(lo - start, dil));
    int last = min(k, ceil_div(hi - start, dil));
    return {first, max(first, last)};
}

__device__ __forceinline__ float max_nan(float best, float v) {
    return isnan(v) || v > best ? v : best;
}

// V channels of one element, loaded and stored as one access (V divides C and the pointers are aligned).
template <class T, int V>
struct alignas(sizeof(T) * V) Pack {
    T v[V];
};

// Each thread computes V neighbouring channels of one output position (V > 1 only in nhwc, where they are
// contiguous); threads walk the output in memory order.
template <class T, bool Nhwc, int V>
__global__ void pool2d_kernel(PoolParams p, const T* __restrict__ x, T* __restrict__ y) {
    const int groups = p.c / V;
    const uint32_t total = p.total / V;
    for (uint32_t idx = blockIdx.x * blockDim.x + threadIdx.x; idx < total; idx += gridDim.x * blockDim.x) {
        int n, c, oh, ow;
        uint32_t t = idx;
        if (Nhwc) {
            c = (t % groups) * V, t /= groups;
            ow = t % p.out_w, t /= p.out_w;
            oh = t % p.out_h, n = t / p.out_h;
        } else {
            ow = t % p.out_w, t /= p.out_w;
            oh = t % p.out_h, t /= p.out_h;
            c = t % p.c, n = t / p.c;
        }
        TapRange rows = taps_within(oh, p.stride_h, p.pad_top, p.dil_h, p.k_h, 0, p.in_h);
        TapRange cols = taps_within(ow, p.stride_w, p.pad_left, p.dil_w, p.k_w, 0, p.in_w);
        // Element (n, c, h, w) of the input sits at base + h*row_step + w*col_step.
        const int64_t plane = static_cast<int64_t>(p.in_h) * p.in_w;
        const int64_t base =
            Nhwc ? static_cast<int64_t>(n) * plane * p.c + c : (static_cast<int64_t>(n) * p.c + c) * plane;
        const int64_t col_step = Nhwc ? p.c : 1, row_step = col_step * p.in_w;
        float best[V], sum[V];
#pragma unroll
        for (int k = 0; k < V; ++k) best[k] = -INFINITY, sum[k] = 0.0f;
        for (int kh = rows.lo; kh < rows.hi; ++kh) {
            const T* row = x + base + static_cast<int64_t>(oh * p.stride_h - p.pad_top + kh * p.dil_h) * row_step;
            for (int kw = cols.lo; kw < cols.hi; ++kw) {
                const int64_t w = ow * p.stride_w - p.pad_left + kw * p.dil_w;
                const Pack<T, V> v = *reinterpret_cast<const Pack<T, V>*>(row + w * col_step);
#pragma unroll
                for (int k = 0; k < V; ++k) {
                    float f = to_float(v.v[k]);
                    best[k] = max_nan(best[k], f);
                    sum[k] += f;
                }
            }
        }
        int count = (rows.hi - rows.lo) * (cols.hi - cols.lo);
        if (!p.max && p.count_include_pad) {
            TapRange pr = taps_within(oh, p.stride_h, p.pad_top, p.dil_h, p.k_h, -p.pad_top, p.in_h + p.pad_bottom);
            TapRange pc = taps_within(ow, p.stride_w, p.pad_left, p.dil_w, p.k_w, -p.pad_left, p.in_w + p.pad_right);
            count = (pr.hi - pr.lo) * (pc.hi - pc.lo);
        }
        Pack<T, V> out;
#pragma unroll
        for (int k = 0; k < V; ++k)
            out.v[k] = from_float<T>(p.max ? best[k] : (count > 0 ? sum[k] / static_cast<float>(count) : 0.0f));
        *reinterpret_cast<Pack<T, V>*>(y + static_cast<int64_t>(idx) * V) = out;
    }
}

// nchw: one warp per (n, c) plane of `inner` contiguous elements.
template <class T>
__global__ void global_pool_planes_kernel(bool is_max, int64_t planes, int64_t inner, const T* __restrict__ x,
                                          T* __restrict__ y) {
    const int lane = threadIdx.x & 31;
    const int64_t warps = static_cast<int64_t>(gridDim.x) * (blockDim.x / 32);
    for (int64_t plane = static_cast<int64_t>(blockIdx.x) * (blockDim.x / 32) + threadIdx.x / 32; plane < planes;
         plane += warps) {
        const T* src = x + plane * inner;
        float best = -INFINITY, sum = 0.0f;
        for (int64_t i = lane; i < inner; i += 32) {
            float v = to_float(src[i]);
            best = max_nan(best, v);
            sum += v;
        }
        for (int off = 16; off > 0; off >>= 1) {
            best = max_nan(best, __shfl_xor_sync(0xffffffffu, best, off));
            sum += __shfl_xor_sync(0xffffffffu, sum, off);
        }
        if (lane == 0) y[plane] = from_float<T>(is_max ? best : (inner > 0 ? sum / static_cast<float>(inner) : 0.0f));
    }
}

// 16 bytes of channels per thread where C and both pointers allow it.
template <class T>
bool channel_vectors(int64_t c, const void* x, const void* y) {
    constexpr int kV = 16 / sizeof(T);
    return c % kV == 0 && reinterpret_cast<uintptr_t>(x) % 16 == 0 && reinterpret_cast<uintptr_t>(y) % 16 == 0;
}

}  // namespace

void launch_pool2d(DType dtype, bool nhwc, const PoolParams& p, const void* x, void* y, int blocks,
                   cudaStream_t stream) {
    if (p.total == 0) return;
    dispatch_float(dtype, [&](auto zero) {
        using T = decltype(zero);
        constexpr int kV = 16 / sizeof(T);
        const T* in = static_cast<const T*>(x);
        T* out = static_cast<T*>(y);
        if (!nhwc)
            pool2d_kernel<T, false, 1><<<blocks, kPoolThreads, 0, stream>>>(p, in, out);
        else if (channel_vectors<T>(p.c, x, y))
            pool2d_kernel<T, true, kV><<<(blocks + kV - 1) / kV, kPoolThreads, 0, stream>>>(p, in, out);
        else
            pool2d_kernel<T, true, 1><<<blocks, kPoolThreads, 0, stream>>>(p, in, out);
    });
}

void launch_global_pool(DType dtype, bool max, int64_t n, int64_t c, int64_t inner, const void* x, void* y,
                        int sm_count, cudaStream_t stream) {
    if (n * c == 0) return;
    dispatch_float(dtype, [&](auto zero) {
        using T = decltype(zero);
        const T* in = static_cast<const T*>(x);
        T* out = static_cast<T*>(y);
        int64_t warps_per_block = kPoolThreads / 32, planes = n * c;
        int64_t blocks = (planes + warps_per_block - 1) / warps_per_block;
        blocks = blocks < int64_t{sm_count} * 32 ? blocks : int64_t{sm_count} * 32;
        global_pool_planes_kernel<T>
            <<<static_cast<unsigned>(blocks), kPoolThreads, 0, stream>>>(max, planes, inner, in, out);
    });
}

}  // namespace strata::cuda
