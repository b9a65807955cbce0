// depthwise_backward.cu: the launchers of the depthwise backward kernels (depthwise_backward_kernel.cuh), one per
// gradient, taking a plan made on the host (depthwise_backward_plan.cpp). The instantiations: every float dtype,
// each at its 16-byte vector width and at 1.
#include <algorithm>

#include "backends/cuda/kernels/depthwise/depthwise_backward_kernel.cuh"

namespace strata::cuda {

namespace {

template <class T>
void dgrad_typed(const DepthwiseBackwardParams& prm, const DwDgradPlan& plan, cudaStream_t stream) {
    const dim3 grid(static_cast<unsigned>(plan.grid_x), static_cast<unsigned>(plan.grid_y));
    if (plan.mapping == DwMapping::planes) {
        dw_backward::dgrad_planes_kernel<T><<<grid, kDwThreads, 0, stream>>>(prm, plan.lanes);
        return;
    }
    constexpr int kV = 16 / sizeof(T);
    const dim3 block(plan.lanes, kDwThreads / plan.lanes);
    if (plan.vector == kV)
        dw_backward::dgrad_channels_kernel<T, kV><<<grid, block, plan.smem_bytes, stream>>>(prm);
    else
        dw_backward::dgrad_channels_kernel<T, 1><<<grid, block, plan.smem_bytes, stream>>>(prm);
}

template <class T>
void wgrad_typed(const DepthwiseBackwardParams& prm, const DwWgradPlan& plan, float* workspace, cudaStream_t stream) {
    if (plan.stage1_blocks > 0) {
        const unsigned blocks = static_cast<unsigned>(plan.stage1_blocks);
        if (plan.mapping == DwMapping::planes) {
            dw_backward::wgrad_planes_kernel<T><<<blocks, kDwThreads, 0, stream>>>(prm, plan, workspace);
        } else {
            constexpr int kV = 16 / sizeof(T);
            const dim3 block(plan.lanes, kDwThreads / plan.lanes);
            if (plan.vector == kV)
                dw_backward::wgrad_channels_kernel<T, kV><<<blocks, block, 0, stream>>>(prm, plan, workspace);
            else
                dw_backward::wgrad_channels_kernel<T, 1><<<blocks, block, 0, stream>>>(prm, plan, workspace);
        }
    }
    const int64_t total = int64_t{prm.g.k} * prm.g.r * prm.g.s;
    const int64_t blocks = std::min<int64_t>((total + kDwThreads / 32 - 1) / (kDwThreads / 32), 4096);
    dw_backward::wgrad_finish_kernel<T>
        <<<static_cast<unsigned>(blocks), kDwThreads, 0, stream>>>(prm, plan.slices, workspace);
}

}  // namespace

void dw_dgrad_enqueue(const DepthwiseBackwardParams& params, const DwDgradPlan& plan, DType dtype,
                      cudaStream_t stream) {
    dispatch_float(dtype, [&](auto zero) { dgrad_typed<decltype(zero)>(params, plan, stream); });
}

void dw_wgrad_enqueue(const DepthwiseBackwardParams& params, const DwWgradPlan& plan, DType dtype, float* workspace,
                      cudaStream_t stream) {
    dispatch_float(dtype, [&](auto zero) { wgrad_typed<decltype(zero)>(params, plan, workspace, stream); });
}

}  // namespace strata::cuda
