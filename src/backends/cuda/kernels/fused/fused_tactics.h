// fused_tactics.h: the tactics of the fused kernel family (several graph ops in one kernel), one function per
// kernel; register_fused.cpp adds them.
#pragma once

#include "backends/cuda/cuda_tactic.h"

namespace strata::cuda {

CudaTactic separable_tactic();  ///< "cuda.fused.separable": SeparableConv (depthwise -> 1x1) in one kernel

}  // namespace strata::cuda
