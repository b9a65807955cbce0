// test_conformance.cpp: the ONNX project's operator test cases (../shared/conformance) through the public API on the
// CPU. Every case must end in a pass (rtol 1e-3, atol 1e-7, the ONNX runner's defaults) or a clean
// "unsupported: ..." error; never a wrong answer, a crash or another kind of error. The cases that pass today are
// pinned (conformance_passing.inc), so a regression fails CI.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include "conformance_runner.h"
#include "strata/strata.h"
#include "test_support.h"

namespace strata {
namespace {

using test::CaseResult;
using test::Outcome;

const std::set<std::string>& kPinnedPassing = test::pinned_passing_cases();
constexpr size_t kMinimumPassing = 75;

std::vector<std::string> list_cases() { return test::list_conformance_cases(); }
std::string case_name(const std::string& c) { return test::conformance_case_name(c); }
CaseResult run_case(const std::string& c) { return test::run_conformance_case(c, BuildOptions{}); }

class Conformance : public ::testing::TestWithParam<std::string> {};

TEST_P(Conformance, PassesOrIsCleanlyUnsupported) {
    const std::string c = GetParam();
    CaseResult r = run_case(c);
    bool pinned = kPinnedPassing.count(case_name(c)) > 0;
    switch (r.outcome) {
        case Outcome::pass: break;
        case Outcome::unsupported:
            EXPECT_FALSE(pinned) << c << " is pinned as passing but now reports: " << r.detail;
            std::cout << "[unsupported] " << c << ": " << r.detail << "\n";
            break;
        case Outcome::wrong: ADD_FAILURE() << c << ": wrong answer: " << r.detail; break;
        case Outcome::error: ADD_FAILURE() << c << ": failed with an error that is not a clean refusal: " << r.detail; break;
    }
}

INSTANTIATE_TEST_SUITE_P(Onnx, Conformance, ::testing::ValuesIn(list_cases()),
                         [](const ::testing::TestParamInfo<std::string>& info) { return case_name(info.param); });
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(Conformance);

TEST(ConformanceSummary, PinnedListPassesAndCoversEnough) {
    STRATA_REQUIRE_SHARED_PATH(root, "conformance");
    auto cases = list_cases();
    EXPECT_EQ(cases.size(), 117u) << "the conformance folder changed";
    size_t passing = 0;
    std::set<std::string> names;
    for (const auto& c : cases) {
        names.insert(case_name(c));
        if (run_case(c).outcome == Outcome::pass) ++passing;
    }
    for (const auto& p : kPinnedPassing) EXPECT_TRUE(names.count(p)) << "pinned case " << p << " does not exist";
    std::cout << "conformance: " << passing << " of " << cases.size() << " cases pass\n";
    EXPECT_GE(passing, kMinimumPassing);
    EXPECT_GE(kPinnedPassing.size(), kMinimumPassing);
}

}  // namespace
}  // namespace strata
