// test_conv_stem_gemm.cpp: the tensor-core stem (cuda.conv.stem_gemm, both kernels: config 0 gathers each pixel's
// taps, config 1 stages input rows and takes stride 2 only) against the reference backend: the 3x3 and 7x7
// three-channel stems of the zoo (stride 2, with and without padding, asymmetric SAME pads), stride 1 and dilation 2
// (the gather), K from 8 to 96 (whole and partial 32-channel groups), pixel counts that end inside a 32-pixel round,
// rows wider than one 128-pixel segment, the fused activations and residual, fp16 and bf16; random shapes; images
// large enough that every block takes several rounds or row tasks; and what it must refuse, with a reason (also on
// the host, without a GPU).
#include "backends/cuda/kernels/conv/stem_gemm.h"
#include "backends/cuda/param_forms.h"
#include "conv_gpu_check.h"
#include "conv_step_runner.h"

namespace strata::test {
namespace {

using ir::UnaryKind;

constexpr const char* kStemGemm = "cuda.conv.stem_gemm";
const DType kDtypes[] = {DType::f16, DType::bf16};

// n c h w m | kh kw sh sw dh dw | pt pl pb pr | group bias act
const GpuConvCase kCases[] = {
    {1, 3, 57, 59, 64, 7, 7, 2, 2, 1, 1, 3, 3, 3, 3, 1, true, UnaryKind::Relu},       // ResNet stem, odd size
    {3, 3, 33, 31, 32, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 1, true, UnaryKind::HardSwish},  // MobileNet stem
    {2, 3, 29, 30, 24, 3, 3, 2, 2, 1, 1, 0, 0, 1, 1, 1, true, UnaryKind::SiLU},       // SAME pads, K = 24
    {2, 3, 35, 35, 64, 3, 3, 2, 2, 1, 1, 0, 0, 0, 0, 1, true, UnaryKind::Relu},       // SqueezeNet: no padding
    {1, 3, 23, 25, 16, 3, 3, 1, 1, 2, 2, 2, 2, 2, 2, 1, false},                       // dilation 2, stride 1
    {1, 3, 19, 21, 40, 7, 7, 1, 2, 1, 1, 3, 2, 3, 1, 1, true, UnaryKind::Relu6},      // K = 40, stride 1x2
    {1, 3, 5, 7, 8, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1, true, UnaryKind::Sigmoid},       // K = 8, 35 pixels
    {1, 3, 9, 11, 96, 3, 3, 2, 1, 1, 1, 1, 0, 1, 2, 1, true, UnaryKind::Relu6},       // K = 96, three groups
    {2, 3, 3, 3, 64, 7, 7, 2, 2, 1, 1, 3, 3, 3, 3, 1, true},                          // taps mostly outside
    {1, 3, 21, 301, 32, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 1, true, UnaryKind::Relu6},     // Q = 151: two segments
    {1, 3, 9, 520, 16, 7, 7, 2, 2, 1, 1, 3, 3, 3, 3, 1, true},                        // Q = 260: three segments
};

// The configs that take the case (the rows kernel: stride 2, dilation 1).
std::vector<int> configs_for(const GpuConvCase& cc) {
    if (cc.sh == 2 && cc.sw == 2 && cc.dh == 1 && cc.dw == 1) return {cuda::kStemGather, cuda::kStemRows};
    return {cuda::kStemGather};
}

TEST(GpuConvStemGemm, MatchesReferenceOnShapeTable) {
    STRATA_REQUIRE_GPU();
    uint64_t seed = test_seed();
    for (const GpuConvCase& cc : kCases)
        for (int config : configs_for(cc))
            for (DType dt : kDtypes) expect_conv_matches(cc, kStemGemm, config, dt, Layout::nhwc, seed += 10);
}

TEST(GpuConvStemGemm, MatchesReferenceOnRandomCases) {
    STRATA_REQUIRE_GPU();
    uint64_t seed = test_seed() + 100000;
    std::mt19937_64 rng(seed);
    ConvCaseLimits lim;
    lim.channels = {3};
    lim.outputs = {8, 16, 24, 32, 40, 64, 72};
    lim.kernels = {3, 7};
    lim.max_hw = 40;
    for (int i = 0; i < 30; ++i) {
        GpuConvCase cc = random_conv_case(rng, lim);
        cc.kw = cc.kh;  // square filters: the shapes the kernel is compiled for
        cc.pl = std::min(cc.pl, cc.kw / 2 + 1), cc.pr = std::min(cc.pr, cc.kw / 2);
        cc.h = std::max(cc.h, cc.kh * cc.dh), cc.w = std::max(cc.w, cc.kw * cc.dw);
        for (int config : configs_for(cc))
            expect_conv_matches(cc, kStemGemm, config, kDtypes[i % 2], Layout::nhwc, seed + i, i % 3 == 1);
    }
}

// 24 x 111 x 111 pixels = 9240 rounds of 32 for the 3x3 stem, more than the 8448 warps an H200 holds at 8 blocks of
// 256 threads per SM; the 7x7 kernel's larger tiles allow fewer blocks, and 8 x 112 x 112 = 3136 rounds exceed them.
// The rows kernel has one task per output row: 24 x 111 and 8 x 112 rows, more than its persistent grid.
TEST(GpuConvStemGemm, LargeImageStridesOverRounds) {
    STRATA_REQUIRE_GPU();
    uint64_t seed = test_seed() + 200000;
    for (int config : {cuda::kStemGather, cuda::kStemRows}) {
        expect_conv_matches({24, 3, 224, 224, 64, 3, 3, 2, 2, 1, 1, 0, 0, 0, 0, 1, true, UnaryKind::Relu}, kStemGemm,
                            config, DType::f16, Layout::nhwc, seed + 1);
        expect_conv_matches({8, 3, 224, 224, 64, 7, 7, 2, 2, 1, 1, 3, 3, 3, 3, 1, true, UnaryKind::Relu}, kStemGemm,
                            config, DType::bf16, Layout::nhwc, seed + 2);
    }
}

// y = relu(conv + bias + z): the residual is added before the activation (conv_step_runner's reference).
TEST(GpuConvStemGemm, AddsResidualBeforeActivation) {
    STRATA_REQUIRE_GPU();
    uint64_t seed = test_seed() + 300000;
    const GpuConvCase cases[] = {
        {2, 3, 17, 19, 32, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 1, true},
        {1, 3, 13, 11, 40, 7, 7, 2, 2, 1, 1, 3, 3, 3, 3, 1, false},
    };
    for (const GpuConvCase& cc : cases)
        for (DType dt : kDtypes) {
            seed += 10;
            const std::string what =
                fmt::format("{} {} residual + Relu: {} (seed {})", kStemGemm, dtype_name(dt), cc.str(), seed);
            for (int config : configs_for(cc)) {
                ConvStepResult r = run_conv_step(cc, kStemGemm, config, dt, Layout::nhwc, seed, {.residual = true});
                ASSERT_EQ(r.refused, "") << what << " config " << config;
                EXPECT_LE(r.max_rel_error, gpu_tolerance(dt)) << what << " config " << config;
                EXPECT_EQ(r.unwritten, 0) << what << " config " << config;
            }
        }
}

// can_implement alone, on the host (host_can_implement: no GPU needed, so this also runs in CI).
TEST(GpuConvStemGemm, CanImplementReasonsOnHost) {
    const GpuConvCase ok{64, 3, 224, 224, 64, 3, 3, 2, 2, 1, 1, 0, 0, 0, 0, 1, true, UnaryKind::Relu};
    const GpuConvCase resnet{64, 3, 224, 224, 64, 7, 7, 2, 2, 1, 1, 3, 3, 3, 3, 1, true, UnaryKind::Relu};
    EXPECT_EQ(host_can_implement(ok, kStemGemm, DType::f16, Layout::nhwc), "");
    EXPECT_EQ(host_can_implement(resnet, kStemGemm, DType::bf16, Layout::nhwc), "");
    EXPECT_EQ(host_can_implement(ok, kStemGemm, DType::f16, Layout::nhwc, cuda::kStemRows), "");
    EXPECT_EQ(host_can_implement(resnet, kStemGemm, DType::bf16, Layout::nhwc, cuda::kStemRows), "");
    GpuConvCase stride1 = ok;
    stride1.sh = stride1.sw = 1;
    EXPECT_EQ(host_can_implement(stride1, kStemGemm, DType::f16, Layout::nhwc), "");
    EXPECT_NE(host_can_implement(stride1, kStemGemm, DType::f16, Layout::nhwc, cuda::kStemRows).find("stride 2"),
              std::string::npos);
    GpuConvCase dilated = ok;
    dilated.dh = dilated.dw = 2;
    EXPECT_NE(host_can_implement(dilated, kStemGemm, DType::f16, Layout::nhwc, cuda::kStemRows).find("dilation 1"),
              std::string::npos);
    auto expect_reason = [](const std::string& reason, const std::string& part) {
        EXPECT_NE(reason.find(part), std::string::npos) << "reason '" << reason << "' should mention '" << part << "'";
    };
    expect_reason(host_can_implement(ok, kStemGemm, DType::f32, Layout::nhwc), "fp16 and bf16");
    expect_reason(host_can_implement(ok, kStemGemm, DType::f16, Layout::nchw), "nhwc");
    GpuConvCase four = ok;
    four.c = 4;
    expect_reason(host_can_implement(four, kStemGemm, DType::f16, Layout::nhwc), "3 input channels");
    GpuConvCase five = ok;
    five.kh = five.kw = 5;
    expect_reason(host_can_implement(five, kStemGemm, DType::f16, Layout::nhwc), "3x3 or 7x7");
    GpuConvCase rect = ok;
    rect.kw = 7;
    expect_reason(host_can_implement(rect, kStemGemm, DType::f16, Layout::nhwc), "3x3 or 7x7");
    GpuConvCase odd_k = ok;
    odd_k.m = 20;
    expect_reason(host_can_implement(odd_k, kStemGemm, DType::f16, Layout::nhwc), "K % 8");
    GpuConvCase one_d{1, 3, 0, 21, 16, 1, 3, 1, 1, 1, 1, 0, 1, 0, 1, 1, true};
    expect_reason(host_can_implement(one_d, kStemGemm, DType::f16, Layout::nhwc), "2-D");
}

}  // namespace
}  // namespace strata::test
