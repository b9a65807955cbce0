// unverified_scope.h: environment switches set for one test's lifetime: the gate of backends/cuda/unverified_tactics.h
// (so that a test can run a kernel family not yet verified on a GPU against the reference) and, generally, any
// variable a kernel reads when it is made (STRATA_PDL).
#pragma once

#include <cstdlib>

namespace strata::test {

/// Sets `name` to `value` ("1" unless given) until destroyed, then unsets it.
class EnvSwitchScope {
public:
    explicit EnvSwitchScope(const char* name, const char* value = "1") : name_(name) { setenv(name_, value, 1); }
    ~EnvSwitchScope() { unsetenv(name_); }
    EnvSwitchScope(const EnvSwitchScope&) = delete;
    EnvSwitchScope& operator=(const EnvSwitchScope&) = delete;

private:
    const char* name_;
};

class UnverifiedTacticsScope : public EnvSwitchScope {
public:
    UnverifiedTacticsScope() : EnvSwitchScope("STRATA_UNVERIFIED_TACTICS") {}
};

}  // namespace strata::test
