// register.cpp: the reference backend's kernels, one tactic per op.
#include "backends/kernel.h"

namespace strata::backends {

void register_reference_tactics(TacticRegistry& registry) {}

}  // namespace strata::backends
