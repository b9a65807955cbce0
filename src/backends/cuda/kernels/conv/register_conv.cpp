// register_conv.cpp: the convolution family's tactics (generic direct, tensor-core implicit GEMM and its sm_90a
// wgmma form, few-channel stems (direct and tensor-core), depthwise, narrow pointwise, and the fully-connected
// kernels that reuse them).
#include "backends/cuda/kernels/conv/conv_tactics.h"

namespace strata::cuda {

void register_conv_tactics(CudaTacticRegistry& registry) {
    registry.add(direct_conv_tactic());
    registry.add(fc_direct_tactic());
    registry.add(implicit_gemm_conv_tactic());
    registry.add(implicit_gemm_fc_tactic());
    registry.add(implicit_gemm_sm90_conv_tactic());
    registry.add(direct_stem_tactic());
    registry.add(depthwise_conv_tactic());
    registry.add(pointwise_narrow_tactic());
    registry.add(stem_gemm_tactic());
}

}  // namespace strata::cuda
