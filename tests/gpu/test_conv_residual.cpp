// test_conv_residual.cpp: the fused residual of every conv tactic, y = act(conv(x) + bias + z): through the IR
// (Conv's input 3, run_tactic against the reference), and through a StepDesc built by hand that checks the ReLU
// is applied after the sum (not before it).
#include "backends/cuda/kernels/conv/implicit_gemm.h"
#include "conv_step_runner.h"

namespace strata::test {
namespace {

void expect_residual_matches(const GpuConvCase& cc, const std::string& tactic, int config, DType dtype, Layout layout,
                             uint64_t seed) {
    const std::string what = fmt::format("{} config {} {} {} residual + Relu: {} (seed {})", tactic, config,
                                         dtype_name(dtype), layout_name(layout), cc.str(), seed);
    ConvStepResult r = run_conv_step(cc, tactic, config, dtype, layout, seed, {.residual = true});
    ASSERT_EQ(r.refused, "") << what;
    EXPECT_LE(r.max_rel_error, gpu_tolerance(dtype)) << what;
    EXPECT_EQ(r.unwritten, 0) << what;
}

// Conv with input 3 in the graph: the harness builds the step as the GPU builder does.
void expect_ir_residual_matches(const GpuConvCase& cc, const std::string& tactic, int config, DType dtype,
                                Layout layout, uint64_t seed) {
    const std::string what = fmt::format("{} config {} {} {} with input Z: {} (seed {})", tactic, config,
                                         dtype_name(dtype), layout_name(layout), cc.str(), seed);
    auto graph = conv_case_graph(cc, seed, /*residual=*/true);
    TacticRun r = run_tactic(*graph, 0, tactic, config, dtype, layout, seed);
    ASSERT_TRUE(r.ran) << what << ": refused: " << r.refused;
    EXPECT_LE(r.max_rel_error, gpu_tolerance(dtype)) << what;
    EXPECT_EQ(r.unwritten, 0) << what;
}

// n c h w m | kh kw sh sw dh dw | pt pl pb pr | group bias
const GpuConvCase kResidualCase{2, 16, 11, 9, 24, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1, true};
const GpuConvCase kNoBiasCase{1, 8, 7, 6, 16, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 1, false};  // residual, no bias
const GpuConvCase kStemResidualCase{1, 3, 21, 19, 12, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 1, true};

TEST(GpuConvResidual, DirectAddsResidualBeforeActivation) {
    STRATA_REQUIRE_GPU();
    uint64_t seed = test_seed();
    for (DType dt : {DType::f32, DType::f16, DType::bf16})
        for (Layout layout : {Layout::nchw, Layout::nhwc}) {
            expect_residual_matches(kResidualCase, "cuda.conv.direct", 0, dt, layout, seed += 10);
            expect_residual_matches(kNoBiasCase, "cuda.conv.direct", 0, dt, layout, seed += 10);
        }
}

TEST(GpuConvResidual, StemAddsResidualBeforeActivation) {
    STRATA_REQUIRE_GPU();
    uint64_t seed = test_seed() + 1000;
    for (DType dt : {DType::f32, DType::f16, DType::bf16})
        for (Layout layout : {Layout::nchw, Layout::nhwc})
            expect_residual_matches(kStemResidualCase, "cuda.conv.direct_stem", 0, dt, layout, seed += 10);
}

TEST(GpuConvResidual, ImplicitGemmAddsResidualBeforeActivation) {
    STRATA_REQUIRE_GPU();
    uint64_t seed = test_seed() + 2000;
    for (int config = 0; config < cuda::kImplicitGemmNumConfigs; ++config)
        for (DType dt : {DType::f16, DType::bf16}) {
            expect_residual_matches(kResidualCase, "cuda.conv.implicit_gemm", config, dt, Layout::nhwc, seed += 10);
            expect_residual_matches(kNoBiasCase, "cuda.conv.implicit_gemm", config, dt, Layout::nhwc, seed += 10);
        }
}

TEST(GpuConvResidual, EveryTacticTakesIrInputZ) {
    STRATA_REQUIRE_GPU();
    uint64_t seed = test_seed() + 3000;
    GpuConvCase with_act = kResidualCase;
    with_act.act = ir::UnaryKind::SiLU;
    for (DType dt : {DType::f32, DType::f16, DType::bf16})
        for (Layout layout : {Layout::nchw, Layout::nhwc}) {
            expect_ir_residual_matches(with_act, "cuda.conv.direct", 0, dt, layout, seed += 10);
            expect_ir_residual_matches(kNoBiasCase, "cuda.conv.direct", 0, dt, layout, seed += 10);
            expect_ir_residual_matches(kStemResidualCase, "cuda.conv.direct_stem", 0, dt, layout, seed += 10);
        }
    for (int config = 0; config < cuda::kImplicitGemmNumConfigs; ++config)
        for (DType dt : {DType::f16, DType::bf16}) {
            expect_ir_residual_matches(with_act, "cuda.conv.implicit_gemm", config, dt, Layout::nhwc, seed += 10);
            expect_ir_residual_matches(kNoBiasCase, "cuda.conv.implicit_gemm", config, dt, Layout::nhwc, seed += 10);
        }
}

}  // namespace
}  // namespace strata::test
