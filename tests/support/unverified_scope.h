// unverified_scope.h: environment switches set for one test's lifetime: the gate of backends/cuda/unverified_tactics.h
// (so that a test can run a kernel family not yet verified on a GPU against the reference) and, generally, any
// variable a kernel reads when it is made (STRATA_PDL).
#pragma once

#include <cstdlib>
#include <string>

namespace strata::test {

/// Sets `name` to `value` ("1" unless given) until destroyed, then puts back what the process had (a sanitizer run
/// may set the same variable for the whole process).
class EnvSwitchScope {
public:
    explicit EnvSwitchScope(const char* name, const char* value = "1") : name_(name) {
        if (const char* had = std::getenv(name_)) {
            had_ = true;
            previous_ = had;
        }
        setenv(name_, value, 1);
    }
    ~EnvSwitchScope() {
        if (had_) setenv(name_, previous_.c_str(), 1);
        else unsetenv(name_);
    }
    EnvSwitchScope(const EnvSwitchScope&) = delete;
    EnvSwitchScope& operator=(const EnvSwitchScope&) = delete;

private:
    const char* name_;
    bool had_ = false;
    std::string previous_;
};

class UnverifiedTacticsScope : public EnvSwitchScope {
public:
    UnverifiedTacticsScope() : EnvSwitchScope("STRATA_UNVERIFIED_TACTICS") {}
};

}  // namespace strata::test
