// register.cpp: the CPU backend's fast kernels (ops without one run on the reference kernels).
#include "backends/kernel.h"

namespace strata::backends {

void register_cpu_tactics(TacticRegistry& registry) {}

}  // namespace strata::backends
