// fill_random.cu: a counter-based hash (splitmix64) per element, so any grid gives the same values.
#include "backends/cuda/kernels/common/dtype.cuh"
#include "backends/cuda/kernels/common/fill_random.h"

namespace strata::cuda {

namespace {

__device__ __forceinline__ float uniform_at(uint64_t seed, int64_t i) {
    uint64_t z = seed + 0x9E3779B97F4A7C15ull * static_cast<uint64_t>(i + 1);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    return static_cast<float>(z >> 40) * (2.0f / 16777216.0f) - 1.0f;
}

template <class T>
__global__ void fill_kernel(T* data, int64_t count, uint64_t seed) {
    for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < count;
         i += static_cast<int64_t>(gridDim.x) * blockDim.x)
        data[i] = from_float<T>(uniform_at(seed, i));
}

}  // namespace

void fill_random(void* data, DType dtype, int64_t count, uint64_t seed, cudaStream_t stream) {
    if (count <= 0) return;
    int blocks = static_cast<int>(std::min<int64_t>((count + 255) / 256, 4096));
    bool is_float = dispatch_float(dtype, [&](auto t) {
        using T = decltype(t);
        fill_kernel<T><<<blocks, 256, 0, stream>>>(static_cast<T*>(data), count, seed);
    });
    if (!is_float) cudaMemsetAsync(data, 0, static_cast<size_t>(count) * dtype_size(dtype), stream);
}

}  // namespace strata::cuda
