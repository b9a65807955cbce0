// test_conv_transpose_direct.cpp: strata's direct ConvTranspose kernel (`cuda.conv_transpose.direct`) against the
// reference: groups, strides, dilation, symmetric and unequal pads, output_padding, output_shape, 1-D, batch 1 and 3,
// every float dtype, both layouts.
#include "libs_checks.h"

namespace strata::test {
namespace {

// n c h w m | kh kw sh sw dh dw | pt pl pb pr | oph opw | group bias [output_shape]   (h == 0: 1-D)
const ConvTransposeCase kCases[] = {
    {1, 4, 5, 6, 3, 3, 3, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 1, true},
    {3, 6, 7, 5, 4, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 1, 1, 1, true},          // output_padding, batch 3
    {1, 8, 6, 7, 6, 4, 4, 2, 2, 1, 1, 1, 1, 1, 1, 0, 0, 2, false},         // groups
    {3, 3, 5, 4, 5, 3, 2, 3, 2, 2, 1, 1, 0, 1, 0, 2, 1, 1, true},          // stride 3, dilation 2
    {1, 6, 4, 5, 6, 3, 3, 2, 2, 1, 1, 0, 0, 0, 0, 0, 0, 6, true},          // depthwise
    {1, 4, 5, 5, 4, 3, 3, 2, 2, 1, 1, 1, 1, 0, 0, 0, 0, 1, true},          // unequal pads (lead 1, trail 0)
    {1, 4, 5, 5, 4, 3, 3, 2, 2, 1, 1, 0, 2, 1, 0, 0, 0, 1, true},          // unequal pads (lead 0/2, trail 1/0)
    {2, 5, 0, 9, 3, 1, 3, 1, 2, 1, 1, 0, 1, 0, 1, 0, 1, 1, true},          // 1-D
    {1, 3, 4, 4, 2, 3, 3, 2, 2, 1, 1, 0, 0, 0, 0, 0, 0, 1, true, {8, 7}},  // output_shape: pads derived
    {2, 16, 8, 8, 8, 2, 2, 2, 2, 1, 1, 0, 0, 0, 0, 0, 0, 1, true},         // the usual 2x upsampling
    {1, 9, 3, 11, 12, 5, 1, 1, 3, 3, 1, 2, 0, 2, 0, 0, 2, 3, true},        // 5x1 kernel, groups 3
};

TEST(ConvTransposeDirect, MatchesReference) {
    STRATA_REQUIRE_GPU();
    uint64_t seed = test_seed();
    for (const ConvTransposeCase& cc : kCases) {
        auto graph = cc.graph();
        TacticSweep s =
            sweep_tactic(*graph, "cuda.conv_transpose.direct", 1, cc.str(), seed, {Layout::nchw, Layout::nhwc});
        EXPECT_EQ(s.ran, 6) << cc.str() << " refusals:\n" << s.refusals;  // 3 dtypes x 2 layouts, none refused
    }
}

TEST(ConvTransposeDirect, RandomShapesMatchReference) {
    STRATA_REQUIRE_GPU();
    uint64_t seed = test_seed();
    std::mt19937_64 rng(seed);
    for (int i = 0; i < 8; ++i) {
        ConvTransposeCase cc = random_conv_transpose_case(rng, i % 2 == 0);
        TacticSweep s =
            sweep_tactic(*cc.graph(), "cuda.conv_transpose.direct", 1, cc.str(), seed, {Layout::nchw, Layout::nhwc});
        EXPECT_EQ(s.ran, 6) << cc.str() << " STRATA_SEED=" << seed << " refusals:\n" << s.refusals;
    }
}

}  // namespace
}  // namespace strata::test
