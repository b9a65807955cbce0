// test_fuse_conv_activation.cpp: the activation after a Conv or FullyConnected becomes its fused epilogue.
#include "pass_test_util.h"

namespace strata::passes::test {
namespace {

using ir::OpKind;
using ir::UnaryKind;
using strata::test::random_tensor;

class FuseConvActivation : public ::testing::TestWithParam<UnaryKind> {};

TEST_P(FuseConvActivation, ConvThenActivation) {
    UnaryKind kind = GetParam();
    float alpha = kind == UnaryKind::Clip ? -0.5f : 0.1f, beta = kind == UnaryKind::Clip ? 0.7f : 0.0f;
    ir::Builder b("g");
    ir::ValueId x = b.input("x", DType::f32, {2, 3, 9, 7});
    ir::ValueId c = b.conv(x, random_tensor(DType::f32, {5, 3, 3, 3}, seed(1)), random_tensor(DType::f32, {5}, seed(2)),
                           ir::conv2d_attrs(3, 2, 1));
    b.output(b.unary(kind, c, alpha, beta), "y");
    auto g = b.finish();
    ir::Graph before = *g;

    EXPECT_TRUE(run_pass(*g, fuse_conv_activation));
    ASSERT_EQ(g->nodes().size(), 1u);
    const auto& act = g->nodes()[0].attr<ir::ConvAttrs>().activation;
    ASSERT_TRUE(act.has_value());
    EXPECT_EQ(act->kind, kind);
    EXPECT_EQ(g->value(g->nodes()[0].outputs[0]).name, "y");
    expect_same_results(before, *g, random_inputs(before, seed(3), -3.0, 3.0));
}

constexpr UnaryKind kFusable[] = {UnaryKind::Relu,      UnaryKind::Relu6,     UnaryKind::SiLU, UnaryKind::Sigmoid,
                                  UnaryKind::HardSwish, UnaryKind::LeakyRelu, UnaryKind::Clip};

std::string kind_label(const ::testing::TestParamInfo<UnaryKind>& info) {
    const char* names[] = {"Relu", "Relu6", "SiLU", "Sigmoid", "HardSwish", "LeakyRelu", "Clip"};
    return names[info.index];
}

INSTANTIATE_TEST_SUITE_P(Kinds, FuseConvActivation, ::testing::ValuesIn(kFusable), kind_label);

TEST(FuseFullyConnectedActivation, FullyConnectedThenLeakyRelu) {
    ir::Builder b("g");
    ir::ValueId x = b.input("x", DType::f32, {3, 19});
    ir::ValueId w = b.constant("w", random_tensor(DType::f32, {7, 19}, seed(1)));
    ir::ValueId bias = b.constant("b", random_tensor(DType::f32, {7}, seed(2)));
    ir::ValueId fc = b.op(OpKind::FullyConnected, {x, w, bias}, ir::FullyConnectedAttrs{});
    b.output(b.unary(UnaryKind::LeakyRelu, fc, 0.2f), "y");
    auto g = b.finish();
    ir::Graph before = *g;

    EXPECT_TRUE(run_pass(*g, fuse_conv_activation));
    ASSERT_EQ(g->nodes().size(), 1u);
    const auto& act = g->nodes()[0].attr<ir::FullyConnectedAttrs>().activation;
    ASSERT_TRUE(act.has_value());
    EXPECT_EQ(act->alpha, 0.2f);
    expect_same_results(before, *g, random_inputs(before, seed(3)));
}

TEST(FuseConvActivationNotApplied, ConvOutputReadTwiceOrActivationNotFusable) {
    ir::Builder b("g");
    ir::ValueId x = b.input("x", DType::f32, {1, 3, 7, 7});
    ir::ValueId c1 = b.conv(x, random_tensor(DType::f32, {4, 3, 3, 3}, seed(1)), std::nullopt, ir::conv2d_attrs(3));
    b.output(b.relu(c1), "a");
    b.output(c1, "c1");
    ir::ValueId c2 = b.conv(x, random_tensor(DType::f32, {4, 3, 3, 3}, seed(2)), std::nullopt, ir::conv2d_attrs(3));
    b.output(b.unary(UnaryKind::Tanh, c2), "b");
    ir::ConvAttrs fused = ir::conv2d_attrs(3);
    fused.activation = ir::UnaryAttrs{UnaryKind::Relu};
    ir::ValueId c3 = b.conv(x, random_tensor(DType::f32, {4, 3, 3, 3}, seed(3)), std::nullopt, fused);
    b.output(b.unary(UnaryKind::Sigmoid, c3), "c");
    auto g = b.finish();
    expect_not_applied(*g, fuse_conv_activation);
}

}  // namespace
}  // namespace strata::passes::test
