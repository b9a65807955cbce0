// test_conv_pointwise_narrow.cpp: the narrow 1x1 convolution (cuda.conv.pointwise_narrow) against the reference
// backend: every C it takes (8..64, with and without a half k-step of padding), K that is and is not a multiple of
// the 32-channel group, pixel counts that end inside a 16-pixel tile, strides, bias or not, the fused activations,
// the fused residual (before the activation), fp16 and bf16; a size large enough that every warp strides over
// several tiles; and what it must refuse, with a reason (also checked on the host, without a GPU).
#include "backends/cuda/param_forms.h"
#include "conv_gpu_check.h"
#include "conv_step_runner.h"

namespace strata::test {
namespace {

using ir::UnaryKind;

constexpr const char* kPw = "cuda.conv.pointwise_narrow";
const DType kDtypes[] = {DType::f16, DType::bf16};

// A 1x1 convolution case: n c h w -> k, stride sh x sw, no padding.
GpuConvCase pw_case(int64_t n, int64_t c, int64_t h, int64_t w, int64_t k, bool bias,
                    std::optional<UnaryKind> act = std::nullopt, int64_t sh = 1, int64_t sw = 1) {
    return GpuConvCase{n, c, h, w, k, 1, 1, sh, sw, 1, 1, 0, 0, 0, 0, 1, bias, act};
}

const GpuConvCase kPwCases[] = {
    pw_case(1, 16, 7, 9, 96, true, UnaryKind::Relu6),        // MobileNetV2 features.2 expand, 63 pixels
    pw_case(3, 24, 5, 11, 144, true, UnaryKind::Relu6),      // features.3/4 expand: K % 32 == 16
    pw_case(1, 8, 3, 3, 8, false),                           // smallest: one half k-step, one lane column of K
    pw_case(2, 32, 9, 7, 192, true, UnaryKind::SiLU),        // EfficientNet-like
    pw_case(1, 40, 5, 5, 240, true, UnaryKind::HardSwish),   // C = 40: padded k-step; K % 32 == 16
    pw_case(1, 64, 7, 7, 384, true, UnaryKind::Relu6),       // C = 64 (4 k-steps), largest MobileNetV2 expand
    pw_case(1, 56, 3, 5, 40, true, UnaryKind::Sigmoid),      // K % 32 == 8
    pw_case(2, 48, 1, 1, 88, false, UnaryKind::Relu),        // one pixel per image, K % 32 == 24
    pw_case(1, 16, 1, 17, 72, true),                         // a 1-pixel-high image, 17 pixels: tile tail of 1
    pw_case(3, 24, 11, 13, 24, true, UnaryKind::Relu),       // K < 32: only lanes t < 3 store
    pw_case(1, 16, 9, 11, 64, true, UnaryKind::Relu, 2, 2),  // stride 2
    pw_case(2, 32, 8, 9, 48, false, UnaryKind::SiLU, 2, 1),  // stride 2x1, even height
};

TEST(GpuConvPointwiseNarrow, MatchesReferenceOnShapeTable) {
    STRATA_REQUIRE_GPU();
    uint64_t seed = test_seed();
    for (const GpuConvCase& cc : kPwCases)
        for (DType dt : kDtypes) expect_conv_matches(cc, kPw, 0, dt, Layout::nhwc, seed += 10);
}

TEST(GpuConvPointwiseNarrow, MatchesReferenceOnRandomCases) {
    STRATA_REQUIRE_GPU();
    uint64_t seed = test_seed() + 100000;
    std::mt19937_64 rng(seed);
    const int64_t kChannels[] = {8, 16, 24, 32, 40, 64};
    const std::optional<UnaryKind> kActs[] = {std::nullopt,    UnaryKind::Relu,      UnaryKind::Relu6,
                                              UnaryKind::SiLU, UnaryKind::HardSwish, UnaryKind::Sigmoid};
    auto odd = [&](int64_t lo, int64_t hi) { return (lo + static_cast<int64_t>(rng() % (hi - lo + 1))) | 1; };
    for (int i = 0; i < 40; ++i) {
        const int64_t c = kChannels[rng() % 6];
        const int64_t k = 8 * (1 + static_cast<int64_t>(rng() % 40));  // 8 .. 320
        const int64_t n = 1 + static_cast<int64_t>(rng() % 3);
        const int64_t h = odd(1, 23), w = odd(1, 23);
        const int64_t s = rng() % 5 == 0 ? 2 : 1;
        const bool bias = rng() % 4 != 0;
        const std::optional<UnaryKind> act = kActs[rng() % 6];
        GpuConvCase cc = pw_case(n, c, h, w, k, bias, act, s, s);
        expect_conv_matches(cc, kPw, 0, kDtypes[i % 2], Layout::nhwc, seed + 13 * i, i % 3 == 1);
    }
}

// 16 x 127 x 127 = 258064 pixels = 16130 tiles of 16. An H200 holds at most 8 blocks of 256 threads per SM,
// 132 x 8 x 8 = 8448 warps, so every warp runs the loop (and the next-tile prefetch) at least once more.
TEST(GpuConvPointwiseNarrow, LargeImageStridesOverTiles) {
    STRATA_REQUIRE_GPU();
    uint64_t seed = test_seed() + 200000;
    expect_conv_matches(pw_case(16, 16, 127, 127, 96, true, UnaryKind::Relu6), kPw, 0, DType::f16, Layout::nhwc,
                        seed + 1);
    expect_conv_matches(pw_case(16, 24, 127, 127, 144, false, UnaryKind::SiLU), kPw, 0, DType::bf16, Layout::nhwc,
                        seed + 2);
}

// y = relu(conv + bias + z): the residual is added before the activation (conv_step_runner's reference).
TEST(GpuConvPointwiseNarrow, AddsResidualBeforeActivation) {
    STRATA_REQUIRE_GPU();
    uint64_t seed = test_seed() + 300000;
    const GpuConvCase cases[] = {
        pw_case(2, 16, 7, 9, 96, true),
        pw_case(1, 24, 5, 5, 40, false),
        pw_case(3, 64, 3, 5, 72, true),
        pw_case(1, 8, 1, 9, 8, true),
        pw_case(1, 40, 9, 9, 48, true, std::nullopt, 2, 2),
    };
    for (const GpuConvCase& cc : cases)
        for (DType dt : kDtypes) {
            seed += 10;
            const std::string what =
                fmt::format("{} {} residual + Relu: {} (seed {})", kPw, dtype_name(dt), cc.str(), seed);
            ConvStepResult r = run_conv_step(cc, kPw, 0, dt, Layout::nhwc, seed, {.residual = true});
            ASSERT_EQ(r.refused, "") << what;
            EXPECT_LE(r.max_rel_error, gpu_tolerance(dt)) << what;
            EXPECT_EQ(r.unwritten, 0) << what;
        }
}

// The residual as the IR carries it (Conv's input 3), with SiLU and HardSwish after the sum.
TEST(GpuConvPointwiseNarrow, TakesIrInputZ) {
    STRATA_REQUIRE_GPU();
    uint64_t seed = test_seed() + 400000;
    const GpuConvCase cases[] = {pw_case(2, 24, 9, 7, 144, true, UnaryKind::SiLU),
                                 pw_case(1, 32, 5, 11, 56, false, UnaryKind::HardSwish)};
    for (const GpuConvCase& cc : cases)
        for (DType dt : kDtypes) {
            seed += 10;
            const std::string what =
                fmt::format("{} {} with input Z: {} (seed {})", kPw, dtype_name(dt), cc.str(), seed);
            auto graph = conv_case_graph(cc, seed, /*residual=*/true);
            TacticRun r = run_tactic(*graph, 0, kPw, 0, dt, Layout::nhwc, seed);
            ASSERT_TRUE(r.ran) << what << ": refused: " << r.refused;
            EXPECT_LE(r.max_rel_error, gpu_tolerance(dt)) << what;
            EXPECT_EQ(r.unwritten, 0) << what;
        }
}

// Refused with a reason that names the problem.
void expect_refused_because(const GpuConvCase& cc, DType dtype, Layout layout, const std::string& reason_part) {
    auto graph = conv_case_graph(cc, 1);
    TacticRun r = run_tactic(*graph, 0, kPw, 0, dtype, layout, 1);
    EXPECT_FALSE(r.ran) << kPw << " should refuse " << cc.str() << " " << dtype_name(dtype);
    EXPECT_NE(r.refused.find(reason_part), std::string::npos)
        << cc.str() << ": reason '" << r.refused << "' should mention '" << reason_part << "'";
}

TEST(GpuConvPointwiseNarrow, RefusesWhatItDoesNotCover) {
    STRATA_REQUIRE_GPU();
    const GpuConvCase ok = pw_case(1, 16, 9, 9, 96, true);
    expect_conv_matches(ok, kPw, 0, DType::f16, Layout::nhwc, test_seed());  // the baseline does run
    expect_refused_because(ok, DType::f32, Layout::nhwc, "fp16 and bf16");
    expect_refused_because(ok, DType::f16, Layout::nchw, "nhwc");
    expect_refused_because(pw_case(1, 72, 9, 9, 96, true), DType::f16, Layout::nhwc, "C <= 64");
    expect_refused_because(pw_case(1, 12, 9, 9, 96, true), DType::f16, Layout::nhwc, "C % 8");
    expect_refused_because(pw_case(1, 16, 9, 9, 20, true), DType::bf16, Layout::nhwc, "K % 8");
    GpuConvCase three = ok;
    three.kh = three.kw = 3, three.pt = three.pl = three.pb = three.pr = 1;
    expect_refused_because(three, DType::f16, Layout::nhwc, "1x1");
    GpuConvCase padded = ok;
    padded.pt = padded.pl = padded.pb = padded.pr = 1;
    expect_refused_because(padded, DType::f16, Layout::nhwc, "padding");
    GpuConvCase grouped = ok;
    grouped.group = 2;
    expect_refused_because(grouped, DType::f16, Layout::nhwc, "group");
    GpuConvCase one_d{1, 16, 0, 21, 16, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 1, true};
    expect_refused_because(one_d, DType::f16, Layout::nhwc, "2-D");
}

// can_implement alone, on the host (host_can_implement: no GPU needed, so this also runs in CI): the MobileNetV2
// expand layers at batch 64 are taken, and each refusal names its reason.
TEST(GpuConvPointwiseNarrow, CanImplementReasonsOnHost) {
    const GpuConvCase ok = pw_case(1, 16, 9, 9, 96, true);
    EXPECT_EQ(host_can_implement(ok, kPw, DType::f16, Layout::nhwc), "");
    EXPECT_EQ(host_can_implement(pw_case(64, 16, 112, 112, 96, true, UnaryKind::Relu6), kPw, DType::f16, Layout::nhwc),
              "");
    EXPECT_EQ(host_can_implement(pw_case(64, 24, 56, 56, 144, true, UnaryKind::Relu6), kPw, DType::bf16, Layout::nhwc),
              "");
    EXPECT_EQ(host_can_implement(pw_case(64, 64, 14, 14, 384, true, UnaryKind::Relu6), kPw, DType::f16, Layout::nhwc),
              "");
    EXPECT_EQ(host_can_implement(pw_case(2, 16, 9, 9, 32, false, std::nullopt, 2, 2), kPw, DType::f16, Layout::nhwc),
              "");
    auto expect_reason = [](const std::string& reason, const std::string& part) {
        EXPECT_NE(reason.find(part), std::string::npos) << "reason '" << reason << "' should mention '" << part << "'";
    };
    expect_reason(host_can_implement(ok, kPw, DType::f32, Layout::nhwc), "fp16 and bf16");
    expect_reason(host_can_implement(ok, kPw, DType::f16, Layout::nchw), "nhwc");
    expect_reason(host_can_implement(pw_case(1, 72, 9, 9, 96, true), kPw, DType::f16, Layout::nhwc), "C <= 64");
    expect_reason(host_can_implement(pw_case(1, 12, 9, 9, 96, true), kPw, DType::f16, Layout::nhwc), "C % 8");
    expect_reason(host_can_implement(pw_case(1, 16, 9, 9, 20, true), kPw, DType::f16, Layout::nhwc), "K % 8");
    GpuConvCase three = ok;
    three.kh = three.kw = 3, three.pt = three.pl = three.pb = three.pr = 1;
    expect_reason(host_can_implement(three, kPw, DType::f16, Layout::nhwc), "1x1");
    GpuConvCase padded = ok;
    padded.pt = padded.pl = padded.pb = padded.pr = 1;
    expect_reason(host_can_implement(padded, kPw, DType::f16, Layout::nhwc), "padding");
    GpuConvCase grouped = ok;
    grouped.group = 2;
    expect_reason(host_can_implement(grouped, kPw, DType::f16, Layout::nhwc), "group");
}

}  // namespace
}  // namespace strata::test
