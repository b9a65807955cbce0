// runner.cpp: the defaults of the Runner interface.
#include "runtime/runner.h"

#include "core/check.h"

namespace strata::runtime {

std::vector<double> Runner::time_device(int, int) {
    STRATA_UNSUPPORTED("device timing on the CPU (GPU time needs --device cuda)");
}

std::vector<double> Runner::profile_steps(int) {
    STRATA_UNSUPPORTED("per-step profiling on the CPU (it needs --device cuda; STRATA_DEBUG=2 prints CPU step times)");
}

}  // namespace strata::runtime
