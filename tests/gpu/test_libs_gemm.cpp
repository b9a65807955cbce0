// test_libs_gemm.cpp: cuBLASLt's tactics `cublaslt.fc`, `cublaslt.matmul` and `cublaslt.gemm` against the reference,
// over each heuristic result the problem has (configs), every float dtype and both layouts (rank-4 MatMul operands
// in nhwc must be refused, not misread). Skipped (with what the loader searched) where cuBLASLt is not found.
#include "backends/cuda/libs/cublaslt_loader.h"
#include "libs_checks.h"

namespace strata::test {
namespace {

constexpr int kLtConfigs = 4;  // cublaslt_gemm.cpp's kConfigs

#define STRATA_REQUIRE_CUBLASLT()                                                       \
    do {                                                                                \
        STRATA_REQUIRE_GPU();                                                           \
        if (!cuda::libs::cublaslt_api()) GTEST_SKIP() << cuda::libs::cublaslt_report(); \
    } while (0)

template <class Case>
void sweep_cases(const std::vector<Case>& cases, const std::string& tactic, bool every_case_runs) {
    uint64_t seed = test_seed();
    for (const Case& c : cases) {
        auto graph = c.graph();
        TacticSweep s = sweep_tactic(*graph, tactic, kLtConfigs, c.str(), seed, {Layout::nchw, Layout::nhwc});
        if (every_case_runs) {
            EXPECT_GT(s.ran_config0_f32, 0) << c.str() << " refusals:\n" << s.refusals;
        }
        std::printf("%s: %d runs\n", c.str().c_str(), s.ran);
    }
}

TEST(LibsCublasLt, FullyConnectedMatchesReference) {
    STRATA_REQUIRE_CUBLASLT();
    sweep_cases(fc_cases(), "cublaslt.fc", true);
}

TEST(LibsCublasLt, GemmMatchesReference) {
    STRATA_REQUIRE_CUBLASLT();
    sweep_cases(gemm_cases(), "cublaslt.gemm", true);
}

TEST(LibsCublasLt, MatMulMatchesReference) {
    STRATA_REQUIRE_CUBLASLT();
    // Every case but the two-sided broadcast is one strided batch per operand, which cuBLASLt takes.
    std::vector<MatMulCase> strided, general;
    for (const auto& c : matmul_cases()) (c.a == Shape{2, 1, 5, 7} ? general : strided).push_back(c);
    sweep_cases(strided, "cublaslt.matmul", true);
    sweep_cases(general, "cublaslt.matmul", false);
}

TEST(LibsCublasLt, SixteenBitOperandsGiveAnUnroundedFloat32Result) {
    STRATA_REQUIRE_CUBLASLT();
    expect_unrounded_fp32_results("cublaslt.fc", test_seed() + 500);
}

TEST(LibsCublasLt, TwoSidedBroadcastIsRefusedWithAReason) {
    STRATA_REQUIRE_CUBLASLT();
    auto graph = MatMulCase{{2, 1, 5, 7}, {1, 3, 7, 4}}.graph();
    TacticRun r = run_tactic(*graph, 0, "cublaslt.matmul", 0, DType::f32, Layout::nchw, test_seed());
    EXPECT_FALSE(r.ran);
    EXPECT_NE(r.refused.find("strided batch"), std::string::npos) << r.refused;
}

TEST(LibsCublasLt, RandomShapesMatchReference) {
    STRATA_REQUIRE_CUBLASLT();
    uint64_t seed = test_seed();
    std::mt19937_64 rng(seed);
    std::vector<MatMulCase> matmuls;
    std::vector<GemmCase> gemms;
    std::vector<FcCase> fcs;
    for (int i = 0; i < 4; ++i) {
        matmuls.push_back(random_matmul_case(rng, true));
        gemms.push_back(random_gemm_case(rng));
        fcs.push_back(random_fc_case(rng));
    }
    sweep_cases(matmuls, "cublaslt.matmul", true);
    sweep_cases(gemms, "cublaslt.gemm", true);
    sweep_cases(fcs, "cublaslt.fc", true);
}

}  // namespace
}  // namespace strata::test
