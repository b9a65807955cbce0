// test_conv_stem.cpp: the few-input-channel direct convolution (cuda.conv.direct_stem) against the reference
// backend: C = 1..4, output channel counts that are and are not multiples of the 8 a thread computes, the 7x7 and
// 3x3 stride-2 stems, random shapes, every float dtype, nchw and nhwc; and what it must refuse.
#include "conv_gpu_check.h"

namespace strata::test {
namespace {

using ir::UnaryKind;

constexpr const char* kStem = "cuda.conv.direct_stem";
const DType kDtypes[] = {DType::f32, DType::f16, DType::bf16};
const Layout kLayouts[] = {Layout::nchw, Layout::nhwc};

// n c h w m | kh kw sh sw dh dw | pt pl pb pr | group bias act
const GpuConvCase kStemCases[] = {
    {1, 3, 57, 59, 64, 7, 7, 2, 2, 1, 1, 3, 3, 3, 3, 1, true, UnaryKind::Relu},       // ResNet stem, odd size
    {3, 3, 33, 31, 32, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 1, true, UnaryKind::HardSwish},  // MobileNet stem
    {2, 3, 29, 30, 24, 3, 3, 2, 2, 1, 1, 0, 0, 1, 1, 1, true, UnaryKind::SiLU},       // asymmetric pads (SAME)
    {1, 1, 19, 17, 13, 5, 5, 1, 1, 1, 1, 2, 2, 2, 2, 1, false},                       // C = 1, K not a multiple of 8
    {1, 2, 15, 16, 5, 3, 3, 1, 1, 2, 2, 2, 2, 2, 2, 1, true, UnaryKind::Sigmoid},     // dilation 2, K < 8
    {3, 4, 12, 13, 16, 3, 2, 1, 2, 1, 1, 0, 1, 2, 0, 1, true, UnaryKind::Relu6},      // rectangular
    {2, 3, 0, 37, 9, 1, 5, 1, 2, 1, 1, 0, 2, 0, 1, 1, true},                          // 1-D
};

TEST(GpuConvStem, MatchesReferenceOnShapeTable) {
    STRATA_REQUIRE_GPU();
    uint64_t seed = test_seed();
    for (const GpuConvCase& cc : kStemCases)
        for (DType dt : kDtypes)
            for (Layout layout : kLayouts) expect_conv_matches(cc, kStem, 0, dt, layout, seed += 10);
}

TEST(GpuConvStem, MatchesReferenceOnRandomCases) {
    STRATA_REQUIRE_GPU();
    uint64_t seed = test_seed() + 100000;
    std::mt19937_64 rng(seed);
    ConvCaseLimits lim;
    lim.channels = {1, 2, 3, 4};
    lim.outputs = {3, 8, 16, 21, 32};  // 7x7 x 4 x 32 float weights stay well inside the 48 KiB the stem stages
    lim.max_hw = 40;
    for (int i = 0; i < 30; ++i) {
        GpuConvCase cc = random_conv_case(rng, lim);
        expect_conv_matches(cc, kStem, 0, kDtypes[i % 3], kLayouts[(i / 3) % 2], seed + i, i % 3 == 1);
    }
}

TEST(GpuConvStem, RefusesWhatItDoesNotCover) {
    STRATA_REQUIRE_GPU();
    expect_conv_refused({1, 5, 9, 9, 8, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1, true}, kStem, 0, DType::f32, Layout::nchw);
    expect_conv_refused({1, 4, 9, 9, 8, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 2, true}, kStem, 0, DType::f16, Layout::nhwc);
    // 512 x 7 x 7 x 4 float weights do not fit in 48 KiB of shared memory.
    expect_conv_refused({1, 4, 9, 9, 512, 7, 7, 1, 1, 1, 1, 3, 3, 3, 3, 1, true}, kStem, 0, DType::f16, Layout::nhwc);
}

}  // namespace
}  // namespace strata::test
