// unverified_tactics.h: the gate for kernel families that are written and compile but have not yet run on a GPU.
// Such a tactic refuses every step (with this reason) unless STRATA_UNVERIFIED_TACTICS=1, so that the builder never
// picks a kernel whose results nobody has checked; its GPU tests set the variable (UnverifiedTacticsScope) and run
// it against the reference. The gate comes off a family once its tests and the sanitizers pass on the device.
#pragma once

#include <cstdlib>
#include <string>

namespace strata::cuda {

inline bool unverified_tactics_enabled() {
    const char* env = std::getenv("STRATA_UNVERIFIED_TACTICS");
    return env && std::string(env) == "1";
}

/// can_implement's reason for an unverified family, or empty when the gate is open.
inline std::string unverified_tactic_problem() {
    if (unverified_tactics_enabled()) return {};
    return "not yet verified on a GPU (STRATA_UNVERIFIED_TACTICS=1 enables it)";
}

}  // namespace strata::cuda
