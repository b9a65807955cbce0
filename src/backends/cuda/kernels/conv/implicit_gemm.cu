// implicit_gemm.cu: the host side of the implicit-GEMM convolution: one kernel per (dtype, config), picked from an
// explicit table, and the launcher (see implicit_gemm.h).
#include <algorithm>
#include <array>
#include <utility>

#include "backends/cuda/kernels/conv/implicit_gemm_kernel.cuh"

namespace strata::cuda {

namespace {

using ImplicitGemmKernel = void (*)(ImplicitGemmParams);

template <class T, int... I>
constexpr auto kernel_table(std::integer_sequence<int, I...>) {
    return std::array<ImplicitGemmKernel, sizeof...(I)>{&implicit_gemm_kernel<T, I>...};
}

template <class T>
ImplicitGemmKernel kernel_for(int config) {
    static constexpr auto table = kernel_table<T>(std::make_integer_sequence<int, kImplicitGemmNumConfigs>{});
    return table[config];
}

template <int... I>
constexpr auto threads_table(std::integer_sequence<int, I...>) {
    return std::array<int, sizeof...(I)>{BlockTile<I>::kThreads...};
}

int threads_for(int config) {
    static constexpr auto table = threads_table(std::make_integer_sequence<int, kImplicitGemmNumConfigs>{});
    return table[config];
}

ImplicitGemmKernel kernel_for(DType dtype, int config) {
    switch (dtype) {
        case DType::bf16:
            return kernel_for<__nv_bfloat16>(config);
        case DType::f32:
            return kernel_for<float>(config);  // tf32 tensor cores
        default:
            return kernel_for<__half>(config);
    }
}

}  // namespace

cudaError_t implicit_gemm_prepare(DType dtype, int config) {
    return cudaFuncSetAttribute(kernel_for(dtype, config), cudaFuncAttributeMaxDynamicSharedMemorySize,
                                static_cast<int>(implicit_gemm_smem_bytes(config)));
}

void implicit_gemm_launch(const ImplicitGemmParams& params, DType dtype, int config, cudaStream_t stream) {
    const ImplicitGemmConfig& c = kImplicitGemmConfigs[config];
    const int64_t gemm_m = params.g.out_pixels();
    if (gemm_m == 0 || params.g.k == 0) return;
    const dim3 grid(static_cast<unsigned>((gemm_m + c.bm - 1) / c.bm),
                    static_cast<unsigned>((params.g.k + c.bn - 1) / c.bn), static_cast<unsigned>(params.splits));
    kernel_for(dtype, config)<<<grid, threads_for(config), implicit_gemm_smem_bytes(config), stream>>>(params);
    if (params.splits > 1) {
        const int64_t pairs = gemm_m * params.g.k / 2;
        const int threads = 256;
        const unsigned blocks = static_cast<unsigned>(std::min<int64_t>((pairs + threads - 1) / threads, 4096));
        switch (dtype) {
            case DType::bf16:
                split_k_reduce_kernel<__nv_bfloat16><<<blocks, threads, 0, stream>>>(params);
                break;
            case DType::f32:
                split_k_reduce_kernel<float><<<blocks, threads, 0, stream>>>(params);
                break;
            default:
                split_k_reduce_kernel<__half><<<blocks, threads, 0, stream>>>(params);
                break;
        }
    }
}

}  // namespace strata::cuda
