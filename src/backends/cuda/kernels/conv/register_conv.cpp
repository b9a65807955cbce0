// register_conv.cpp: the convolution family's tactics (filled in by the conv kernels' work).
#include "backends/cuda/cuda_tactic.h"

namespace strata::cuda {

void register_conv_tactics(CudaTacticRegistry& /*registry*/) {}

}  // namespace strata::cuda
