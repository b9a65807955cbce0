// test_gemm.cpp: strata's tiled GEMM (`cuda.matmul`, `cuda.gemm`, `cuda.gemm.fc`, the fallbacks when cuBLASLt is
// absent) against the reference: odd sizes and tails, transposes, Gemm's C broadcast, every batch broadcast pattern,
// 1-D operands, bias and activations, in every float dtype; rank-4 operands in nhwc must be refused, not misread.
#include "libs_checks.h"

namespace strata::test {
namespace {

template <class Case>
void sweep_cases(const std::vector<Case>& cases, const std::string& tactic) {
    uint64_t seed = test_seed();
    for (const Case& c : cases) {
        auto graph = c.graph();
        TacticSweep s = sweep_tactic(*graph, tactic, 1, c.str(), seed, {Layout::nchw, Layout::nhwc});
        EXPECT_GT(s.ran_config0_f32, 0) << c.str() << " refusals:\n" << s.refusals;
    }
}

TEST(GemmTiled, MatMulMatchesReference) {
    STRATA_REQUIRE_GPU();
    sweep_cases(matmul_cases(), "cuda.matmul");
}

TEST(GemmTiled, GemmMatchesReference) {
    STRATA_REQUIRE_GPU();
    sweep_cases(gemm_cases(), "cuda.gemm");
}

TEST(GemmTiled, FullyConnectedMatchesReference) {
    STRATA_REQUIRE_GPU();
    sweep_cases(fc_cases(), "cuda.gemm.fc");
}

TEST(GemmTiled, SixteenBitOperandsGiveAnUnroundedFloat32Result) {
    STRATA_REQUIRE_GPU();
    expect_unrounded_fp32_results("cuda.gemm.fc", test_seed() + 500);
}

TEST(GemmTiled, ChannelsLastRank4OperandIsRefused) {
    STRATA_REQUIRE_GPU();
    auto graph = MatMulCase{{2, 3, 5, 7}, {2, 3, 7, 4}}.graph();
    TacticRun r = run_tactic(*graph, 0, "cuda.matmul", 0, DType::f32, Layout::nhwc, test_seed());
    EXPECT_FALSE(r.ran);
    EXPECT_NE(r.refused.find("channels-last"), std::string::npos) << r.refused;
}

TEST(GemmTiled, RandomShapesMatchReference) {
    STRATA_REQUIRE_GPU();
    uint64_t seed = test_seed();
    std::mt19937_64 rng(seed);
    std::vector<MatMulCase> matmuls;
    std::vector<GemmCase> gemms;
    std::vector<FcCase> fcs;
    for (int i = 0; i < 5; ++i) {
        matmuls.push_back(random_matmul_case(rng, i % 2 == 0));
        gemms.push_back(random_gemm_case(rng));
        fcs.push_back(random_fc_case(rng));
    }
    sweep_cases(matmuls, "cuda.matmul");
    sweep_cases(gemms, "cuda.gemm");
    sweep_cases(fcs, "cuda.gemm.fc");
}

}  // namespace
}  // namespace strata::test
