// implicit_gemm_sm90.cu: the host side of the Hopper implicit-GEMM convolution: one kernel per (dtype, config), an
// explicit table, and the launcher (see implicit_gemm_sm90.h). Compiled only for sm_90a (cmake/cuda.cmake), and only
// when the build's architectures include 90.
#include <array>
#include <utility>

#include "backends/cuda/kernels/conv/implicit_gemm_sm90_kernel.cuh"

namespace strata::cuda {

namespace {

using Sm90Kernel = void (*)(ImplicitGemmParams);

template <class T, int... I>
constexpr auto kernel_table(std::integer_sequence<int, I...>) {
    return std::array<Sm90Kernel, sizeof...(I)>{&sm90::implicit_gemm_sm90_kernel<T, I>...};
}

template <int... I>
constexpr auto threads_table(std::integer_sequence<int, I...>) {
    return std::array<int, sizeof...(I)>{sm90::BlockTile<I>::kThreads...};
}

constexpr auto kConfigs = std::make_integer_sequence<int, kImplicitGemmSm90NumConfigs>{};

Sm90Kernel kernel_for(DType dtype, int config) {
    static constexpr auto half_table = kernel_table<__half>(kConfigs);
    static constexpr auto bf16_table = kernel_table<__nv_bfloat16>(kConfigs);
    return dtype == DType::bf16 ? bf16_table[config] : half_table[config];
}

}  // namespace

bool implicit_gemm_sm90_compiled() {
    return true;
}

cudaError_t implicit_gemm_sm90_prepare(DType dtype, int config) {
    return cudaFuncSetAttribute(kernel_for(dtype, config), cudaFuncAttributeMaxDynamicSharedMemorySize,
                                static_cast<int>(implicit_gemm_sm90_smem_bytes(config)));
}

int implicit_gemm_sm90_blocks_per_sm(DType dtype, int config) {
    static constexpr auto threads = threads_table(kConfigs);
    int blocks = 0;
    if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, kernel_for(dtype, config), threads[config],
                                                      implicit_gemm_sm90_smem_bytes(config)) != cudaSuccess)
        return 0;
    return blocks;
}

void implicit_gemm_sm90_launch(const ImplicitGemmParams& params, DType dtype, int config, cudaStream_t stream) {
    static constexpr auto threads = threads_table(kConfigs);
    const ImplicitGemmSm90Config& c = kImplicitGemmSm90Configs[config];
    const int64_t gemm_m = params.g.out_pixels();
    if (gemm_m == 0 || params.g.k == 0) return;
    const dim3 grid(static_cast<unsigned>((gemm_m + c.bm - 1) / c.bm),
                    static_cast<unsigned>((params.g.k + c.bn - 1) / c.bn));
    launch_kernel(kernel_for(dtype, config), grid, threads[config], implicit_gemm_sm90_smem_bytes(config), stream,
                  params.pdl, params);
}

}  // namespace strata::cuda
