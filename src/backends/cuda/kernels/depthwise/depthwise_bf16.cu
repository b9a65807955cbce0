// depthwise_bf16.cu: the depthwise kernels instantiated for __nv_bfloat16 (see depthwise_launch.cuh), one dtype per
// file so the three instantiation tables compile in parallel.
#include "backends/cuda/kernels/depthwise/depthwise_launch.cuh"

namespace strata::cuda {

bool depthwise_launch_bf16(const DepthwiseParams& prm, const DepthwiseTile& tile, cudaStream_t stream) {
    return dw::launch_typed<__nv_bfloat16>(prm, tile, stream);
}

}  // namespace strata::cuda
