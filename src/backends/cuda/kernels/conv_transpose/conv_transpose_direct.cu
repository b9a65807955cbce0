// conv_transpose_direct.cu: strata's plain ConvTranspose kernel, the fallback when cuDNN is absent (decoders and
// upsampling heads are rare in CNN classifiers, so this favours being obviously right over speed). Gather form: one
// thread per output element sums the input pixels whose scatter window covers it, accumulating in float. The
// layout is a template policy; threads walk the output in memory order so stores coalesce.
#include "backends/cuda/kernels/common/dtype.cuh"
#include "backends/cuda/kernels/conv_transpose/conv_transpose.h"

namespace strata::cuda {

namespace {
constexpr int kThreads = 256;

// Element offsets of X, W and Y in the two layouts (NCHW: weight [C, Mg, R, S]; NHWC: weight [C, R, S, Mg]).
template <bool Nhwc>
struct CtLayout;
template <>
struct CtLayout<false> {
    __device__ static int64_t x(const ConvTransposeParams& p, int64_t n, int64_t c, int64_t ih, int64_t iw) {
        return ((n * p.c + c) * p.h + ih) * p.w + iw;
    }
    __device__ static int64_t w(const ConvTransposeParams& p, int64_t c, int64_t m, int64_t kh, int64_t kw) {
        return ((c * p.mg + m) * p.r + kh) * p.s + kw;
    }
    // Output element `i` in memory order -> (n, channel, oh, ow).
    __device__ static void y(const ConvTransposeParams& p, int64_t i, int64_t& n, int64_t& om, int64_t& oh,
                             int64_t& ow) {
        ow = i % p.q;
        i /= p.q;
        oh = i % p.p;
        i /= p.p;
        om = i % p.m;
        n = i / p.m;
    }
};
template <>
struct CtLayout<true> {
    __device__ static int64_t x(const ConvTransposeParams& p, int64_t n, int64_t c, int64_t ih, int64_t iw) {
        return ((n * p.h + ih) * p.w + iw) * p.c + c;
    }
    __device__ static int64_t w(const ConvTransposeParams& p, int64_t c, int64_t m, int64_t kh, int64_t kw) {
        return ((c * p.r + kh) * p.s + kw) * p.mg + m;
    }
    __device__ static void y(const ConvTransposeParams& p, int64_t i, int64_t& n, int64_t& om, int64_t& oh,
                             int64_t& ow) {
        om = i % p.m;
        i /= p.m;
        ow = i % p.q;
        i /= p.q;
        oh = i % p.p;
        n = i / p.p;
    }
};

// The input index whose tap `k` lands on output `o`, or -1 (o = i*stride - pad + k*dil, 0 <= i < in).
__device__ __forceinline__ int64_t source_index(int64_t o, int64_t k, int64_t pad, int64_t stride, int64_t dil,
                                                int64_t in) {
    int64_t t = o + pad - k * dil;
    if (t < 0 || t % stride != 0) return -1;
    t /= stride;
    return t < in ? t : -1;
}

template <class T, bool Nhwc>
__global__ void conv_transpose_direct_kernel(ConvTransposeParams p, const T* __restrict__ x, const T* __restrict__ w,
                                             const float* __restrict__ bias, T* __restrict__ y) {
    using L = CtLayout<Nhwc>;
    int64_t total = p.n * p.m * p.p * p.q, step = static_cast<int64_t>(gridDim.x) * blockDim.x;
    for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < total; i += step) {
        int64_t n, om, oh, ow;
        L::y(p, i, n, om, oh, ow);
        int64_t first_c = (om / p.mg) * p.cg, m = om % p.mg;
        float acc = bias ? bias[om] : 0.0f;
        for (int64_t kh = 0; kh < p.r; ++kh) {
            int64_t ih = source_index(oh, kh, p.pad_h, p.stride_h, p.dil_h, p.h);
            if (ih < 0) continue;
            for (int64_t kw = 0; kw < p.s; ++kw) {
                int64_t iw = source_index(ow, kw, p.pad_w, p.stride_w, p.dil_w, p.w);
                if (iw < 0) continue;
                for (int64_t c = first_c; c < first_c + p.cg; ++c)
                    acc += to_float(x[L::x(p, n, c, ih, iw)]) * to_float(w[L::w(p, c, m, kh, kw)]);
            }
        }
        y[i] = from_float<T>(acc);
    }
}
}  // namespace

void conv_transpose_direct_launch(DType dtype, const ConvTransposeParams& p, const void* x, const void* w,
                                  const float* bias, void* y, cudaStream_t stream) {
    int64_t total = p.n * p.m * p.p * p.q;
    if (total == 0) return;
    int64_t blocks = (total + kThreads - 1) / kThreads;
    unsigned grid = static_cast<unsigned>(blocks < (1 << 20) ? blocks : (1 << 20));
    dispatch_float(dtype, [&](auto tag) {
        using T = decltype(tag);
        auto kernel = p.nhwc ? conv_transpose_direct_kernel<T, true> : conv_transpose_direct_kernel<T, false>;
        kernel<<<grid, kThreads, 0, stream>>>(p, static_cast<const T*>(x), static_cast<const T*>(w), bias,
                                              static_cast<T*>(y));
    });
}

}  // namespace strata::cuda
