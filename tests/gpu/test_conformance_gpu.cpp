// test_conformance_gpu.cpp: every ONNX conformance case that passes on the CPU (conformance_passing.inc) runs
// through the CUDA backend in fp32 (TF32 off) with the same criterion (rtol 1e-3, atol 1e-7): a wide net over the
// ops, attributes and odd shapes that the kernel tests might not think of.
#include <gtest/gtest.h>

#include "conformance_runner.h"
#include "gpu_support.h"
#include "test_support.h"

namespace strata {
namespace {

std::vector<std::string> pinned_cases() {
    std::vector<std::string> r;
    for (const auto& c : test::list_conformance_cases())
        if (test::pinned_passing_cases().count(test::conformance_case_name(c))) r.push_back(c);
    return r;
}

class GpuConformance : public ::testing::TestWithParam<std::string> {};

TEST_P(GpuConformance, PassesInFp32) {
    STRATA_REQUIRE_GPU();
    BuildOptions options{.device = Device::cuda(), .precision = Precision::fp32, .timing_cache = test::test_timing_cache()};
    test::CaseResult r = test::run_conformance_case(GetParam(), options);
    EXPECT_EQ(static_cast<int>(r.outcome), static_cast<int>(test::Outcome::pass)) << GetParam() << ": " << r.detail;
}

INSTANTIATE_TEST_SUITE_P(Onnx, GpuConformance, ::testing::ValuesIn(pinned_cases()),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                             return test::conformance_case_name(info.param);
                         });
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(GpuConformance);

}  // namespace
}  // namespace strata
