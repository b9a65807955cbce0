// reduce_kernel.cu: the Reduce kernel (reduce.h), thread-per-output and warp-per-output forms.
#include <cstdint>

#include "backends/cuda/kernels/common/dtype.cuh"
#include "backends/cuda/kernels/reduce/reduce.h"
#include "ir/attrs.h"

namespace strata::cuda {
namespace {

using ir::ReduceKind;

__device__ __forceinline__ float reduce_init(int kind) {
    switch (static_cast<ReduceKind>(kind)) {
        case ReduceKind::Max:
            return -INFINITY;
        case ReduceKind::Min:
            return INFINITY;
        default:
            return 0.0f;
    }
}

// NaN wins Max and Min, as in the reference.
__device__ __forceinline__ float reduce_step(int kind, float acc, float v) {
    switch (static_cast<ReduceKind>(kind)) {
        case ReduceKind::Max:
            return v > acc || isnan(v) ? v : acc;
        case ReduceKind::Min:
            return v < acc || isnan(v) ? v : acc;
        default:
            return acc + v;
    }
}

// Offsets (input, output) of output element `idx` and of reduced element `r`.
__device__ __forceinline__ void kept_offsets(const ReduceParams& p, uint32_t idx, int64_t* in, int64_t* out) {
    *in = 0, *out = 0;
    for (int d = p.kept_rank - 1; d >= 0; --d) {
        uint32_t o = idx % p.kept_size[d];
        idx /= p.kept_size[d];
        *in += static_cast<int64_t>(o) * p.kept_in_stride[d];
        *out += static_cast<int64_t>(o) * p.kept_out_stride[d];
    }
}

__device__ __forceinline__ int64_t reduced_offset(const ReduceParams& p, uint32_t r) {
    int64_t off = 0;
    for (int d = p.reduced_rank - 1; d >= 0; --d) {
        off += static_cast<int64_t>(r % p.reduced_size[d]) * p.reduced_stride[d];
        r /= p.reduced_size[d];
    }
    return off;
}

__device__ __forceinline__ float reduce_result(const ReduceParams& p, float acc) {
    return static_cast<ReduceKind>(p.kind) == ReduceKind::Mean && p.count > 0 ? acc / static_cast<float>(p.count) : acc;
}

template <class T>
__global__ void reduce_thread_kernel(ReduceParams p, const T* __restrict__ x, T* __restrict__ y) {
    for (uint32_t idx = blockIdx.x * blockDim.x + threadIdx.x; idx < p.outputs; idx += gridDim.x * blockDim.x) {
        int64_t in, out;
        kept_offsets(p, idx, &in, &out);
        float acc = reduce_init(p.kind);
        for (uint32_t r = 0; r < p.count; ++r) acc = reduce_step(p.kind, acc, to_float(x[in + reduced_offset(p, r)]));
        y[out] = from_float<T>(reduce_result(p, acc));
    }
}

template <class T>
__global__ void reduce_warp_kernel(ReduceParams p, const T* __restrict__ x, T* __restrict__ y) {
    const int lane = threadIdx.x & 31;
    const uint32_t warps = gridDim.x * (blockDim.x / 32);
    for (uint32_t idx = blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32; idx < p.outputs; idx += warps) {
        int64_t in, out;
        kept_offsets(p, idx, &in, &out);
        float acc = reduce_init(p.kind);
        for (uint32_t r = lane; r < p.count; r += 32)
            acc = reduce_step(p.kind, acc, to_float(x[in + reduced_offset(p, r)]));
        for (int off = 16; off > 0; off >>= 1) acc = reduce_step(p.kind, acc, __shfl_xor_sync(0xffffffffu, acc, off));
        if (lane == 0) y[out] = from_float<T>(reduce_result(p, acc));
    }
}

}  // namespace

void launch_reduce(DType dtype, const ReduceParams& p, const void* x, void* y, int sm_count, cudaStream_t stream) {
    if (p.outputs == 0) return;
    const int64_t per_block = p.warp_per_output ? kReduceThreads / 32 : kReduceThreads;
    int64_t blocks = (int64_t{p.outputs} + per_block - 1) / per_block;
    blocks = blocks < int64_t{sm_count} * 16 ? blocks : int64_t{sm_count} * 16;
    dispatch_float(dtype, [&](auto zero) {
        using T = decltype(zero);
        const T* in = static_cast<const T*>(x);
        T* out = static_cast<T*>(y);
        if (p.warp_per_output)
            reduce_warp_kernel<T><<<static_cast<unsigned>(blocks), kReduceThreads, 0, stream>>>(p, in, out);
        else
            reduce_thread_kernel<T><<<static_cast<unsigned>(blocks), kReduceThreads, 0, stream>>>(p, in, out);
    });
}

}  // namespace strata::cuda
