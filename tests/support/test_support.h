// test_support.h: what every test shares: where the shared data lives, seeded random tensors, error measures.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <optional>
#include <string>

#include "strata/tensor.h"

namespace strata::test {

/// The folder holding models/ and conformance/: $STRATA_SHARED, else the CMake setting (default ../shared).
std::string shared_dir();
/// True when CI asked for the shared data to be present ($STRATA_REQUIRE_SHARED=1 or the CMake option).
bool shared_required();
/// Path of shared_dir()/relative if it exists; otherwise nullopt (the caller skips, or fails when required).
std::optional<std::string> shared_path(const std::string& relative);

/// Skips the test (or fails it, when the data is required) if shared_dir()/relative is absent; else yields the path.
#define STRATA_REQUIRE_SHARED_PATH(var, relative)                                                      \
    auto var##_opt = ::strata::test::shared_path(relative);                                            \
    if (!var##_opt) {                                                                                  \
        if (::strata::test::shared_required()) FAIL() << "shared data missing: " << (relative);        \
        GTEST_SKIP() << "shared data not found: " << ::strata::test::shared_dir() << "/" << (relative); \
    }                                                                                                  \
    const std::string var = *var##_opt

/// A seed for this test run: $STRATA_SEED if set, else fresh from the clock. Tests print it on failure.
uint64_t test_seed();
/// STRATA_TEST_TRACE=1: tests name each run before it starts, so that a run that never returns is named.
bool test_trace();
/// Uniform random values in [lo, hi) (floating dtypes) or integers in [lo, hi) (integer dtypes).
Tensor random_tensor(DType dtype, const Shape& shape, uint64_t seed, double lo = -1.0, double hi = 1.0);
/// Max |a-b| / max |b| over all elements (both float32); shapes must match.
double max_rel_error(const Tensor& got, const Tensor& want);
/// The index of the largest value in row `row` of a float32 [N, M] tensor (a classifier's top-1 class).
int64_t argmax_row(const Tensor& t, int64_t row);
/// Number of elements violating |got - want| <= atol + rtol * |want|.
int64_t count_mismatches(const Tensor& got, const Tensor& want, double rtol, double atol);

/// True when both tensors have the same dtype, shape and bytes.
bool same_bits(const Tensor& a, const Tensor& b);
/// `name` inside a per-process temporary folder (created), for files a test writes.
std::string temp_path(const std::string& name);

/// Path of the built `strata` tool (for tests that run the command line).
std::string cli_path();
/// Runs a shell command, returns its exit code and combined stdout+stderr.
struct CommandResult {
    int exit_code;
    std::string output;
};
CommandResult run_command(const std::string& command);

}  // namespace strata::test
