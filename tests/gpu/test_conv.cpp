// test_conv.cpp: the generic CUDA convolution (cuda.conv.direct) and the tiled fully-connected kernel (cuda.fc.direct)
// against the reference backend: a table of edge shapes plus random cases (odd sizes and channel counts, strides,
// asymmetric pads, dilation, groups, depthwise, 1-D), every float dtype, nchw and nhwc, each fused activation.
#include "conv_gpu_check.h"

namespace strata::test {
namespace {

using ir::UnaryKind;

const DType kDtypes[] = {DType::f32, DType::f16, DType::bf16};
const Layout kLayouts[] = {Layout::nchw, Layout::nhwc};

// n c h w m | kh kw sh sw dh dw | pt pl pb pr | group bias act
const GpuConvCase kDirectCases[] = {
    {1, 3, 11, 13, 5, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 1, true},
    {3, 17, 9, 7, 19, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 1, false},
    {2, 3, 29, 31, 11, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 1, true, UnaryKind::Relu},
    {1, 3, 33, 35, 8, 7, 7, 2, 2, 1, 1, 3, 3, 3, 3, 1, true, UnaryKind::Relu6},      // stem-like 7x7
    {2, 6, 17, 21, 4, 3, 3, 1, 1, 2, 2, 2, 2, 2, 2, 1, true, UnaryKind::SiLU},       // dilation 2
    {1, 5, 14, 13, 7, 3, 2, 1, 2, 3, 1, 0, 1, 2, 0, 1, true},                        // rectangular, asymmetric
    {2, 6, 13, 11, 9, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 3, true, UnaryKind::HardSwish},  // groups 3
    {1, 16, 15, 15, 16, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 16, true, UnaryKind::Relu6},   // depthwise stride 2
    {1, 8, 9, 10, 16, 5, 5, 1, 1, 1, 1, 2, 2, 2, 2, 8, false, UnaryKind::Sigmoid},   // depthwise multiplier 2
    {3, 5, 0, 41, 6, 1, 4, 1, 2, 1, 1, 0, 3, 0, 2, 1, true},                         // 1-D
    {1, 3, 4, 5, 2, 5, 5, 1, 1, 1, 1, 2, 2, 2, 2, 1, true},                          // kernel larger than the image
    {1, 64, 19, 17, 13, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1, true},                      // long reduction
};

TEST(GpuConvDirect, MatchesReferenceOnShapeTable) {
    STRATA_REQUIRE_GPU();
    uint64_t seed = test_seed();
    for (const GpuConvCase& cc : kDirectCases)
        for (DType dt : kDtypes)
            for (Layout layout : kLayouts) expect_conv_matches(cc, "cuda.conv.direct", 0, dt, layout, seed += 10);
}

TEST(GpuConvDirect, MatchesReferenceOnRandomCases) {
    STRATA_REQUIRE_GPU();
    uint64_t seed = test_seed() + 100000;
    std::mt19937_64 rng(seed);
    ConvCaseLimits lim;
    lim.channels = {1, 2, 3, 5, 7};
    lim.outputs = {1, 3, 4, 9};
    lim.groups = {1, 1, 2, 3};
    lim.depthwise = true;
    lim.one_d = true;
    for (int i = 0; i < 40; ++i) {
        GpuConvCase cc = random_conv_case(rng, lim);
        expect_conv_matches(cc, "cuda.conv.direct", 0, kDtypes[i % 3], kLayouts[(i / 3) % 2], seed + i, i % 3 == 1);
    }
}

TEST(GpuConvDirect, EachFusedActivationMatchesReference) {
    STRATA_REQUIRE_GPU();
    uint64_t seed = test_seed() + 200000;
    for (UnaryKind act : {UnaryKind::Relu, UnaryKind::Relu6, UnaryKind::SiLU, UnaryKind::HardSwish, UnaryKind::Sigmoid,
                          UnaryKind::Tanh}) {
        GpuConvCase cc{2, 7, 9, 11, 5, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1, true, act};
        for (DType dt : kDtypes) expect_conv_matches(cc, "cuda.conv.direct", 0, dt, Layout::nhwc, seed += 10);
    }
}

TEST(GpuFcDirect, MatchesReferenceOnRandomSizes) {
    STRATA_REQUIRE_GPU();
    uint64_t seed = test_seed() + 310000;
    std::mt19937_64 rng(seed);
    const UnaryKind acts[] = {UnaryKind::Relu, UnaryKind::Relu6, UnaryKind::SiLU, UnaryKind::Sigmoid};
    for (int i = 0; i < 24; ++i) {
        const int64_t rows = 1 + static_cast<int64_t>(rng() % 70), in = 1 + static_cast<int64_t>(rng() % 300);
        const int64_t out = 1 + static_cast<int64_t>(rng() % 300);
        const std::optional<UnaryKind> act = rng() % 2 ? std::optional<UnaryKind>(acts[rng() % 4]) : std::nullopt;
        expect_fc_matches("cuda.fc.direct", 0, rows, in, out, rng() % 4 != 0, act, kDtypes[i % 3], seed += 10);
    }
}

TEST(GpuFcDirect, MatchesReferenceOnOddSizes) {
    STRATA_REQUIRE_GPU();
    uint64_t seed = test_seed() + 300000;
    struct FcSize {
        int64_t rows, in, out;
    };
    for (FcSize s : {FcSize{1, 1, 1}, FcSize{1, 2048, 1000}, FcSize{3, 17, 33}, FcSize{64, 1280, 1000},
                     FcSize{5, 31, 16}, FcSize{33, 100, 7}})
        for (DType dt : kDtypes)
            expect_fc_matches("cuda.fc.direct", 0, s.rows, s.in, s.out, s.in % 2 == 0, std::nullopt, dt, seed += 10);
    expect_fc_matches("cuda.fc.direct", 0, 7, 40, 24, true, UnaryKind::Relu, DType::f16, seed += 10);
    expect_fc_matches("cuda.fc.direct", 0, 7, 40, 24, true, UnaryKind::HardSwish, DType::f32, seed += 10);
}

}  // namespace
}  // namespace strata::test
