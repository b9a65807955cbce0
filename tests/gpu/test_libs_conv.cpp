// test_libs_conv.cpp: cuDNN's tactics `cudnn.conv` and `cudnn.conv_transpose` against the reference, over every cuDNN
// algorithm that accepts the shape, every float dtype and both layouts. Skipped (with what the loader searched)
// where cuDNN is not found.
#include "backends/cuda/libs/cudnn_loader.h"
#include "libs_checks.h"

namespace strata::test {
namespace {

using K = ir::UnaryKind;

#define STRATA_REQUIRE_CUDNN()                                                    \
    do {                                                                          \
        STRATA_REQUIRE_GPU();                                                     \
        if (!cuda::libs::cudnn_api()) GTEST_SKIP() << cuda::libs::cudnn_report(); \
    } while (0)

// n c h w m | kh kw sh sw dh dw | pt pl pb pr | group bias act   (h == 0: 1-D)
const ConvCase kConvCases[] = {
    {1, 3, 11, 13, 5, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 1, true},
    {3, 17, 9, 7, 19, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1, false},
    {2, 8, 23, 25, 9, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 1, true, K::Relu},
    {1, 4, 19, 18, 6, 5, 5, 3, 3, 1, 1, 2, 2, 2, 2, 1, true, K::SiLU},
    {2, 6, 17, 21, 4, 3, 3, 1, 1, 2, 2, 2, 2, 2, 2, 1, true, K::HardSwish},   // dilation 2
    {3, 12, 10, 9, 18, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 3, true, K::LeakyRelu},  // groups
    {1, 16, 13, 11, 16, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 16, true, K::Relu6},    // depthwise
    {2, 8, 15, 15, 16, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 8, false},               // depthwise, multiplier 2
    {1, 3, 33, 35, 8, 7, 7, 2, 2, 1, 1, 3, 3, 3, 3, 1, true, K::Relu},        // stem-like
    {3, 5, 0, 29, 7, 1, 3, 1, 2, 1, 1, 0, 1, 0, 1, 1, true},                  // 1-D
    {1, 32, 8, 8, 64, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 1, true},                 // aligned for tensor cores
    {2, 64, 14, 14, 32, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1, true, K::Sigmoid},
    {2, 16, 9, 9, 16, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1, true, K::Relu, true},        // residual (ResNet's block end)
    {1, 8, 7, 11, 12, 1, 1, 2, 2, 1, 1, 0, 0, 0, 0, 1, false, std::nullopt, true},  // residual without bias
    {3, 5, 0, 17, 6, 1, 3, 1, 1, 1, 1, 0, 1, 0, 1, 1, true, K::SiLU, true},         // 1-D with residual
};

TEST(LibsCudnnConv, EveryAlgorithmMatchesReference) {
    STRATA_REQUIRE_CUDNN();
    uint64_t seed = test_seed();
    for (const ConvCase& cc : kConvCases) {
        auto graph = cc.graph();
        TacticSweep s = sweep_tactic(*graph, "cudnn.conv", CUDNN_CONVOLUTION_FWD_ALGO_COUNT, cc.str(), seed,
                                     {Layout::nchw, Layout::nhwc});
        // IMPLICIT_GEMM (config 0) takes every shape in fp32: a refusal there is a bug in the tactic.
        EXPECT_GT(s.ran_config0_f32, 0) << cc.str() << " refusals:\n" << s.refusals;
        std::printf("%s: %d runs\n", cc.str().c_str(), s.ran);
    }
}

TEST(LibsCudnnConv, RefusesAsymmetricPadsWithAReason) {
    STRATA_REQUIRE_CUDNN();
    ConvCase cc{1, 3, 9, 9, 4, 3, 3, 1, 1, 1, 1, 0, 1, 1, 1, 1, true};
    auto graph = cc.graph();
    TacticRun r = run_tactic(*graph, 0, "cudnn.conv", 0, DType::f32, Layout::nchw, test_seed());
    EXPECT_FALSE(r.ran);
    EXPECT_NE(r.refused.find("asymmetric"), std::string::npos) << r.refused;
}

// n c h w m | kh kw sh sw dh dw | pt pl pb pr | oph opw | group bias [output_shape]   (h == 0: 1-D)
const ConvTransposeCase kConvTransposeCases[] = {
    {1, 4, 5, 6, 3, 3, 3, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 1, true},
    {2, 6, 7, 5, 4, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 1, 1, 1, true},          // output_padding
    {1, 8, 6, 7, 6, 4, 4, 2, 2, 1, 1, 1, 1, 1, 1, 0, 0, 2, false},         // groups
    {3, 3, 5, 4, 5, 3, 2, 3, 2, 2, 1, 1, 0, 1, 0, 2, 1, 1, true},          // stride 3, dilation 2, output_padding 2
    {1, 6, 4, 5, 6, 3, 3, 2, 2, 1, 1, 0, 0, 0, 0, 0, 0, 6, true},          // depthwise
    {2, 5, 0, 9, 3, 1, 3, 1, 2, 1, 1, 0, 1, 0, 1, 0, 1, 1, true},          // 1-D
    {1, 3, 4, 4, 2, 3, 3, 2, 2, 1, 1, 0, 0, 0, 0, 0, 0, 1, true, {8, 7}},  // output_shape: pads derived
    {2, 16, 8, 8, 8, 2, 2, 2, 2, 1, 1, 0, 0, 0, 0, 0, 0, 1, true},         // the usual 2x upsampling
};

TEST(LibsCudnnConvTranspose, EveryAlgorithmMatchesReference) {
    STRATA_REQUIRE_CUDNN();
    uint64_t seed = test_seed();
    for (const ConvTransposeCase& cc : kConvTransposeCases) {
        auto graph = cc.graph();
        TacticSweep s = sweep_tactic(*graph, "cudnn.conv_transpose", CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT, cc.str(),
                                     seed, {Layout::nchw, Layout::nhwc});
        EXPECT_GT(s.ran, 0) << cc.str() << " refusals:\n" << s.refusals;
        std::printf("%s: %d runs\n", cc.str().c_str(), s.ran);
    }
}

TEST(LibsCudnnConvTranspose, UnequalPadsRunWhereCuDnnCanExpressThem) {
    STRATA_REQUIRE_CUDNN();
    uint64_t seed = test_seed();
    // Leading pad 1, trailing 0, stride 2: the output (10) is what symmetric pad 1 gives back; cuDNN runs it.
    ConvTransposeCase fits{1, 4, 5, 5, 4, 3, 3, 2, 2, 1, 1, 1, 1, 0, 0, 0, 0, 1, true};
    TacticSweep s = sweep_tactic(*fits.graph(), "cudnn.conv_transpose", CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT,
                                 fits.str(), seed, {Layout::nchw});
    EXPECT_GT(s.ran, 0) << fits.str() << " refusals:\n" << s.refusals;
    // Leading pad 0, trailing 1: no symmetric pad places the windows there; every algorithm refuses, saying why.
    ConvTransposeCase skewed{1, 4, 5, 5, 4, 3, 3, 2, 2, 1, 1, 0, 0, 1, 1, 0, 0, 1, true};
    auto graph = skewed.graph();
    for (int algo = 0; algo < CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT; ++algo) {
        TacticRun r = run_tactic(*graph, 0, "cudnn.conv_transpose", algo, DType::f32, Layout::nchw, seed);
        EXPECT_FALSE(r.ran) << skewed.str() << " algo " << algo;
        EXPECT_NE(r.refused.find("pads"), std::string::npos) << r.refused;
    }
}

TEST(LibsCudnnConv, RandomShapesMatchReference) {
    STRATA_REQUIRE_CUDNN();
    uint64_t seed = test_seed();
    std::mt19937_64 rng(seed);
    for (int i = 0; i < 6; ++i) {
        ConvCase cc = random_conv_case(rng);
        TacticSweep s = sweep_tactic(*cc.graph(), "cudnn.conv", CUDNN_CONVOLUTION_FWD_ALGO_COUNT, cc.str(), seed,
                                     {Layout::nchw, Layout::nhwc});
        EXPECT_GT(s.ran_config0_f32, 0) << cc.str() << " STRATA_SEED=" << seed << " refusals:\n" << s.refusals;
    }
}

TEST(LibsCudnnConvTranspose, RandomShapesMatchReference) {
    STRATA_REQUIRE_CUDNN();
    uint64_t seed = test_seed();
    std::mt19937_64 rng(seed);
    for (int i = 0; i < 6; ++i) {
        ConvTransposeCase cc = random_conv_transpose_case(rng, true);
        TacticSweep s = sweep_tactic(*cc.graph(), "cudnn.conv_transpose", CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT,
                                     cc.str(), seed, {Layout::nchw, Layout::nhwc});
        // Symmetric pads with output_padding below the stride are always expressible: some algorithm must run.
        EXPECT_GT(s.ran, 0) << cc.str() << " STRATA_SEED=" << seed << " refusals:\n" << s.refusals;
    }
}

}  // namespace
}  // namespace strata::test
