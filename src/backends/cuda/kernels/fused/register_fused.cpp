// register_fused.cpp: the fused family's tactics (today the depthwise -> pointwise SeparableConv kernel).
#include "backends/cuda/kernels/fused/fused_tactics.h"

namespace strata::cuda {

void register_fused_tactics(CudaTacticRegistry& registry) {
    registry.add(separable_tactic());
}

}  // namespace strata::cuda
