// depthwise_f16.cu: the depthwise kernels instantiated for __half (see depthwise_launch.cuh), one dtype per file so
// the three instantiation tables compile in parallel.
#include "backends/cuda/kernels/depthwise/depthwise_launch.cuh"

namespace strata::cuda {

bool depthwise_launch_f16(const DepthwiseParams& prm, const DepthwiseTile& tile, cudaStream_t stream) {
    return dw::launch_typed<__half>(prm, tile, stream);
}

}  // namespace strata::cuda
