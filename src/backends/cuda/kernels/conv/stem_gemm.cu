// stem_gemm.cu: the stem convolution's im2col tile policy and launcher (see stem_gemm.h; the kernel is
// narrow_gemm.cuh's).
#include "backends/cuda/kernels/conv/narrow_gemm.cuh"
#include "backends/cuda/kernels/conv/stem_gemm.h"

namespace strata::cuda {

namespace {

// One round: 32 output pixels, lane = pixel, each lane writing its pixel's KS*16 taps as one tile row. The (r, s, c)
// of every column is a compile-time constant (R, S, C are template parameters and the loops unroll), so a tap costs
// a predicated 2-byte load and an add: the row and column offsets and their bounds are worked out once per pixel.
// The loads go straight to the tile (no register prefetch: a 7x7 row is 80 words); the other warps of the SM hide
// their latency.
template <int KS, int R, int S, int C>
struct StemTile {
    static constexpr int kRows = kStemGemmRows;
    static constexpr int kTaps = R * S * C;
    static_assert(kTaps <= KS * 16 && kTaps > KS * 16 - 16, "KS is the tap count in k-steps of 16");
    using Source = StemGather;

    __device__ StemTile(const PointwiseNarrowParams& prm, const Source& src)
        : x(static_cast<const uint16_t*>(prm.x)), pixels(prm.pixels), src(src) {}

    __device__ __forceinline__ void load(int64_t r, int) { round = r; }

    __device__ __forceinline__ void store(uint16_t* xt, int ldx, int lane) const {
        const int64_t pix = round * kRows + lane;
        const bool live = pix < pixels;
        const int64_t pq = int64_t{src.out_h} * src.out_w;
        const int64_t n = pix / pq, rem = pix - n * pq;
        const int p = static_cast<int>(rem / src.out_w), q = static_cast<int>(rem - int64_t{p} * src.out_w);
        const int ih0 = p * src.stride_h - src.pad_h, iw0 = q * src.stride_w - src.pad_w;
        const uint16_t* base = x + n * src.x_stride[0];
        int64_t row_off[R], col_off[S];
        bool row_ok[R], col_ok[S];
#pragma unroll
        for (int r = 0; r < R; ++r) {
            const int ih = ih0 + r * src.dil_h;
            row_ok[r] = live && ih >= 0 && ih < src.in_h;
            row_off[r] = ih * src.x_stride[2];
        }
#pragma unroll
        for (int s = 0; s < S; ++s) {
            const int iw = iw0 + s * src.dil_w;
            col_ok[s] = iw >= 0 && iw < src.in_w;
            col_off[s] = iw * src.x_stride[3];
        }
        auto tap = [&](int kk) -> uint32_t {  // kk is a constant after unrolling
            if (kk >= kTaps) return 0;
            const int r = kk / (S * C), s = (kk / C) % S, c = kk % C;
            return row_ok[r] && col_ok[s] ? uint32_t{__ldg(base + row_off[r] + col_off[s] + c * src.x_stride[1])} : 0u;
        };
        uint16_t* row = xt + lane * ldx;
#pragma unroll
        for (int chunk = 0; chunk < KS * 2; ++chunk) {
            uint32_t w[4];
#pragma unroll
            for (int e = 0; e < 4; ++e) w[e] = tap(chunk * 8 + 2 * e) | (tap(chunk * 8 + 2 * e + 1) << 16);
            *reinterpret_cast<uint4*>(row + chunk * 8) = make_uint4(w[0], w[1], w[2], w[3]);
        }
    }

    const uint16_t* x;
    int64_t pixels;
    StemGather src;
    int64_t round = 0;
};

template <class T, int KS, int R, int S, int C>
__global__ void __launch_bounds__(kNarrowThreads) stem_gemm_kernel(PointwiseNarrowParams prm, StemGather gather) {
    narrow_gemm_body<T, KS, StemTile<KS, R, S, C>>(prm, gather);
}

using KernelFn = void (*)(PointwiseNarrowParams, StemGather);

template <class T>
KernelFn kernel_for(int r, int s, int c) {
    if (c == 3 && r == 3 && s == 3) return stem_gemm_kernel<T, 2, 3, 3, 3>;    // 27 taps
    if (c == 3 && r == 7 && s == 7) return stem_gemm_kernel<T, 10, 7, 7, 3>;  // 147 taps
    return nullptr;
}

KernelFn kernel_for(DType dtype, int r, int s, int c) {
    if (dtype == DType::f16) return kernel_for<__half>(r, s, c);
    if (dtype == DType::bf16) return kernel_for<__nv_bfloat16>(r, s, c);
    return nullptr;
}

}  // namespace

cudaError_t stem_gemm_prepare(DType dtype, int r, int s, int c, size_t smem_bytes, size_t smem_limit,
                              int* blocks_per_sm) {
    KernelFn fn = kernel_for(dtype, r, s, c);
    if (!fn || smem_bytes > smem_limit) return cudaErrorInvalidValue;
    cudaError_t e = cudaFuncSetAttribute(fn, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(smem_limit));
    if (e != cudaSuccess) return e;
    return cudaOccupancyMaxActiveBlocksPerMultiprocessor(blocks_per_sm, fn, kNarrowThreads, smem_bytes);
}

void stem_gemm_launch(const PointwiseNarrowParams& params, const StemGather& gather, DType dtype, int r, int s, int c,
                      int grid, cudaStream_t stream) {
    KernelFn fn = kernel_for(dtype, r, s, c);
    if (!fn || params.pixels == 0 || grid <= 0) return;  // the tactic refuses other dtypes and shapes
    fn<<<grid, kNarrowThreads, stem_gemm_smem_bytes(r, s, c, params.k), stream>>>(params, gather);
}

}  // namespace strata::cuda
