// norm_kernel.cu: the BatchNorm (one thread per 16-byte vector where the layout allows, else per element) and
// InstanceNorm (one block per plane, block-wide sums) kernels of norm.h.
#include <cstdint>

#include "backends/cuda/kernels/common/dtype.cuh"
#include "backends/cuda/kernels/norm/norm.h"

namespace strata::cuda {
namespace {

template <class T, int V>
struct alignas(sizeof(T) * V) Pack {
    T v[V];
};

// Each thread normalises V neighbouring elements: in nchw (inner > 1) they share a channel, in nhwc (inner == 1) they
// are V neighbouring channels. V > 1 only where V divides the run and the pointers are 16-byte aligned.
template <class T, int V>
__global__ void batch_norm_kernel(BatchNormParams p, const T* x, T* y) {
    const uint32_t vectors = static_cast<uint32_t>(p.total / V), inner = static_cast<uint32_t>(p.inner);
    const uint32_t channels = static_cast<uint32_t>(p.channels);
    for (uint32_t v = blockIdx.x * blockDim.x + threadIdx.x; v < vectors; v += gridDim.x * blockDim.x) {
        const uint32_t first = v * V, c0 = (first / inner) % channels;
        Pack<T, V> in = reinterpret_cast<const Pack<T, V>*>(x)[v], out;
#pragma unroll
        for (int k = 0; k < V; ++k) {
            const uint32_t c = inner == 1 ? c0 + k : c0;
            const float scale = p.scale[c] / sqrtf(p.var[c] + p.epsilon);
            out.v[k] = from_float<T>((to_float(in.v[k]) - p.mean[c]) * scale + p.bias[c]);
        }
        reinterpret_cast<Pack<T, V>*>(y)[v] = out;
    }
}

// The sum of `v` over the block; every thread gets it. `shared` holds one float per warp.
__device__ float block_sum(float v, float* shared) {
    for (int off = 16; off > 0; off >>= 1) v += __shfl_xor_sync(0xffffffffu, v, off);
    const int warp = threadIdx.x / 32, warps = blockDim.x / 32;
    __syncthreads();  // a previous call's readers are done with `shared`
    if ((threadIdx.x & 31) == 0) shared[warp] = v;
    __syncthreads();
    float total = 0.0f;
    for (int w = 0; w < warps; ++w) total += shared[w];
    return total;
}

template <class T>
__global__ void instance_norm_kernel(InstanceNormParams p, const T* x, T* y) {
    __shared__ float shared[kNormThreads / 32];
    for (int64_t plane = blockIdx.x; plane < p.batch * p.channels; plane += gridDim.x) {
        const int64_t n = plane / p.channels, c = plane % p.channels;
        const int64_t base = n * p.batch_step + c * p.channel_step;
        float sum = 0.0f;
        for (int64_t j = threadIdx.x; j < p.plane; j += blockDim.x) sum += to_float(x[base + j * p.elem_step]);
        const float mean = p.plane > 0 ? block_sum(sum, shared) / static_cast<float>(p.plane) : 0.0f;
        float sq = 0.0f;
        for (int64_t j = threadIdx.x; j < p.plane; j += blockDim.x) {
            float d = to_float(x[base + j * p.elem_step]) - mean;
            sq += d * d;
        }
        const float var = p.plane > 0 ? block_sum(sq, shared) / static_cast<float>(p.plane) : 0.0f;
        const float k = p.scale[c] / sqrtf(var + p.epsilon);
        for (int64_t j = threadIdx.x; j < p.plane; j += blockDim.x) {
            int64_t at = base + j * p.elem_step;
            y[at] = from_float<T>((to_float(x[at]) - mean) * k + p.bias[c]);
        }
    }
}

}  // namespace

void launch_batch_norm(DType dtype, const BatchNormParams& p, const void* x, void* y, int blocks, cudaStream_t stream) {
    if (p.total == 0) return;
    dispatch_float(dtype, [&](auto zero) {
        using T = decltype(zero);
        constexpr int kV = 16 / sizeof(T);
        const int64_t run = p.inner == 1 ? p.channels : p.inner;  // elements that step together
        const bool aligned = reinterpret_cast<uintptr_t>(x) % 16 == 0 && reinterpret_cast<uintptr_t>(y) % 16 == 0;
        const T* in = static_cast<const T*>(x);
        T* out = static_cast<T*>(y);
        if (run % kV == 0 && aligned)
            batch_norm_kernel<T, kV><<<(blocks + kV - 1) / kV, kNormThreads, 0, stream>>>(p, in, out);
        else
            batch_norm_kernel<T, 1><<<blocks, kNormThreads, 0, stream>>>(p, in, out);
    });
}

void launch_instance_norm(DType dtype, const InstanceNormParams& p, const void* x, void* y, cudaStream_t stream) {
    const int64_t planes = p.batch * p.channels;
    if (planes == 0) return;
    const unsigned blocks = static_cast<unsigned>(planes < 65535 * 16 ? planes : 65535 * 16);
    dispatch_float(dtype, [&](auto zero) {
        using T = decltype(zero);
        instance_norm_kernel<T><<<blocks, kNormThreads, 0, stream>>>(p, static_cast<const T*>(x), static_cast<T*>(y));
    });
}

}  // namespace strata::cuda
