// softmax_kernel.cu: the Softmax / LogSoftmax kernels (softmax.h), one read pass with an online max and sum
// (the sum is rescaled whenever the max grows) and one write pass, all in float.
#include <cstdint>

#include "backends/cuda/kernels/common/dtype.cuh"
#include "backends/cuda/kernels/softmax/softmax.h"

namespace strata::cuda {
namespace {

// Rows at least this long, when there are too few to give every SM several warps, get a block each.
constexpr int64_t kBlockRowLength = 2048;

struct MaxSum {
    float max = -INFINITY, sum = 0.0f;
};

__device__ __forceinline__ MaxSum add_value(MaxSum a, float v) {
    if (v > a.max) {
        a.sum = a.sum * expf(a.max - v) + 1.0f;  // expf(-inf) = 0 for the first value
        a.max = v;
    } else {
        a.sum += expf(v - a.max);
    }
    return a;
}

__device__ __forceinline__ MaxSum combine(MaxSum a, MaxSum b) {
    MaxSum r;
    r.max = fmaxf(a.max, b.max);
    float sa = a.sum == 0.0f ? 0.0f : a.sum * expf(a.max - r.max);
    float sb = b.sum == 0.0f ? 0.0f : b.sum * expf(b.max - r.max);
    r.sum = sa + sb;
    return r;
}

__device__ __forceinline__ float softmax_out(bool log, float v, const MaxSum& ms) {
    return log ? (v - ms.max) - logf(ms.sum) : expf(v - ms.max) / ms.sum;
}

template <class T>
__global__ void softmax_rows_kernel(SoftmaxParams p, const T* x, T* y) {
    const int lane = threadIdx.x & 31;
    const int64_t warps = static_cast<int64_t>(gridDim.x) * (blockDim.x / 32);
    for (int64_t row = static_cast<int64_t>(blockIdx.x) * (blockDim.x / 32) + threadIdx.x / 32; row < p.outer;
         row += warps) {
        const T* src = x + row * p.n;
        T* dst = y + row * p.n;
        MaxSum ms;
        for (int64_t j = lane; j < p.n; j += 32) ms = add_value(ms, to_float(src[j]));
        for (int off = 16; off > 0; off >>= 1) {
            MaxSum other{__shfl_xor_sync(0xffffffffu, ms.max, off), __shfl_xor_sync(0xffffffffu, ms.sum, off)};
            ms = combine(ms, other);
        }
        for (int64_t j = lane; j < p.n; j += 32) dst[j] = from_float<T>(softmax_out(p.log, to_float(src[j]), ms));
    }
}

// Long rows with few of them: one block per row, its warps' (max, sum) pairs meeting in shared memory.
template <class T>
__global__ void softmax_block_rows_kernel(SoftmaxParams p, const T* x, T* y) {
    __shared__ float warp_max[kSoftmaxThreads / 32], warp_sum[kSoftmaxThreads / 32];
    const int lane = threadIdx.x & 31, warp = threadIdx.x / 32;
    for (int64_t row = blockIdx.x; row < p.outer; row += gridDim.x) {
        const T* src = x + row * p.n;
        T* dst = y + row * p.n;
        MaxSum ms;
        for (int64_t j = threadIdx.x; j < p.n; j += blockDim.x) ms = add_value(ms, to_float(src[j]));
        for (int off = 16; off > 0; off >>= 1) {
            MaxSum other{__shfl_xor_sync(0xffffffffu, ms.max, off), __shfl_xor_sync(0xffffffffu, ms.sum, off)};
            ms = combine(ms, other);
        }
        __syncthreads();  // the previous row's readers are done with the shared pairs
        if (lane == 0) warp_max[warp] = ms.max, warp_sum[warp] = ms.sum;
        __syncthreads();
        MaxSum total;
        for (int w = 0; w < static_cast<int>(blockDim.x / 32); ++w)
            total = combine(total, MaxSum{warp_max[w], warp_sum[w]});
        for (int64_t j = threadIdx.x; j < p.n; j += blockDim.x)
            dst[j] = from_float<T>(softmax_out(p.log, to_float(src[j]), total));
    }
}

template <class T>
__global__ void softmax_columns_kernel(SoftmaxParams p, const T* x, T* y) {
    const int64_t columns = p.outer * p.inner, step = static_cast<int64_t>(gridDim.x) * blockDim.x;
    for (int64_t col = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; col < columns; col += step) {
        const int64_t o = col / p.inner, i = col - o * p.inner, base = o * p.n * p.inner + i;
        MaxSum ms;
        for (int64_t j = 0; j < p.n; ++j) ms = add_value(ms, to_float(x[base + j * p.inner]));
        for (int64_t j = 0; j < p.n; ++j)
            y[base + j * p.inner] = from_float<T>(softmax_out(p.log, to_float(x[base + j * p.inner]), ms));
    }
}

}  // namespace

void launch_softmax(DType dtype, const SoftmaxParams& p, const void* x, void* y, int sm_count, cudaStream_t stream) {
    if (p.outer * p.n * p.inner == 0) return;
    const int64_t cap = int64_t{sm_count} * 16;
    dispatch_float(dtype, [&](auto zero) {
        using T = decltype(zero);
        const T* in = static_cast<const T*>(x);
        T* out = static_cast<T*>(y);
        if (p.inner == 1 && p.n >= kBlockRowLength && p.outer < int64_t{sm_count} * 4) {
            int64_t blocks = p.outer < cap ? p.outer : cap;
            softmax_block_rows_kernel<T><<<static_cast<unsigned>(blocks), kSoftmaxThreads, 0, stream>>>(p, in, out);
        } else if (p.inner == 1) {
            int64_t blocks = (p.outer + kSoftmaxThreads / 32 - 1) / (kSoftmaxThreads / 32);
            blocks = blocks < cap ? blocks : cap;
            softmax_rows_kernel<T><<<static_cast<unsigned>(blocks), kSoftmaxThreads, 0, stream>>>(p, in, out);
        } else {
            int64_t blocks = (p.outer * p.inner + kSoftmaxThreads - 1) / kSoftmaxThreads;
            blocks = blocks < cap ? blocks : cap;
            softmax_columns_kernel<T><<<static_cast<unsigned>(blocks), kSoftmaxThreads, 0, stream>>>(p, in, out);
        }
    });
}

}  // namespace strata::cuda
