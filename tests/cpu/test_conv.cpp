// test_conv.cpp: the CPU convolutions (im2col+GEMM and depthwise) against the reference kernel over a table of
// shapes: odd sizes, strides 1-3, symmetric and asymmetric pads, dilation, groups, depthwise multipliers, 1-D,
// bias or not, and each fused activation.
#include <fmt/format.h>

#include <optional>

#include "cpu_check.h"

namespace strata::test {
namespace {

using ir::UnaryKind;

struct ConvCase {
    int64_t n, c, h, w, m;  // h == 0: a 1-D convolution over w
    int64_t kh, kw, sh, sw, dh, dw;
    int64_t pt, pl, pb, pr;
    int64_t group;
    bool bias;
    std::optional<UnaryKind> act = std::nullopt;

    std::string str() const {
        return fmt::format("N{} C{} H{} W{} M{} k{}x{} s{}x{} d{}x{} pads[{},{},{},{}] g{} bias{} act{}", n, c, h, w, m,
                           kh, kw, sh, sw, dh, dw, pt, pl, pb, pr, group, bias, act ? kind_label(*act) : "none");
    }
};

void check_conv(const ConvCase& cc, const std::string& tactic, uint64_t seed) {
    const bool one_d = cc.h == 0;
    ir::ConvAttrs a;
    if (one_d) {
        a.kernel = {cc.kw}, a.strides = {cc.sw}, a.dilations = {cc.dw}, a.pads_begin = {cc.pl}, a.pads_end = {cc.pr};
    } else {
        a.kernel = {cc.kh, cc.kw}, a.strides = {cc.sh, cc.sw}, a.dilations = {cc.dh, cc.dw};
        a.pads_begin = {cc.pt, cc.pl}, a.pads_end = {cc.pb, cc.pr};
    }
    a.group = cc.group;
    if (cc.act) a.activation = ir::UnaryAttrs{*cc.act, cc.act == UnaryKind::LeakyRelu ? 0.1f : -0.5f, 0.5f};
    const Shape x_shape = one_d ? Shape{cc.n, cc.c, cc.w} : Shape{cc.n, cc.c, cc.h, cc.w};
    const Shape w_shape = one_d ? Shape{cc.m, cc.c / cc.group, cc.kw} : Shape{cc.m, cc.c / cc.group, cc.kh, cc.kw};
    ir::Builder b("conv_case");
    ir::ValueId x = b.input("x", DType::f32, x_shape);
    std::optional<Tensor> bias;
    if (cc.bias) bias = random_tensor(DType::f32, {cc.m}, seed + 2);
    b.output(b.conv(x, random_tensor(DType::f32, w_shape, seed + 1), bias, a));
    auto graph = b.finish();
    expect_tactic_matches_reference(*graph, {{x, random_tensor(DType::f32, x_shape, seed)}}, tactic, cc.str(), seed);
}

// n c h w m | kh kw sh sw dh dw | pt pl pb pr | group bias
const ConvCase kGemmCases[] = {
    {1, 3, 11, 13, 5, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 1, true},   // pointwise: sgemm straight on X
    {3, 17, 9, 7, 19, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 1, false},  // pointwise, batch 3
    {2, 8, 23, 25, 9, 1, 1, 2, 2, 1, 1, 0, 0, 0, 0, 1, true},   // 1x1 stride 2 goes through im2col
    {1, 5, 15, 17, 7, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1, true},
    {2, 3, 29, 31, 11, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 1, true},
    {1, 4, 19, 18, 6, 5, 5, 3, 3, 1, 1, 2, 2, 2, 2, 1, false},   // stride 3
    {1, 3, 33, 35, 8, 7, 7, 2, 2, 1, 1, 3, 3, 3, 3, 1, true},    // stem-like 7x7
    {2, 6, 17, 21, 4, 3, 3, 1, 1, 2, 2, 2, 2, 2, 2, 1, true},    // dilation 2
    {1, 5, 14, 13, 7, 3, 2, 1, 2, 3, 1, 0, 1, 2, 0, 1, true},    // rectangular, asymmetric pads and dilation
    {2, 6, 13, 11, 9, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 3, true},    // groups 3
    {1, 8, 12, 9, 4, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 2, false},    // pointwise, groups 2
    {1, 64, 37, 39, 13, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1, true},  // K = 576: several column blocks per image
    {1, 24, 7, 7, 70, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 1, true},    // 49 columns: output channels split in blocks
    {1, 10, 6, 5, 40, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1, true},    // the same with im2col
    {3, 5, 0, 41, 6, 1, 4, 1, 2, 1, 1, 0, 3, 0, 2, 1, true},     // 1-D
    {1, 3, 4, 5, 2, 5, 5, 1, 1, 1, 1, 2, 2, 2, 2, 1, true},      // kernel larger than the image: mostly padding
};

TEST(CpuConvGemm, MatchesReferenceOnShapeTable) {
    uint64_t seed = test_seed();
    for (const ConvCase& cc : kGemmCases) check_conv(cc, "cpu.conv2d_im2col_gemm", seed += 10);
}

TEST(CpuConvGemm, EachFusedActivationMatchesReference) {
    uint64_t seed = test_seed() + 1000;
    for (UnaryKind act : {UnaryKind::Relu, UnaryKind::Relu6, UnaryKind::Clip, UnaryKind::LeakyRelu, UnaryKind::Sigmoid,
                          UnaryKind::SiLU, UnaryKind::HardSwish, UnaryKind::Tanh}) {
        ConvCase cc{2, 7, 9, 11, 5, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1, true, act};
        check_conv(cc, "cpu.conv2d_im2col_gemm", seed += 10);
        cc.kh = cc.kw = 1, cc.pt = cc.pl = cc.pb = cc.pr = 0;  // and the pointwise path's epilogue
        check_conv(cc, "cpu.conv2d_im2col_gemm", seed += 10);
    }
}

// n c h w m | kh kw sh sw dh dw | pt pl pb pr | group bias
const ConvCase kDepthwiseCases[] = {
    {1, 7, 17, 19, 7, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 7, true},   // 3x3 s1: vectorised interior
    {2, 5, 23, 21, 5, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 5, false},  // 3x3 s2
    {1, 9, 19, 20, 9, 5, 5, 1, 1, 1, 1, 2, 2, 2, 2, 9, true},   // 5x5 s1
    {3, 4, 25, 27, 4, 5, 5, 2, 2, 1, 1, 2, 2, 2, 2, 4, true},   // 5x5 s2
    {1, 6, 3, 3, 6, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 6, true},     // all border
    {1, 3, 2, 4, 3, 5, 5, 2, 2, 1, 1, 2, 2, 2, 2, 3, true},     // image narrower than the kernel
    {2, 5, 15, 16, 10, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 5, true},  // multiplier 2
    {1, 3, 14, 13, 9, 3, 3, 2, 1, 1, 1, 0, 1, 2, 1, 3, false},  // multiplier 3, mixed strides, asymmetric pads
    {1, 4, 18, 17, 4, 3, 3, 1, 1, 2, 2, 2, 2, 2, 2, 4, true},   // dilation 2: checked path
    {1, 5, 21, 22, 5, 7, 7, 3, 3, 1, 1, 3, 3, 3, 3, 5, true},   // 7x7 stride 3: checked path
    {2, 6, 13, 15, 6, 3, 3, 1, 1, 1, 1, 0, 0, 0, 0, 6, true},   // unpadded
    {2, 5, 0, 33, 5, 1, 3, 1, 2, 1, 1, 0, 1, 0, 1, 5, true},    // 1-D
};

TEST(CpuConvDepthwise, MatchesReferenceOnShapeTable) {
    uint64_t seed = test_seed() + 2000;
    for (const ConvCase& cc : kDepthwiseCases) check_conv(cc, "cpu.conv2d_depthwise", seed += 10);
}

TEST(CpuConvDepthwise, EachFusedActivationMatchesReference) {
    uint64_t seed = test_seed() + 3000;
    for (UnaryKind act : {UnaryKind::Relu, UnaryKind::Relu6, UnaryKind::Clip, UnaryKind::SiLU, UnaryKind::Sigmoid,
                          UnaryKind::HardSigmoid}) {
        check_conv({1, 5, 11, 12, 5, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 5, true, act}, "cpu.conv2d_depthwise", seed += 10);
    }
}

TEST(CpuConvDepthwise, RefusesGroupedConvThatIsNotDepthwise) {
    ir::Builder b("grouped");
    ir::ValueId x = b.input("x", DType::f32, {1, 6, 9, 9});
    b.output(
        b.conv(x, random_tensor(DType::f32, {6, 3, 3, 3}, test_seed()), std::nullopt, ir::conv2d_attrs(3, 1, 1, 2)));
    auto graph = b.finish();
    EXPECT_NE(tactic_reason(*graph, "cpu.conv2d_depthwise").find("not depthwise"), std::string::npos);
    EXPECT_EQ(tactic_reason(*graph, "cpu.conv2d_im2col_gemm"), "");
}

TEST(CpuConv, RefusesFloat16WithAReason) {
    ir::Builder b("half");
    ir::ValueId x = b.input("x", DType::f16, {1, 4, 9, 9});
    b.output(b.conv(x, random_tensor(DType::f16, {4, 4, 3, 3}, test_seed()), std::nullopt, ir::conv2d_attrs(3, 1, 1)));
    auto graph = b.finish();
    EXPECT_NE(tactic_reason(*graph, "cpu.conv2d_im2col_gemm").find("dtype float16 not supported"), std::string::npos);
}

}  // namespace
}  // namespace strata::test
