// test_conv_implicit_gemm.cpp: strata's tensor-core convolution (cuda.conv.implicit_gemm) and its fully-connected
// form (cuda.fc.implicit_gemm), every config, fp16 and bf16, NHWC, against the reference backend: tile tails in M
// and N, reductions of one slice and of many, C smaller than a slice (chunks of one slice in different taps),
// strides, asymmetric pads, dilation, 1x1 to 7x7; fp32 through TF32 when the step allows it; and what the tactics
// must refuse.
#include "backends/cuda/kernels/conv/implicit_gemm.h"
#include "conv_gpu_check.h"
#include "conv_step_runner.h"

namespace strata::test {
namespace {

using ir::UnaryKind;

constexpr const char* kConvTactic = "cuda.conv.implicit_gemm";
constexpr const char* kFcTactic = "cuda.fc.implicit_gemm";
const DType kDtypes[] = {DType::f16, DType::bf16};

// n c h w m | kh kw sh sw dh dw | pt pl pb pr | group bias act
const GpuConvCase kGemmCases[] = {
    {1, 8, 5, 7, 8, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 1, false},                           // one slice, tiny
    {3, 64, 14, 14, 64, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 1, true, UnaryKind::Relu},       // pointwise, batch 3
    {1, 8, 17, 19, 16, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1, true, UnaryKind::Relu6},       // C = 8: 4 taps per slice
    {2, 24, 13, 11, 40, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 1, true},                        // C = 24: chunks straddle slices
    {1, 8, 23, 21, 64, 7, 7, 2, 2, 1, 1, 3, 3, 3, 3, 1, true, UnaryKind::SiLU},        // 7x7 stride 2
    {1, 16, 15, 17, 24, 3, 3, 1, 1, 2, 2, 2, 2, 2, 2, 1, true},                        // dilation 2
    {1, 32, 12, 13, 72, 3, 2, 1, 2, 3, 1, 0, 1, 2, 0, 1, true, UnaryKind::HardSwish},  // rectangular, asymmetric
    {1, 256, 9, 9, 264, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1, true},                        // K = 2304, N tail past 256
    {2, 40, 9, 10, 136, 5, 5, 1, 1, 1, 1, 2, 2, 2, 2, 1, false, UnaryKind::Sigmoid},
    {1, 16, 4, 5, 8, 5, 5, 1, 1, 1, 1, 2, 2, 2, 2, 1, true},     // mostly padding
    {3, 128, 7, 7, 512, 1, 1, 2, 2, 1, 1, 0, 0, 0, 0, 1, true},  // 1x1 stride 2 downsample
};

TEST(GpuConvImplicitGemm, EveryConfigMatchesReferenceOnShapeTable) {
    STRATA_REQUIRE_GPU();
    uint64_t seed = test_seed();
    for (int config = 0; config < cuda::kImplicitGemmNumConfigs; ++config)
        for (const GpuConvCase& cc : kGemmCases)
            for (DType dt : kDtypes) expect_conv_matches(cc, kConvTactic, config, dt, Layout::nhwc, seed += 10);
}

TEST(GpuConvImplicitGemm, EveryConfigMatchesReferenceOnRandomCases) {
    STRATA_REQUIRE_GPU();
    uint64_t seed = test_seed() + 100000;
    std::mt19937_64 rng(seed);
    ConvCaseLimits lim;
    lim.channels = {8, 16, 24, 32, 40, 64, 96};
    lim.outputs = {8, 16, 24, 40, 64, 72, 136};
    for (int config = 0; config < cuda::kImplicitGemmNumConfigs; ++config) {
        for (int i = 0; i < 12; ++i) {
            GpuConvCase cc = random_conv_case(rng, lim);
            expect_conv_matches(cc, kConvTactic, config, kDtypes[i % 2], Layout::nhwc, seed + 97 * config + i,
                                i % 3 == 1);
        }
    }
}

// TF32 keeps fp16's 10 mantissa bits (inputs are rounded to them, products accumulate in fp32), so the fp16
// tolerance is the one that applies; fp32 without TF32 is refused (RefusesWhatItDoesNotCover).
void expect_tf32_conv_matches(const GpuConvCase& cc, int config, uint64_t seed) {
    const std::string what =
        fmt::format("{} config {} float32 tf32 nhwc: {} (seed {})", kConvTactic, config, cc.str(), seed);
    ConvStepResult r = run_conv_step(cc, kConvTactic, config, DType::f32, Layout::nhwc, seed, {.allow_tf32 = true});
    ASSERT_EQ(r.refused, "") << what;
    EXPECT_LE(r.max_rel_error, gpu_tolerance(DType::f16)) << what;
    EXPECT_EQ(r.unwritten, 0) << what;
}

TEST(GpuConvImplicitGemm, Tf32EveryConfigMatchesReference) {
    STRATA_REQUIRE_GPU();
    uint64_t seed = test_seed() + 400000;
    std::vector<GpuConvCase> cases(std::begin(kGemmCases), std::end(kGemmCases));
    cases.push_back({1, 4, 9, 11, 16, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1, true});                    // C = 4: one chunk
    cases.push_back({2, 12, 10, 9, 24, 3, 3, 2, 1, 1, 1, 1, 0, 1, 2, 1, true, UnaryKind::Relu});  // C = 12
    for (int config = 0; config < cuda::kImplicitGemmNumConfigs; ++config) {
        for (const GpuConvCase& cc : cases) expect_tf32_conv_matches(cc, config, seed += 10);
    }
}

// A ResNet layer4-like 3x3 conv at batch 1 has too few output tiles to fill the GPU: every config splits K over
// several blocks (float partial sums in the workspace, then the reduction applies the epilogue).
TEST(GpuConvImplicitGemm, SmallProblemsSplitKAndMatchReference) {
    STRATA_REQUIRE_GPU();
    uint64_t seed = test_seed() + 500000;
    const GpuConvCase cc{1, 256, 7, 7, 128, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1, true, UnaryKind::Relu};
    cuda::ConvGeometry g;
    g.n = 1, g.c = 256, g.h = 7, g.w = 7, g.k = 128, g.p = 7, g.q = 7, g.r = 3, g.s = 3, g.pad_h = 1, g.pad_w = 1;
    const int sms = cuda::device_info(0).sm_count;
    for (int config = 0; config < cuda::kImplicitGemmNumConfigs; ++config) {
        EXPECT_GT(cuda::implicit_gemm_splits(g, DType::f16, config, sms), 1)
            << "config " << config << ", " << sms << " SMs: " << cc.str();
        for (DType dt : kDtypes) expect_conv_matches(cc, kConvTactic, config, dt, Layout::nhwc, seed += 10);
        ConvStepResult r =
            run_conv_step(cc, kConvTactic, config, DType::f16, Layout::nhwc, seed += 10, {.residual = true});
        ASSERT_EQ(r.refused, "");
        EXPECT_LE(r.max_rel_error, gpu_tolerance(DType::f16)) << "split-K with residual, config " << config;
        EXPECT_EQ(r.unwritten, 0) << "split-K with residual, config " << config;
    }
}

TEST(GpuFcImplicitGemm, EveryConfigMatchesReference) {
    STRATA_REQUIRE_GPU();
    uint64_t seed = test_seed() + 200000;
    for (int config = 0; config < cuda::kImplicitGemmNumConfigs; ++config) {
        for (DType dt : kDtypes) {
            expect_fc_matches(kFcTactic, config, 1, 2048, 1000, true, std::nullopt, dt, seed += 10);
            expect_fc_matches(kFcTactic, config, 3, 8, 8, false, std::nullopt, dt, seed += 10);
            expect_fc_matches(kFcTactic, config, 67, 520, 136, true, UnaryKind::Relu, dt, seed += 10);
            expect_fc_matches(kFcTactic, config, 130, 1280, 264, true, UnaryKind::HardSwish, dt, seed += 10);
        }
    }
}

// FullyConnected in fp32 through TF32 (the fp16 tolerance applies, as for the conv); in % 4 == 0 suffices.
TEST(GpuFcImplicitGemm, Tf32EveryConfigMatchesReference) {
    STRATA_REQUIRE_GPU();
    uint64_t seed = test_seed() + 600000;
    struct FcSize {
        int64_t rows, in, out;
    };
    for (int config = 0; config < cuda::kImplicitGemmNumConfigs; ++config) {
        for (FcSize sz : {FcSize{1, 2048, 1000}, FcSize{67, 520, 136}, FcSize{5, 12, 8}}) {
            seed += 10;
            const std::string what = fmt::format("{} config {} float32 tf32: FC rows {} in {} out {} (seed {})",
                                                 kFcTactic, config, sz.rows, sz.in, sz.out, seed);
            auto graph = fc_case_graph(sz.rows, sz.in, sz.out, true, UnaryKind::Relu, seed);
            ConvStepResult r =
                run_step(graph, graph, kFcTactic, config, DType::f32, Layout::nhwc, seed, {.allow_tf32 = true});
            ASSERT_EQ(r.refused, "") << what;
            EXPECT_LE(r.max_rel_error, gpu_tolerance(DType::f16)) << what;
            EXPECT_EQ(r.unwritten, 0) << what;
        }
    }
}

// Random FullyConnected sizes (in and out multiples of 8, the kernel's 16-byte rows), random bias and activation.
TEST(GpuFcImplicitGemm, EveryConfigMatchesReferenceOnRandomSizes) {
    STRATA_REQUIRE_GPU();
    uint64_t seed = test_seed() + 610000;
    std::mt19937_64 rng(seed);
    const UnaryKind acts[] = {UnaryKind::Relu, UnaryKind::Relu6, UnaryKind::SiLU, UnaryKind::HardSwish};
    for (int config = 0; config < cuda::kImplicitGemmNumConfigs; ++config)
        for (int i = 0; i < 6; ++i) {
            const int64_t rows = 1 + static_cast<int64_t>(rng() % 140), in = 8 * (1 + static_cast<int64_t>(rng() % 90));
            const int64_t out = 8 * (1 + static_cast<int64_t>(rng() % 50));
            const std::optional<UnaryKind> act = rng() % 2 ? std::optional<UnaryKind>(acts[rng() % 4]) : std::nullopt;
            expect_fc_matches(kFcTactic, config, rows, in, out, rng() % 4 != 0, act, kDtypes[i % 2], seed += 10);
        }
}

// TF32 on random convolutions (C a multiple of 4: one 16-byte fp32 chunk).
TEST(GpuConvImplicitGemm, Tf32EveryConfigMatchesReferenceOnRandomCases) {
    STRATA_REQUIRE_GPU();
    uint64_t seed = test_seed() + 620000;
    std::mt19937_64 rng(seed);
    ConvCaseLimits lim;
    lim.channels = {4, 8, 12, 20, 36, 64};
    lim.outputs = {8, 16, 24, 40, 72};
    for (int config = 0; config < cuda::kImplicitGemmNumConfigs; ++config)
        for (int i = 0; i < 6; ++i) expect_tf32_conv_matches(random_conv_case(rng, lim), config, seed += 10);
}

TEST(GpuConvImplicitGemm, RefusesWhatItDoesNotCover) {
    STRATA_REQUIRE_GPU();
    const GpuConvCase ok{1, 16, 9, 9, 16, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1, true};
    expect_conv_matches(ok, kConvTactic, 0, DType::f16, Layout::nhwc, test_seed());  // the baseline does run
    expect_conv_refused(ok, kConvTactic, 0, DType::f32, Layout::nhwc);               // fp32
    expect_conv_refused(ok, kConvTactic, 0, DType::f16, Layout::nchw);               // nchw
    expect_conv_refused(ok, kConvTactic, cuda::kImplicitGemmNumConfigs, DType::f16,
                        Layout::nhwc);  // no such config
    GpuConvCase grouped = ok;
    grouped.group = 2;
    expect_conv_refused(grouped, kConvTactic, 0, DType::f16, Layout::nhwc);
    GpuConvCase odd_c = ok;
    odd_c.c = 12;
    expect_conv_refused(odd_c, kConvTactic, 0, DType::bf16, Layout::nhwc);
    GpuConvCase odd_k = ok;
    odd_k.m = 20;
    expect_conv_refused(odd_k, kConvTactic, 0, DType::bf16, Layout::nhwc);
    GpuConvCase one_d{1, 16, 0, 21, 16, 1, 3, 1, 1, 1, 1, 0, 1, 0, 1, 1, true};
    expect_conv_refused(one_d, kConvTactic, 0, DType::f16, Layout::nhwc);
}

TEST(GpuFcImplicitGemm, RefusesFeatureCountsNotMultipleOfEight) {
    STRATA_REQUIRE_GPU();
    for (auto [in, out] : {std::pair<int64_t, int64_t>{20, 16}, std::pair<int64_t, int64_t>{16, 1001}}) {
        ir::Builder b("gpu_fc_refused");
        ir::ValueId x = b.input("x", DType::f32, {2, in});
        ir::ValueId w = b.constant("w", random_tensor(DType::f32, {out, in}, 1));
        b.output(b.op(ir::OpKind::FullyConnected, {x, w}, ir::FullyConnectedAttrs{}));
        auto graph = b.finish();
        ir::infer_shapes(*graph);
        TacticRun r = run_tactic(*graph, 0, kFcTactic, 0, DType::f16, Layout::nhwc, 1);
        EXPECT_FALSE(r.ran) << "FC in " << in << " out " << out << " should be refused";
        EXPECT_FALSE(r.refused.empty());
    }
}

}  // namespace
}  // namespace strata::test
