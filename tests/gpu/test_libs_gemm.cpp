// test_libs_gemm.cpp: cuBLASLt's tactics `cublaslt.fc`, `cublaslt.matmul` and `cublaslt.gemm` against the reference,
// over each heuristic result the problem has (configs), every float dtype and both layouts (rank-4 MatMul operands
// in nhwc must be refused, not misread). Skipped (with what the loader searched) where cuBLASLt is not found.
#include "backends/cuda/cuda_tactic.h"
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

// NOTE [cuBLASLt partial sums in float32] (cublaslt_gemm.cpp): a 16-bit output keeps its split-K partial sums in the
// compute type. Shapes of few outputs and a long K are where the heuristic offers split-K.
TEST(LibsCublasLt, SixteenBitOutputsAddPartialSumsInFloat32) {
    STRATA_REQUIRE_CUBLASLT();
    const FcCase cases[] = {{27, 38, 140, false, ir::UnaryKind::Tanh}, {1, 4096, 64, false}, {4, 8192, 16, true}};
    const cuda::CudaTactic* tactic = cuda::CudaTacticRegistry::global().find("cublaslt.fc");
    ASSERT_NE(tactic, nullptr);
    int split = 0;
    for (const FcCase& c : cases) {
        auto graph = c.graph();
        for (DType dt : {DType::f16, DType::bf16})
            for (int config = 0; config < kLtConfigs; ++config) {
                cuda::StepDesc desc = make_desc(*graph, graph->nodes()[0], dt, Layout::nchw);
                if (!tactic->can_implement(desc, config).empty()) continue;
                std::string detail = tactic->make(desc, config)->detail();
                std::printf("%s %s config %d: %s\n", c.str().c_str(), dtype_name(dt), config, detail.c_str());
                EXPECT_EQ(detail.find("output type"), std::string::npos) << detail;
                split += detail.find("partial sums in the compute type") != std::string::npos;
            }
    }
    std::printf("%d of the algorithms split K\n", split);
}

// The case and seed of the failure on 2026-12-06 (H100): heuristic #2 in bf16 missed by 1.1e-2 (partial sums in bf16).
TEST(LibsCublasLt, SixteenBitTanhCaseOfTheSplitKFailure) {
    STRATA_REQUIRE_CUBLASLT();
    FcCase c{27, 38, 140, false, ir::UnaryKind::Tanh};
    auto graph = c.graph();
    sweep_tactic(*graph, "cublaslt.fc", kLtConfigs, c.str(), 337339981575ull, {Layout::nchw});
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
