// unverified_scope.h: opens the gate of backends/cuda/unverified_tactics.h for one test's lifetime, so that the test
// can run a kernel family that is not yet verified on a GPU against the reference.
#pragma once

#include <cstdlib>

namespace strata::test {

class UnverifiedTacticsScope {
public:
    UnverifiedTacticsScope() { setenv("STRATA_UNVERIFIED_TACTICS", "1", 1); }
    ~UnverifiedTacticsScope() { unsetenv("STRATA_UNVERIFIED_TACTICS"); }
    UnverifiedTacticsScope(const UnverifiedTacticsScope&) = delete;
    UnverifiedTacticsScope& operator=(const UnverifiedTacticsScope&) = delete;
};

}  // namespace strata::test
