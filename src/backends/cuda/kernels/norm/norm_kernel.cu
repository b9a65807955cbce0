// norm_kernel.cu: the BatchNorm (one thread per element) and InstanceNorm (one block per plane, block-wide sums)
// kernels of norm.h.
#include <cstdint>

#include "backends/cuda/kernels/common/dtype.cuh"
#include "backends/cuda/kernels/norm/norm.h"

namespace strata::cuda {
namespace {

template <class T>
__global__ void batch_norm_kernel(BatchNormParams p, const T* x, T* y) {
    const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
    for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < p.total; i += step) {
        int64_t c = (i / p.inner) % p.channels;
        float k = p.scale[c] / sqrtf(p.var[c] + p.epsilon);
        y[i] = from_float<T>((to_float(x[i]) - p.mean[c]) * k + p.bias[c]);
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
        batch_norm_kernel<T><<<blocks, kNormThreads, 0, stream>>>(p, static_cast<const T*>(x), static_cast<T*>(y));
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
