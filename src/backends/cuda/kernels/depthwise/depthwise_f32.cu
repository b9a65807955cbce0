// depthwise_f32.cu: the depthwise kernels instantiated for float (see depthwise_launch.cuh), one dtype per file so
// the three instantiation tables compile in parallel.
#include "backends/cuda/kernels/depthwise/depthwise_launch.cuh"

namespace strata::cuda {

bool depthwise_launch_f32(const DepthwiseParams& prm, const DepthwiseTile& tile, cudaStream_t stream) {
    return dw::launch_typed<float>(prm, tile, stream);
}

}  // namespace strata::cuda
