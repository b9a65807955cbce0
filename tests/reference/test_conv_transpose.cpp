// test_conv_transpose.cpp: ConvTranspose by a hand-computed 1-D scatter and by the adjoint identity
// <conv(x; W), y> = <x, conv_transpose(y; W)>, which holds for any strides, pads, dilations and groups when the
// transposed output has the conv's input size.
#include <gtest/gtest.h>

#include "reference_test_util.h"

namespace strata::test {
namespace {

double inner_product(const Tensor& a, const Tensor& b) {
    double s = 0;
    for (int64_t i = 0; i < a.numel(); ++i) s += double(a.data<float>()[i]) * b.data<float>()[i];
    return s;
}

TEST(ReferenceConvTranspose, OneDimensionalStrideTwoByHand) {
    ir::ConvTransposeAttrs a;
    a.kernel = {3};
    a.strides = {2};
    Tensor x = f32({1, 1, 2}, {1.5f, -2.0f});
    Tensor w = f32({1, 1, 3}, {1.0f, 10.0f, 100.0f});
    Tensor b = f32({1}, {0.25f});
    Tensor y = run_reference_op1(ir::OpKind::ConvTranspose, a, {x, w, b}, {DType::f32, {1, 1, 5}});
    // x0 spreads over outputs 0..2, x1 over 2..4.
    EXPECT_EQ(values<float>(y), (std::vector<float>{1.5f + 0.25f, 15.0f + 0.25f, 150.0f - 2.0f + 0.25f, -20.0f + 0.25f,
                                                    -200.0f + 0.25f}));
}

struct AdjointCase {
    int64_t c, m, h, w, k, stride, dil, pad_t, pad_l, pad_b, pad_r, group;
};

void check_adjoint(const AdjointCase& t) {
    SCOPED_TRACE(::testing::Message() << "stride=" << t.stride << " dil=" << t.dil << " group=" << t.group
                                      << " seed=" << test_seed());
    int64_t oh = (t.h + t.pad_t + t.pad_b - (t.k - 1) * t.dil - 1) / t.stride + 1;
    int64_t ow = (t.w + t.pad_l + t.pad_r - (t.k - 1) * t.dil - 1) / t.stride + 1;
    Tensor x = rand_f32({2, t.c, t.h, t.w}, 1), y = rand_f32({2, t.m, oh, ow}, 2);
    Tensor w = rand_f32({t.m, t.c / t.group, t.k, t.k}, 3);
    ir::ConvAttrs ca;
    ca.kernel = {t.k, t.k};
    ca.strides = {t.stride, t.stride};
    ca.dilations = {t.dil, t.dil};
    ca.pads_begin = {t.pad_t, t.pad_l};
    ca.pads_end = {t.pad_b, t.pad_r};
    ca.group = t.group;
    ir::ConvTransposeAttrs ta;
    ta.kernel = ca.kernel;
    ta.strides = ca.strides;
    ta.dilations = ca.dilations;
    ta.pads_begin = ca.pads_begin;
    ta.pads_end = ca.pads_end;
    ta.group = t.group;
    // W [M, C/g, k, k] read by ConvTranspose as [C_in = M, C_out/g = C/g, k, k]: the transposed map.
    Tensor conv_x = run_reference_op1(ir::OpKind::Conv, ca, {x, w}, {DType::f32, {2, t.m, oh, ow}});
    Tensor convt_y = run_reference_op1(ir::OpKind::ConvTranspose, ta, {y, w}, {DType::f32, {2, t.c, t.h, t.w}});
    double lhs = inner_product(conv_x, y), rhs = inner_product(x, convt_y);
    EXPECT_NEAR(lhs, rhs, 1e-4 * (1 + std::abs(lhs)));
}

TEST(ReferenceConvTranspose, AdjointOfConvStrided) {
    check_adjoint({3, 4, 9, 8, 3, 2, 1, 1, 1, 1, 1, 1});
}
TEST(ReferenceConvTranspose, AdjointOfConvGroupedDilatedAsymmetric) {
    check_adjoint({4, 6, 11, 10, 3, 3, 2, 2, 0, 1, 2, 2});
}
TEST(ReferenceConvTranspose, AdjointOfConvDepthwise) {
    check_adjoint({5, 5, 7, 7, 2, 2, 1, 0, 0, 1, 1, 5});
}

TEST(ReferenceConvTranspose, OutputShapeDerivesLeadingPads) {
    // ONNX: total padding = 2*(3-1) + 3 - 6 = 1; without SAME_UPPER the larger half (1) goes first.
    Tensor x = rand_f32({1, 2, 3}, 1), w = rand_f32({2, 3, 3}, 2);
    ir::ConvTransposeAttrs derived;
    derived.kernel = {3};
    derived.strides = {2};
    derived.output_shape = {6};
    ir::ConvTransposeAttrs full = derived;
    full.output_shape.clear();
    Tensor y = run_reference_op1(ir::OpKind::ConvTranspose, derived, {x, w}, {DType::f32, {1, 3, 6}});
    Tensor y_full = run_reference_op1(ir::OpKind::ConvTranspose, full, {x, w}, {DType::f32, {1, 3, 7}});
    for (int64_t c = 0; c < 3; ++c)
        for (int64_t i = 0; i < 6; ++i) EXPECT_EQ(y.data<float>()[c * 6 + i], y_full.data<float>()[c * 7 + i + 1]);
}

}  // namespace
}  // namespace strata::test
