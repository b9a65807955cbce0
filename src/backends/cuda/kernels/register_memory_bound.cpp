// register_memory_bound.cpp: the memory-bound families' tactics (elementwise, pooling, softmax, data movement).
#include "backends/cuda/cuda_tactic.h"

namespace strata::cuda {

void register_memory_bound_tactics(CudaTacticRegistry& /*registry*/) {}

}  // namespace strata::cuda
