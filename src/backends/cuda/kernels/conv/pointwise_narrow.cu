// pointwise_narrow.cu: the narrow pointwise convolution's tile policy and launcher (see pointwise_narrow.h; the
// kernel is narrow_gemm.cuh's, NOTE [pointwise narrow tiles] there).
#include "backends/cuda/kernels/conv/narrow_gemm.cuh"

namespace strata::cuda {

namespace {

// Element offset of output pixel `pix`'s input pixel. Stride 1 (H == P, W == Q) needs no division.
__device__ __forceinline__ int64_t input_offset(const PointwiseNarrowParams& prm, int64_t pix) {
    if (prm.stride_h == 1 && prm.stride_w == 1) return pix * prm.c;
    const int64_t pq = int64_t{prm.out_h} * prm.out_w;
    const int64_t n = pix / pq, rem = pix - n * pq;
    const int64_t p = rem / prm.out_w, q = rem - p * prm.out_w;
    return ((n * prm.in_h + p * prm.stride_h) * prm.in_w + q * prm.stride_w) * prm.c;
}

// The 1x1 convolution's tile: 16 input pixels' C channels, loaded with 16-byte loads (16*C/8 chunks, at most 4 per
// lane) into registers, stored to the warp's tile when the previous round is done. Rows past the end read zeros.
template <int KS>
struct PointwiseTile {
    static constexpr int kRows = kPwTileRows;
    struct Source {};

    __device__ PointwiseTile(const PointwiseNarrowParams& prm, const Source&) : prm(prm) {}

    __device__ __forceinline__ void load(int64_t round, int lane) {
        const int parts = prm.c / 8, chunks = kRows * parts;
        const uint16_t* x = static_cast<const uint16_t*>(prm.x);
#pragma unroll
        for (int j = 0; j < KS; ++j) {
            const int i = lane + 32 * j;
            if (i >= chunks) break;
            const int row = i / parts, part = i - row * parts;
            const int64_t pix = round * kRows + row;
            pre[j] = pix < prm.pixels ? __ldg(reinterpret_cast<const uint4*>(x + input_offset(prm, pix) + part * 8))
                                      : make_uint4(0, 0, 0, 0);
        }
    }

    __device__ __forceinline__ void store(uint16_t* xt, int ldx, int lane) const {
        const int parts = prm.c / 8, chunks = kRows * parts;
#pragma unroll
        for (int j = 0; j < KS; ++j) {
            const int i = lane + 32 * j;
            if (i >= chunks) break;
            const int row = i / parts, part = i - row * parts;
            *reinterpret_cast<uint4*>(xt + row * ldx + part * 8) = pre[j];
        }
    }

    PointwiseNarrowParams prm;
    uint4 pre[KS];
};

template <class T, int KS>
__global__ void __launch_bounds__(kNarrowThreads) pointwise_narrow_kernel(PointwiseNarrowParams prm) {
    narrow_gemm_body<T, KS, PointwiseTile<KS>>(prm, {});
}

using KernelFn = void (*)(PointwiseNarrowParams);

template <class T>
KernelFn kernel_for(int c) {
    switch (pw_padded_c(c) / 16) {
        case 1:
            return pointwise_narrow_kernel<T, 1>;
        case 2:
            return pointwise_narrow_kernel<T, 2>;
        case 3:
            return pointwise_narrow_kernel<T, 3>;
        case 4:
            return pointwise_narrow_kernel<T, 4>;
        default:
            return nullptr;
    }
}

KernelFn kernel_for(DType dtype, int c) {
    if (c < 8 || c > kPwMaxChannels || c % 8 != 0) return nullptr;
    if (dtype == DType::f16) return kernel_for<__half>(c);
    if (dtype == DType::bf16) return kernel_for<__nv_bfloat16>(c);
    return nullptr;
}

}  // namespace

cudaError_t pointwise_narrow_prepare(DType dtype, int c, size_t smem_bytes, size_t smem_limit, int* blocks_per_sm) {
    KernelFn fn = kernel_for(dtype, c);
    if (!fn || smem_bytes > smem_limit) return cudaErrorInvalidValue;
    // The device's limit, not this step's need: steps of other K share the function and may need more.
    cudaError_t e = cudaFuncSetAttribute(fn, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(smem_limit));
    if (e != cudaSuccess) return e;
    return cudaOccupancyMaxActiveBlocksPerMultiprocessor(blocks_per_sm, fn, kNarrowThreads, smem_bytes);
}

void pointwise_narrow_launch(const PointwiseNarrowParams& params, DType dtype, int grid, cudaStream_t stream) {
    KernelFn fn = kernel_for(dtype, params.c);
    if (!fn || params.pixels == 0 || grid <= 0) return;  // the tactic refuses other dtypes and C
    launch_kernel(fn, dim3(grid), dim3(kNarrowThreads), pointwise_narrow_smem_bytes(params.c, params.k), stream,
                  params.pdl, params);
}

}  // namespace strata::cuda
