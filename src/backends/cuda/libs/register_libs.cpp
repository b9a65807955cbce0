// register_libs.cpp: tactics from NVIDIA's libraries, loaded at run time (cuDNN, cuBLASLt).
#include "backends/cuda/cuda_tactic.h"

namespace strata::cuda {

void register_library_tactics(CudaTacticRegistry& /*registry*/) {}

}  // namespace strata::cuda
