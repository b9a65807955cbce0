// depthwise_launch.cuh: the typed launcher of the depthwise kernels, instantiated once per dtype by depthwise_f32.cu /
// depthwise_f16.cu / depthwise_bf16.cu.
#pragma once

#include "backends/cuda/kernels/depthwise/depthwise_blocked.cuh"
#include "backends/cuda/kernels/depthwise/depthwise_kernel.cuh"
#include "backends/cuda/kernels/depthwise/depthwise_staged.cuh"

namespace strata::cuda::dw {

/// False when the tile has no kernel of this family (the caller then runs the generic convolution).
template <class T>
bool launch_typed(const DepthwiseParams& prm, const DepthwiseTile& tile, cudaStream_t stream) {
    switch (tile.kind) {
        case DepthwiseKernelKind::tiled_nhwc:
            return launch_tiled_nhwc<T>(prm, tile, stream);
        case DepthwiseKernelKind::tiled_nchw:
            return launch_tiled_nchw<T>(prm, tile, stream);
        case DepthwiseKernelKind::staged_nhwc:
            return tile.blocked ? launch_blocked_nhwc<T>(prm, tile, stream) : launch_staged_nhwc<T>(prm, tile, stream);
        case DepthwiseKernelKind::generic:
            break;
    }
    return false;
}

}  // namespace strata::cuda::dw
