// test_conv.cpp: the reference Conv against a direct formula over an explicitly zero-padded input (a different
// formulation from the kernel's clipped tap ranges), and against special cases with their own closed forms:
// 1x1 conv as a matrix product, depthwise per channel, 1-D as 2-D with unit height, fused activations.
#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "reference_test_util.h"

namespace strata::test {
namespace {

struct ConvCase {
    int64_t n, c, h, w, m, kh, kw, sh, sw, dh, dw, pt, pl, pb, pr, group;
    bool bias;
};

ir::ConvAttrs attrs_for(const ConvCase& k) {
    ir::ConvAttrs a;
    a.kernel = {k.kh, k.kw};
    a.strides = {k.sh, k.sw};
    a.dilations = {k.dh, k.dw};
    a.pads_begin = {k.pt, k.pl};
    a.pads_end = {k.pb, k.pr};
    a.group = k.group;
    return a;
}

Shape out_shape(const ConvCase& k) {
    int64_t oh = (k.h + k.pt + k.pb - ((k.kh - 1) * k.dh + 1)) / k.sh + 1;
    int64_t ow = (k.w + k.pl + k.pr - ((k.kw - 1) * k.dw + 1)) / k.sw + 1;
    return {k.n, k.m, oh, ow};
}

// Y = B + sum X_padded * W, with the padding materialised as zeros.
Tensor naive_conv(const Tensor& x, const Tensor& w, const Tensor& b, const ConvCase& k) {
    int64_t hp = k.h + k.pt + k.pb, wp = k.w + k.pl + k.pr, cg = k.c / k.group, mg = k.m / k.group;
    std::vector<double> padded(static_cast<size_t>(k.n * k.c * hp * wp), 0.0);
    for (int64_t i = 0; i < k.n * k.c; ++i)
        for (int64_t y = 0; y < k.h; ++y)
            for (int64_t z = 0; z < k.w; ++z)
                padded[(i * hp + y + k.pt) * wp + z + k.pl] = x.data<float>()[(i * k.h + y) * k.w + z];
    Shape os = out_shape(k);
    Tensor out = Tensor::empty(DType::f32, os);
    for (int64_t n = 0; n < k.n; ++n)
        for (int64_t m = 0; m < k.m; ++m)
            for (int64_t oy = 0; oy < os[2]; ++oy)
                for (int64_t ox = 0; ox < os[3]; ++ox) {
                    double acc = k.bias ? b.data<float>()[m] : 0.0;
                    for (int64_t c = 0; c < cg; ++c)
                        for (int64_t ky = 0; ky < k.kh; ++ky)
                            for (int64_t kx = 0; kx < k.kw; ++kx) {
                                int64_t ic = (m / mg) * cg + c;
                                acc +=
                                    padded[((n * k.c + ic) * hp + oy * k.sh + ky * k.dh) * wp + ox * k.sw + kx * k.dw] *
                                    w.data<float>()[((m * cg + c) * k.kh + ky) * k.kw + kx];
                            }
                    out.data<float>()[((n * k.m + m) * os[2] + oy) * os[3] + ox] = static_cast<float>(acc);
                }
    return out;
}

void check_case(const ConvCase& k) {
    SCOPED_TRACE(::testing::Message() << "C=" << k.c << " M=" << k.m << " HxW=" << k.h << "x" << k.w << " k=" << k.kh
                                      << "x" << k.kw << " group=" << k.group << " seed=" << test_seed());
    Tensor x = rand_f32({k.n, k.c, k.h, k.w}, 1);
    Tensor w = rand_f32({k.m, k.c / k.group, k.kh, k.kw}, 2);
    Tensor b = k.bias ? rand_f32({k.m}, 3) : Tensor();
    Tensor y = run_reference_op1(ir::OpKind::Conv, attrs_for(k), {x, w, b}, {DType::f32, out_shape(k)});
    expect_near_f32(y, naive_conv(x, w, b, k));
}

TEST(ReferenceConv, GroupedStridedDilatedAsymmetricPads) {
    check_case({2, 6, 11, 9, 4, 3, 2, 2, 1, 1, 2, 1, 0, 2, 1, 2, true});
}

TEST(ReferenceConv, DepthwiseWithChannelMultiplier) {
    check_case({1, 5, 13, 7, 10, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 5, true});
}

TEST(ReferenceConv, PaddingLargerThanKernel) {
    check_case({1, 3, 5, 6, 2, 2, 2, 1, 1, 1, 1, 3, 3, 3, 3, 1, false});
}

TEST(ReferenceConv, DilationReachingPastInputEdge) {
    check_case({1, 2, 9, 9, 3, 3, 3, 3, 2, 3, 2, 2, 1, 0, 3, 1, true});
}

TEST(ReferenceConv, OneByOneIsMatrixProduct) {
    int64_t n = 2, c = 7, m = 5, hw = 3 * 5;
    Tensor x = rand_f32({n, c, 3, 5}, 1), w = rand_f32({m, c, 1, 1}, 2);
    ir::ConvAttrs a;
    a.kernel = {1, 1};
    Tensor y = run_reference_op1(ir::OpKind::Conv, a, {x, w}, {DType::f32, {n, m, 3, 5}});
    Tensor want = Tensor::empty(DType::f32, {n, m, 3, 5});
    for (int64_t i = 0; i < n; ++i)
        for (int64_t o = 0; o < m; ++o)
            for (int64_t p = 0; p < hw; ++p) {
                double acc = 0;
                for (int64_t k = 0; k < c; ++k)
                    acc += double(w.data<float>()[o * c + k]) * x.data<float>()[(i * c + k) * hw + p];
                want.data<float>()[(i * m + o) * hw + p] = static_cast<float>(acc);
            }
    expect_near_f32(y, want);
}

TEST(ReferenceConv, DepthwiseIsPerChannelCorrelation) {
    // group = C = M: channel c is its own 2-D correlation with a 3x3 filter, no padding.
    int64_t c = 3, h = 6, w = 5;
    Tensor x = rand_f32({1, c, h, w}, 1), k = rand_f32({c, 1, 3, 3}, 2);
    ir::ConvAttrs a = ir::ConvAttrs{};
    a.kernel = {3, 3};
    a.group = c;
    Tensor y = run_reference_op1(ir::OpKind::Conv, a, {x, k}, {DType::f32, {1, c, h - 2, w - 2}});
    for (int64_t ch = 0; ch < c; ++ch)
        for (int64_t i = 0; i < h - 2; ++i)
            for (int64_t j = 0; j < w - 2; ++j) {
                double acc = 0;
                for (int64_t u = 0; u < 3; ++u)
                    for (int64_t v = 0; v < 3; ++v)
                        acc +=
                            double(x.data<float>()[(ch * h + i + u) * w + j + v]) * k.data<float>()[ch * 9 + u * 3 + v];
                EXPECT_NEAR(y.data<float>()[(ch * (h - 2) + i) * (w - 2) + j], acc, 1e-5) << "seed " << test_seed();
            }
}

TEST(ReferenceConv, OneDimensionalMatchesUnitHeight2d) {
    ConvCase k{2, 4, 1, 17, 6, 1, 3, 1, 2, 1, 2, 0, 2, 0, 1, 2, true};
    Tensor x = rand_f32({k.n, k.c, k.w}, 1), w = rand_f32({k.m, k.c / k.group, k.kw}, 2), b = rand_f32({k.m}, 3);
    ir::ConvAttrs a;
    a.kernel = {k.kw};
    a.strides = {k.sw};
    a.dilations = {k.dw};
    a.pads_begin = {k.pl};
    a.pads_end = {k.pr};
    a.group = k.group;
    Shape os = out_shape(k);
    Tensor y = run_reference_op1(ir::OpKind::Conv, a, {x, w, b}, {DType::f32, {k.n, k.m, os[3]}});
    Tensor want = naive_conv(x.reshaped({k.n, k.c, 1, k.w}), w.reshaped({k.m, k.c / k.group, 1, k.kw}), b, k);
    expect_near_f32(y, want.reshaped({k.n, k.m, os[3]}));
}

TEST(ReferenceConv, FusedActivationAppliesAfterBias) {
    ConvCase k{1, 3, 7, 7, 4, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1, true};
    Tensor x = rand_f32({1, 3, 7, 7}, 1, -4, 4), w = rand_f32({4, 3, 3, 3}, 2), b = rand_f32({4}, 3);
    ir::ConvAttrs a = attrs_for(k);
    a.activation = ir::UnaryAttrs{ir::UnaryKind::Clip, -0.5f, 1.5f};
    Tensor y = run_reference_op1(ir::OpKind::Conv, a, {x, w, b}, {DType::f32, out_shape(k)});
    Tensor want = naive_conv(x, w, b, k);
    for (int64_t i = 0; i < want.numel(); ++i) want.data<float>()[i] = std::clamp(want.data<float>()[i], -0.5f, 1.5f);
    expect_near_f32(y, want);
}

TEST(ReferenceConv, WrongWeightChannelsIsAnError) {
    ir::ConvAttrs a;
    a.kernel = {3, 3};
    Tensor x = rand_f32({1, 4, 5, 5}, 1), w = rand_f32({2, 3, 3, 3}, 2);
    try {
        run_reference_op1(ir::OpKind::Conv, a, {x, w}, {DType::f32, {1, 2, 3, 3}});
        FAIL() << "expected an error";
    } catch (const Error& e) {
        EXPECT_EQ(e.code(), StatusCode::invalid_argument);
        EXPECT_NE(std::string(e.what()).find("Conv 'test_Conv'"), std::string::npos) << e.what();
    }
}

TEST(ReferenceConv, IntegerInputIsUnsupported) {
    ir::ConvAttrs a;
    a.kernel = {1, 1};
    Tensor x = random_tensor(DType::i32, {1, 1, 1, 1}, test_seed(), -5, 5);
    try {
        run_reference_op1(ir::OpKind::Conv, a, {x, x}, {DType::i32, {1, 1, 1, 1}});
        FAIL() << "expected an error";
    } catch (const Error& e) {
        EXPECT_EQ(e.code(), StatusCode::unsupported);
        EXPECT_NE(std::string(e.what()).find("Conv on int32"), std::string::npos) << e.what();
    }
}

}  // namespace
}  // namespace strata::test
