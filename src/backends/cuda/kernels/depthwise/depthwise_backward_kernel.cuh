// depthwise_backward_kernel.cuh: the depthwise backward kernels (depthwise_backward.h), float accumulation.
//   dgrad: each dX element gathers the dY elements whose windows cover it, through the flipped filter; with a stride
//     over 1 only the taps that land on an output are visited (dw_landing_taps), so no atomics and no wasted taps.
//   wgrad: stage 1 sums X * dY over one slice of the (n, p) rows for a few taps per block (block -> warp -> thread,
//     fixed order) into the workspace; stage 2 adds the slices in a fixed order. No atomics anywhere.
// Two thread mappings each (depthwise_backward_plan.h): planes (nchw: a warp walks the width of one (n, c) plane, so
// W reads are broadcasts and X / dY reads coalesce) and channels (nhwc: lanes along channels, V per 16-byte load).
// Both walk element strides, so either is correct for any layout; the plan picks the one that coalesces.
#pragma once

#include <cstdint>

#include "backends/cuda/kernels/common/dtype.cuh"
#include "backends/cuda/kernels/depthwise/depthwise_backward_plan.h"

namespace strata::cuda::dw_backward {

constexpr unsigned kFullMask = 0xffffffffu;

template <class T, int V>
struct alignas(sizeof(T) * V) Vec {
    T v[V];
};

template <class T, int V>
__device__ __forceinline__ void load_floats(const T* src, float (&out)[V]) {
    const Vec<T, V> v = *reinterpret_cast<const Vec<T, V>*>(src);
#pragma unroll
    for (int e = 0; e < V; ++e) out[e] = to_float(v.v[e]);
}

template <class T, int V>
__device__ __forceinline__ void store_floats(T* dst, const float (&in)[V]) {
    Vec<T, V> v;
#pragma unroll
    for (int e = 0; e < V; ++e) v.v[e] = from_float<T>(in[e]);
    *reinterpret_cast<Vec<T, V>*>(dst) = v;
}

// a / b rounded towards minus infinity (b > 0).
__device__ __forceinline__ int floor_div(int a, int b) {
    return a >= 0 ? a / b : -((b - 1 - a) / b);
}

// The filter taps of one spatial dim that carry input position i to an output o = (i + pad - t * dil) / stride,
// i.e. 0 <= o < outs and (i + pad - t * dil) a multiple of stride: first, first + step, ... up to last (none when
// first > last). Tap residues repeat every `step` = stride / gcd(stride, dil) taps, so the first landing tap at or
// after the lowest in-range one is within `step` of it.
struct Taps {
    int first, last, step;
};

__device__ __forceinline__ Taps landing_taps(int i, int pad, int stride, int dil, int taps, int outs) {
    Taps t{0, -1, 1};
    if (outs <= 0) return t;
    const int base = i + pad;
    int lo = max(0, -floor_div((outs - 1) * stride - base, dil));  // o <= outs - 1
    const int hi = min(taps - 1, floor_div(base, dil));            // o >= 0
    int step = 1;
    while ((step * dil) % stride != 0) ++step;
    for (int j = 0; j < step && lo <= hi; ++j, ++lo) {
        if ((base - lo * dil) % stride == 0) {  // base - lo * dil >= 0 here, since lo <= hi
            t.first = lo, t.last = hi, t.step = step;
            break;
        }
    }
    return t;
}

// ---------------------------------------------------------------------------------------------------------------
// dgrad, planes mapping. Block: kDwThreads / tpp planes (n, c) of tpp threads each; a thread computes one dX element
// at a time, grid-striding (gridDim.y) over its plane. The lanes of a warp share the plane: the W reads of a tap are
// one broadcast and the dY reads of neighbouring dX columns are neighbours.
template <class T>
__global__ void dgrad_planes_kernel(DepthwiseBackwardParams prm, int tpp) {
    const ConvGeometry& g = prm.g;
    const int64_t plane = int64_t{blockIdx.x} * (kDwThreads / tpp) + threadIdx.x / tpp;
    if (plane >= int64_t{g.n} * g.c) return;
    const int n = static_cast<int>(plane / g.c), c = static_cast<int>(plane % g.c), m = g.k / g.c;
    const T* __restrict__ dy = static_cast<const T*>(prm.dy) + n * prm.y_stride[0];
    const T* __restrict__ w = static_cast<const T*>(prm.w);
    T* __restrict__ dx = static_cast<T*>(prm.dx) + n * prm.x_stride[0] + c * prm.x_stride[1];
    const int hw = g.h * g.w;
    for (int i = blockIdx.y * tpp + threadIdx.x % tpp; i < hw; i += gridDim.y * tpp) {
        const int ih = i / g.w, iw = i % g.w;
        const Taps th = landing_taps(ih, g.pad_h, g.stride_h, g.dil_h, g.r, g.p);
        const Taps tw = landing_taps(iw, g.pad_w, g.stride_w, g.dil_w, g.s, g.q);
        float acc = 0.0f;
        for (int j = 0; j < m; ++j) {
            const int k = c * m + j;
            const T* dyk = dy + k * prm.y_stride[1];
            const T* wk = w + k * prm.w_stride[0];
            for (int r = th.first; r <= th.last; r += th.step) {
                const int p = (ih + g.pad_h - r * g.dil_h) / g.stride_h;
                for (int s = tw.first; s <= tw.last; s += tw.step) {
                    const int q = (iw + g.pad_w - s * g.dil_w) / g.stride_w;
                    acc += to_float(wk[r * prm.w_stride[2] + s * prm.w_stride[3]]) *
                           to_float(dyk[p * prm.y_stride[2] + q * prm.y_stride[3]]);
                }
            }
        }
        dx[ih * prm.x_stride[2] + iw * prm.x_stride[3]] = from_float<T>(acc);
    }
}

// dgrad, channels mapping. Block: blockDim.x lanes along channels (V channels each: one 16-byte load of dY and one
// store of dX; V > 1 only with multiplier 1), blockDim.y pixel rows. The block's W tile, floats [tap][local k],
// goes to shared memory once; then the block grid-strides (gridDim.y) over the N*H*W pixels.
template <class T, int V>
__global__ void dgrad_channels_kernel(DepthwiseBackwardParams prm) {
    extern __shared__ float4 smem4[];
    float* wt = reinterpret_cast<float*>(smem4);
    const ConvGeometry& g = prm.g;
    const int m = g.k / g.c, taps = g.r * g.s;
    const int tile_c = blockDim.x * V, tile_k = tile_c * m;
    const int c_first = blockIdx.x * tile_c;
    // Block level: the W tile. Neighbouring threads read neighbouring taps of one k (W is stored k-major).
    const T* __restrict__ w = static_cast<const T*>(prm.w);
    const int tid = threadIdx.y * blockDim.x + threadIdx.x;
    for (int i = tid; i < tile_k * taps; i += kDwThreads) {
        const int kk = i / taps, tap = i % taps, k = c_first * m + kk;
        wt[tap * tile_k + kk] =
            k < g.k ? to_float(w[k * prm.w_stride[0] + (tap / g.s) * prm.w_stride[2] + (tap % g.s) * prm.w_stride[3]])
                    : 0.0f;
    }
    __syncthreads();
    // Thread level: V channels of one pixel at a time.
    const int lc = threadIdx.x * V, c0 = c_first + lc;
    if (c0 >= g.c) return;
    const T* __restrict__ dy = static_cast<const T*>(prm.dy) + int64_t{c0} * m * prm.y_stride[1];
    T* __restrict__ dx = static_cast<T*>(prm.dx) + c0 * prm.x_stride[1];
    const int pixels = g.n * g.h * g.w;
    for (int pix = blockIdx.y * blockDim.y + threadIdx.y; pix < pixels; pix += gridDim.y * blockDim.y) {
        const int iw = pix % g.w, ih = (pix / g.w) % g.h, n = pix / (g.w * g.h);
        const Taps th = landing_taps(ih, g.pad_h, g.stride_h, g.dil_h, g.r, g.p);
        const Taps tw = landing_taps(iw, g.pad_w, g.stride_w, g.dil_w, g.s, g.q);
        float acc[V];
#pragma unroll
        for (int e = 0; e < V; ++e) acc[e] = 0.0f;
        const T* dyn = dy + n * prm.y_stride[0];
        for (int r = th.first; r <= th.last; r += th.step) {
            const int p = (ih + g.pad_h - r * g.dil_h) / g.stride_h;
            for (int s = tw.first; s <= tw.last; s += tw.step) {
                const int q = (iw + g.pad_w - s * g.dil_w) / g.stride_w;
                const T* src = dyn + p * prm.y_stride[2] + q * prm.y_stride[3];
                const float* wk = wt + (r * g.s + s) * tile_k + lc * m;
                if constexpr (V > 1) {  // multiplier 1, V % 4 == 0: float4 reads of the tile, no bank conflicts
                    float d[V];
                    load_floats<T, V>(src, d);
#pragma unroll
                    for (int e = 0; e < V; e += 4) {
                        const float4 w4 = *reinterpret_cast<const float4*>(wk + e);
                        acc[e] += w4.x * d[e], acc[e + 1] += w4.y * d[e + 1];
                        acc[e + 2] += w4.z * d[e + 2], acc[e + 3] += w4.w * d[e + 3];
                    }
                } else {
                    for (int j = 0; j < m; ++j) acc[0] += wk[j] * to_float(src[j * prm.y_stride[1]]);
                }
            }
        }
        store_floats<T, V>(dx + n * prm.x_stride[0] + ih * prm.x_stride[2] + iw * prm.x_stride[3], acc);
    }
}

// ---------------------------------------------------------------------------------------------------------------
// wgrad stage 1. A block sums, over the rows [row0, row0 + nrows) of its slice, for filter row r and taps
// s0 .. s0 + ns - 1, X[n, c, p*sh - ph + r*dh, q*sw - pw + s*dw] * dY[n, k, p, q], and writes one float per (k, r, s)
// to partial[(k * R * S + r * S + s) * slices + slice] (slice-fastest: stage 2 reads each sum's slices in a row).
struct SliceTaps {
    int slice, r, s0, ns, row0, nrows;
};

// Stage-1 block index, fastest first: s chunk, r, k tile, slice (blocks that share a slice's dY run together).
__device__ __forceinline__ SliceTaps slice_taps(const ConvGeometry& g, const DwWgradPlan& plan, int64_t& k_tile) {
    int64_t b = blockIdx.x;
    SliceTaps st;
    const int sc = static_cast<int>(b % plan.s_chunks);
    b /= plan.s_chunks;
    st.r = static_cast<int>(b % g.r);
    b /= g.r;
    k_tile = b % plan.k_tiles;
    st.slice = static_cast<int>(b / plan.k_tiles);
    st.s0 = sc * plan.s_chunk;
    st.ns = min(plan.s_chunk, g.s - st.s0);
    st.row0 = static_cast<int>(st.slice * plan.rows_per_slice);
    st.nrows = static_cast<int>(min(plan.rows_per_slice, plan.rows - st.row0));
    return st;
}

// wgrad stage 1, planes mapping: a block per (slice, k, r, s chunk); its threads take the slice's (row, q) pixels in
// turn (neighbouring lanes, neighbouring q), each keeping one accumulator per tap, then a fixed butterfly per warp
// and warp 0 adding the warps in order.
template <class T>
__global__ void wgrad_planes_kernel(DepthwiseBackwardParams prm, DwWgradPlan plan, float* __restrict__ partial) {
    constexpr int kChunk = dw_wgrad_s_chunk(1);
    constexpr int kWarps = kDwThreads / 32;
    __shared__ float warp_sums[kWarps][kChunk];
    const ConvGeometry& g = prm.g;
    int64_t k_tile;
    const SliceTaps st = slice_taps(g, plan, k_tile);
    const int k = static_cast<int>(k_tile), c = k / (g.k / g.c);
    const T* __restrict__ x = static_cast<const T*>(prm.x) + c * prm.x_stride[1];
    const T* __restrict__ dy = static_cast<const T*>(prm.dy) + k * prm.y_stride[1];
    float acc[kChunk];
#pragma unroll
    for (int j = 0; j < kChunk; ++j) acc[j] = 0.0f;
    const int count = st.nrows * g.q;
    for (int t = threadIdx.x; t < count; t += kDwThreads) {
        const int row = st.row0 + t / g.q, q = t % g.q;
        const int n = row / g.p, p = row % g.p;
        const int ih = p * g.stride_h - g.pad_h + st.r * g.dil_h;
        if (ih < 0 || ih >= g.h) continue;
        const float d = to_float(dy[n * prm.y_stride[0] + p * prm.y_stride[2] + q * prm.y_stride[3]]);
        const T* xrow = x + n * prm.x_stride[0] + ih * prm.x_stride[2];
        const int iw0 = q * g.stride_w - g.pad_w + st.s0 * g.dil_w;
#pragma unroll
        for (int j = 0; j < kChunk; ++j) {
            const int iw = iw0 + j * g.dil_w;
            if (j < st.ns && iw >= 0 && iw < g.w) acc[j] += to_float(xrow[iw * prm.x_stride[3]]) * d;
        }
    }
    // Warp level, then block level, each in a fixed order.
#pragma unroll
    for (int j = 0; j < kChunk; ++j)
        for (int off = 16; off > 0; off >>= 1) acc[j] += __shfl_xor_sync(kFullMask, acc[j], off);
    const int warp = threadIdx.x / 32;
    if (threadIdx.x % 32 == 0)
#pragma unroll
        for (int j = 0; j < kChunk; ++j) warp_sums[warp][j] = acc[j];
    __syncthreads();
    if (threadIdx.x < st.ns) {
        float sum = 0.0f;
        for (int i = 0; i < kWarps; ++i) sum += warp_sums[i][threadIdx.x];
        const int64_t tap = int64_t{k} * g.r * g.s + st.r * g.s + st.s0 + threadIdx.x;
        partial[tap * plan.slices + st.slice] = sum;
    }
}

// wgrad stage 1, channels mapping: a block per (slice, k tile, r, s chunk); blockDim.x lanes along output channels
// (V per 16-byte load of X and dY; V > 1 only with multiplier 1), blockDim.y (a power of two) rows taking the slice's
// pixels in turn. The rows meet in shared memory, one tap at a time, through a fixed tree.
template <class T, int V>
__global__ void wgrad_channels_kernel(DepthwiseBackwardParams prm, DwWgradPlan plan, float* __restrict__ partial) {
    constexpr int kChunk = dw_wgrad_s_chunk(V);
    __shared__ float rows_sum[kDwThreads * V];
    const ConvGeometry& g = prm.g;
    int64_t k_tile;
    const SliceTaps st = slice_taps(g, plan, k_tile);
    const int m = g.k / g.c;
    const int k0 = static_cast<int>(k_tile * blockDim.x * V) + threadIdx.x * V;
    const bool active = k0 < g.k;
    float acc[kChunk][V];
#pragma unroll
    for (int j = 0; j < kChunk; ++j)
#pragma unroll
        for (int e = 0; e < V; ++e) acc[j][e] = 0.0f;
    if (active) {
        const T* __restrict__ x = static_cast<const T*>(prm.x) + (k0 / m) * prm.x_stride[1];
        const T* __restrict__ dy = static_cast<const T*>(prm.dy) + k0 * prm.y_stride[1];
        const int count = st.nrows * g.q;
        for (int t = threadIdx.y; t < count; t += blockDim.y) {
            const int row = st.row0 + t / g.q, q = t % g.q;
            const int n = row / g.p, p = row % g.p;
            const int ih = p * g.stride_h - g.pad_h + st.r * g.dil_h;
            if (ih < 0 || ih >= g.h) continue;
            float d[V];
            load_floats<T, V>(dy + n * prm.y_stride[0] + p * prm.y_stride[2] + q * prm.y_stride[3], d);
            const T* xrow = x + n * prm.x_stride[0] + ih * prm.x_stride[2];
            const int iw0 = q * g.stride_w - g.pad_w + st.s0 * g.dil_w;
#pragma unroll
            for (int j = 0; j < kChunk; ++j) {
                const int iw = iw0 + j * g.dil_w;
                if (j < st.ns && iw >= 0 && iw < g.w) {
                    float xv[V];
                    load_floats<T, V>(xrow + iw * prm.x_stride[3], xv);
#pragma unroll
                    for (int e = 0; e < V; ++e) acc[j][e] += xv[e] * d[e];
                }
            }
        }
    }
    // Block level: for each tap, a tree over the rows (blockDim.y is a power of two), the same every run.
    const int cell = (threadIdx.y * blockDim.x + threadIdx.x) * V;
#pragma unroll
    for (int j = 0; j < kChunk; ++j) {
        if (j >= st.ns) break;  // uniform across the block
#pragma unroll
        for (int e = 0; e < V; ++e) rows_sum[cell + e] = acc[j][e];
        __syncthreads();
        for (int half = blockDim.y / 2; half > 0; half /= 2) {
            if (threadIdx.y < half)
#pragma unroll
                for (int e = 0; e < V; ++e) rows_sum[cell + e] += rows_sum[cell + half * blockDim.x * V + e];
            __syncthreads();
        }
        if (threadIdx.y == 0 && active) {
            for (int e = 0; e < V; ++e) {
                const int64_t tap = int64_t{k0 + e} * g.r * g.s + st.r * g.s + st.s0 + j;
                partial[tap * plan.slices + st.slice] = rows_sum[threadIdx.x * V + e];
            }
        }
        __syncthreads();  // row 0 has read the sums before the next tap overwrites them
    }
}

// wgrad stage 2: a warp per dW element; lanes add slices lane, lane + 32, ... in order, then a fixed butterfly. With
// no slices (N*P*Q == 0) dW is zero.
template <class T>
__global__ void wgrad_finish_kernel(DepthwiseBackwardParams prm, int64_t slices, const float* __restrict__ partial) {
    const ConvGeometry& g = prm.g;
    const int64_t total = int64_t{g.k} * g.r * g.s, taps = int64_t{g.r} * g.s;
    constexpr int kWarps = kDwThreads / 32;
    const int lane = threadIdx.x % 32;
    T* __restrict__ dw = static_cast<T*>(prm.dw);
    for (int64_t i = int64_t{blockIdx.x} * kWarps + threadIdx.x / 32; i < total; i += int64_t{gridDim.x} * kWarps) {
        float sum = 0.0f;
        for (int64_t z = lane; z < slices; z += 32) sum += partial[i * slices + z];
        for (int off = 16; off > 0; off >>= 1) sum += __shfl_xor_sync(kFullMask, sum, off);
        if (lane == 0) {
            const int64_t k = i / taps, tap = i % taps;
            dw[k * prm.w_stride[0] + (tap / g.s) * prm.w_stride[2] + (tap % g.s) * prm.w_stride[3]] =
                from_float<T>(sum);
        }
    }
}

}  // namespace strata::cuda::dw_backward
