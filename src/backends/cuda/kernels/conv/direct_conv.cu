// direct_conv.cu: the generic direct convolution and the tiled fully-connected kernel (see direct_conv.h). Plain
// and always correct: every other conv kernel is checked against the reference, and falls back to this one.
#include <algorithm>

#include "backends/cuda/kernels/conv/conv_epilogue.cuh"
#include "backends/cuda/kernels/conv/direct_conv.h"

namespace strata::cuda {

namespace {

constexpr int kDirectThreads = 256;
constexpr int kFcTile = 16;

template <class T>
__device__ float direct_conv_one(const DirectConvParams& prm, int n, int k, int p, int q) {
    const ConvGeometry& g = prm.g;
    const T* x = static_cast<const T*>(prm.x);
    const T* w = static_cast<const T*>(prm.w);
    const int cg = g.c / g.group;
    const int first_c = (k / (g.k / g.group)) * cg;
    const int ih0 = p * g.stride_h - g.pad_h, iw0 = q * g.stride_w - g.pad_w;
    float acc = 0.0f;
    for (int c = 0; c < cg; ++c) {
        const T* xc = x + n * prm.x_stride[0] + (first_c + c) * prm.x_stride[1];
        const T* wc = w + k * prm.w_stride[0] + c * prm.w_stride[1];
        for (int r = 0; r < g.r; ++r) {
            const int ih = ih0 + r * g.dil_h;
            if (ih < 0 || ih >= g.h) continue;
            for (int s = 0; s < g.s; ++s) {
                const int iw = iw0 + s * g.dil_w;
                if (iw < 0 || iw >= g.w) continue;
                acc += to_float(xc[ih * prm.x_stride[2] + iw * prm.x_stride[3]]) *
                       to_float(wc[r * prm.w_stride[2] + s * prm.w_stride[3]]);
            }
        }
    }
    return acc;
}

template <class T>
__global__ void direct_conv_kernel(DirectConvParams prm) {
    const ConvGeometry& g = prm.g;
    const int64_t total = int64_t{g.n} * g.k * g.p * g.q;
    for (int64_t i = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; i < total; i += int64_t{gridDim.x} * blockDim.x) {
        int n, k, p, q;
        int64_t rest = i;
        if (prm.k_fastest) {  // N, P, Q, K order
            k = static_cast<int>(rest % g.k), rest /= g.k;
            q = static_cast<int>(rest % g.q), rest /= g.q;
            p = static_cast<int>(rest % g.p), rest /= g.p;
        } else {  // N, K, P, Q order
            q = static_cast<int>(rest % g.q), rest /= g.q;
            p = static_cast<int>(rest % g.p), rest /= g.p;
            k = static_cast<int>(rest % g.k), rest /= g.k;
        }
        n = static_cast<int>(rest);
        const int64_t off = n * prm.y_stride[0] + k * prm.y_stride[1] + p * prm.y_stride[2] + q * prm.y_stride[3];
        float v = conv_epilogue_value<T>(prm.epilogue, direct_conv_one<T>(prm, n, k, p, q), k, off);
        static_cast<T*>(prm.y)[off] = from_float<T>(v);
    }
}

// One block computes a 16x16 tile of Y = X W^T through 16-wide slices of the reduction staged in shared memory.
template <class T>
__global__ void fc_direct_kernel(FcParams prm) {
    __shared__ float xs[kFcTile][kFcTile + 1];
    __shared__ float ws[kFcTile][kFcTile + 1];  // +1: column reads by lanes hit distinct banks
    const T* x = static_cast<const T*>(prm.x);
    const T* w = static_cast<const T*>(prm.w);
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int row0 = blockIdx.y * kFcTile, col0 = blockIdx.x * kFcTile;
    float acc = 0.0f;
    for (int p0 = 0; p0 < prm.in; p0 += kFcTile) {
        const int p = p0 + tx;
        const int xr = row0 + ty, wr = col0 + ty;
        xs[ty][tx] = xr < prm.rows && p < prm.in ? to_float(x[int64_t{xr} * prm.in + p]) : 0.0f;
        ws[ty][tx] = wr < prm.out && p < prm.in ? to_float(w[int64_t{wr} * prm.in + p]) : 0.0f;
        __syncthreads();
        for (int j = 0; j < kFcTile; ++j) acc += xs[ty][j] * ws[tx][j];
        __syncthreads();
    }
    const int row = row0 + ty, col = col0 + tx;
    if (row < prm.rows && col < prm.out) {
        const int64_t off = int64_t{row} * prm.out + col;
        static_cast<T*>(prm.y)[off] = from_float<T>(conv_epilogue_value<T>(prm.epilogue, acc, col, off));
    }
}

}  // namespace

void direct_conv_launch(const DirectConvParams& params, DType dtype, cudaStream_t stream) {
    const int64_t total = params.g.out_pixels() * params.g.k;
    if (total == 0) return;
    const int64_t blocks = std::min<int64_t>((total + kDirectThreads - 1) / kDirectThreads, int64_t{1} << 20);
    dispatch_float(dtype, [&](auto t) {
        using T = decltype(t);
        direct_conv_kernel<T><<<static_cast<unsigned>(blocks), kDirectThreads, 0, stream>>>(params);
    });
}

void fc_direct_launch(const FcParams& params, DType dtype, cudaStream_t stream) {
    if (params.rows == 0 || params.out == 0) return;
    const dim3 grid((params.out + kFcTile - 1) / kFcTile, (params.rows + kFcTile - 1) / kFcTile);
    const dim3 block(kFcTile, kFcTile);
    dispatch_float(dtype, [&](auto t) {
        using T = decltype(t);
        fc_direct_kernel<T><<<grid, block, 0, stream>>>(params);
    });
}

}  // namespace strata::cuda
