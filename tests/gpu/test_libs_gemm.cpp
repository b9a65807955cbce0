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

// NOTE [fp32 outputs]: fp16/bf16 operands, float32 C and D (compute 32F); the fused bias epilogue then applies.
TEST(LibsCublasLt, SixteenBitOperandsGiveAnUnroundedFloat32Result) {
    STRATA_REQUIRE_CUBLASLT();
    uint64_t seed = test_seed() + 500;
    for (const FcCase& c :
         {FcCase{3, 64, 100, true}, FcCase{2, 1024, 1000, true}, FcCase{5, 40, 8, true, ir::UnaryKind::Relu}})
        for (DType dt : {DType::f16, DType::bf16}) {
            auto graph = c.graph();
            TacticRun r = run_tactic(*graph, 0, "cublaslt.fc", 0, dt, Layout::nchw, seed += 10, -1.0, 1.0, DType::f32);
            ASSERT_TRUE(r.ran) << c.str() << " " << dtype_name(dt) << ": " << r.refused;
            EXPECT_LE(r.max_rel_error, 1e-5) << c.str() << " " << dtype_name(dt) << " (seed " << seed << ")";
            EXPECT_EQ(r.unwritten, 0) << c.str();
        }
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
