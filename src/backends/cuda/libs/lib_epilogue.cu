// lib_epilogue.cu: the in-place epilogue kernels that follow a cuDNN or cuBLASLt call (see lib_epilogue.h). Memory
// bound and simple: one grid-stride loop per kernel, float arithmetic, one rounding to the element type.
#include "backends/cuda/kernels/common/activation.cuh"
#include "backends/cuda/kernels/common/dtype.cuh"
#include "backends/cuda/libs/lib_epilogue.h"

namespace strata::cuda::libs {

namespace {
constexpr int kThreads = 256;

unsigned grid_for(int64_t total) {
    int64_t blocks = (total + kThreads - 1) / kThreads;
    return static_cast<unsigned>(blocks < (1 << 20) ? (blocks > 0 ? blocks : 1) : (1 << 20));
}

template <class T>
__global__ void epilogue_kernel(T* y, EpilogueParams ep, ChannelMap map) {
    const T* residual = static_cast<const T*>(ep.residual);
    int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
    for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < map.total; i += step) {
        float v = to_float(y[i]);
        if (ep.bias) v += ep.bias[(i / map.inner) % map.channels];
        if (residual) v += to_float(residual[i]);
        y[i] = from_float<T>(apply_activation(ep.act, v));
    }
}

template <class T>
__global__ void add_broadcast_kernel(T* y, const T* c, float beta, int64_t rows, int64_t cols, int64_t c_row,
                                     int64_t c_col) {
    int64_t total = rows * cols, step = static_cast<int64_t>(gridDim.x) * blockDim.x;
    for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < total; i += step) {
        int64_t r = i / cols, col = i % cols;
        y[i] = from_float<T>(to_float(y[i]) + beta * to_float(c[r * c_row + col * c_col]));
    }
}
}  // namespace

void launch_epilogue(DType dtype, void* y, const EpilogueParams& ep, const ChannelMap& map, cudaStream_t stream) {
    if (map.total == 0 || epilogue_is_empty(ep)) return;
    dispatch_float(dtype, [&](auto tag) {
        using T = decltype(tag);
        epilogue_kernel<T><<<grid_for(map.total), kThreads, 0, stream>>>(static_cast<T*>(y), ep, map);
    });
}

void launch_add_broadcast(DType dtype, void* y, const void* c, float beta, int64_t rows, int64_t cols, int64_t c_row,
                          int64_t c_col, cudaStream_t stream) {
    if (rows * cols == 0) return;
    dispatch_float(dtype, [&](auto tag) {
        using T = decltype(tag);
        add_broadcast_kernel<T><<<grid_for(rows * cols), kThreads, 0, stream>>>(
            static_cast<T*>(y), static_cast<const T*>(c), beta, rows, cols, c_row, c_col);
    });
}

}  // namespace strata::cuda::libs
