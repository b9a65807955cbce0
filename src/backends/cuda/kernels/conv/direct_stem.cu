// direct_stem.cu: the few-input-channel direct convolution (see direct_stem.h).
#include <algorithm>

#include "backends/cuda/kernels/conv/conv_epilogue.cuh"
#include "backends/cuda/kernels/conv/direct_stem.h"

namespace strata::cuda {

namespace {

constexpr int kStemThreads = 256;
constexpr int kCpt = kStemChannelsPerThread;

// Weights W[k, c, r, s] (any layout) -> shared float [r][s][c][kp], zero for the channels past K.
template <class T>
__device__ void stage_weights(const DirectStemParams& prm, int kp, float* w_s) {
    const ConvGeometry& g = prm.g;
    const T* w = static_cast<const T*>(prm.w);
    const int total = g.r * g.s * g.c * kp;
    for (int i = threadIdx.x; i < total; i += blockDim.x) {
        const int k = i % kp, t = i / kp;
        const int c = t % g.c, rs = t / g.c;
        const int s = rs % g.s, r = rs / g.s;
        w_s[i] =
            k < g.k ? to_float(w[k * prm.w_stride[0] + c * prm.w_stride[1] + r * prm.w_stride[2] + s * prm.w_stride[3]])
                    : 0.0f;
    }
}

template <class T>
__global__ void direct_stem_kernel(DirectStemParams prm) {
    extern __shared__ __align__(16) float w_s[];
    const ConvGeometry& g = prm.g;
    const int groups = (g.k + kCpt - 1) / kCpt, kp = groups * kCpt;
    stage_weights<T>(prm, kp, w_s);
    __syncthreads();
    const T* x = static_cast<const T*>(prm.x);
    const int64_t pq = int64_t{g.p} * g.q, total = g.n * pq * groups;
    for (int64_t i = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; i < total; i += int64_t{gridDim.x} * blockDim.x) {
        int n, kg;
        int64_t rem;
        if (prm.k_fastest) {  // N, P, Q, channel group
            kg = static_cast<int>(i % groups);
            const int64_t pix = i / groups;
            n = static_cast<int>(pix / pq), rem = pix % pq;
        } else {  // N, channel group, P, Q
            rem = i % pq;
            const int64_t t = i / pq;
            kg = static_cast<int>(t % groups), n = static_cast<int>(t / groups);
        }
        const int p = static_cast<int>(rem / g.q), q = static_cast<int>(rem % g.q);
        float acc[kCpt] = {};
        for (int r = 0; r < g.r; ++r) {
            const int ih = p * g.stride_h - g.pad_h + r * g.dil_h;
            if (ih < 0 || ih >= g.h) continue;
            for (int s = 0; s < g.s; ++s) {
                const int iw = q * g.stride_w - g.pad_w + s * g.dil_w;
                if (iw < 0 || iw >= g.w) continue;
                const T* xp = x + n * prm.x_stride[0] + ih * prm.x_stride[2] + iw * prm.x_stride[3];
                const float* wp = w_s + (r * g.s + s) * g.c * kp + kg * kCpt;
                for (int c = 0; c < g.c; ++c) {
                    const float xv = to_float(xp[c * prm.x_stride[1]]);
                    const float4 w0 = *reinterpret_cast<const float4*>(wp + c * kp);
                    const float4 w1 = *reinterpret_cast<const float4*>(wp + c * kp + 4);
                    acc[0] += xv * w0.x, acc[1] += xv * w0.y, acc[2] += xv * w0.z, acc[3] += xv * w0.w;
                    acc[4] += xv * w1.x, acc[5] += xv * w1.y, acc[6] += xv * w1.z, acc[7] += xv * w1.w;
                }
            }
        }
        const int64_t base = n * prm.y_stride[0] + p * prm.y_stride[2] + q * prm.y_stride[3];
#pragma unroll
        for (int j = 0; j < kCpt; ++j) {
            const int k = kg * kCpt + j;
            if (k >= g.k) break;
            const int64_t off = base + k * prm.y_stride[1];
            static_cast<T*>(prm.y)[off] = from_float<T>(conv_epilogue_value<T>(prm.epilogue, acc[j], k, off));
        }
    }
}

}  // namespace

void direct_stem_launch(const DirectStemParams& params, DType dtype, cudaStream_t stream) {
    const ConvGeometry& g = params.g;
    const int64_t total = g.out_pixels() * ((g.k + kCpt - 1) / kCpt);
    if (total == 0) return;
    // Each block stages the weights once, so blocks loop over several pixels rather than one each.
    const int64_t blocks = std::min<int64_t>((total + kStemThreads - 1) / kStemThreads, 1024);
    dispatch_float(dtype, [&](auto t) {
        using T = decltype(t);
        direct_stem_kernel<T>
            <<<static_cast<unsigned>(blocks), kStemThreads, direct_stem_smem_bytes(g), stream>>>(params);
    });
}

}  // namespace strata::cuda
