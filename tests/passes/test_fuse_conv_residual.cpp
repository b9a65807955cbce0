// test_fuse_conv_residual.cpp: Add(Conv, Z) becomes a Conv with a residual input, and a Relu after it then fuses.
#include "pass_test_util.h"

namespace strata::passes::test {
namespace {

using ir::OpKind;
using strata::test::random_tensor;

// The ResNet bottleneck's end: conv3 + shortcut, then Relu.
TEST(FuseConvResidual, ConvPlusShortcutThenRelu) {
    ir::Builder b("g");
    ir::ValueId x = b.input("x", DType::f32, {2, 6, 9, 7});
    ir::ValueId c = b.conv(x, random_tensor(DType::f32, {6, 6, 3, 3}, seed(1)), random_tensor(DType::f32, {6}, seed(2)),
                           ir::conv2d_attrs(3, 1, 1));
    ir::ValueId sum = b.binary(ir::BinaryKind::Add, x, c);
    b.output(b.unary(ir::UnaryKind::Relu, sum), "y");
    auto g = b.finish();
    ir::Graph before = *g;

    EXPECT_TRUE(run_pass(*g, fuse_conv_residual));
    ASSERT_EQ(g->nodes().size(), 2u);
    const ir::Node& conv = g->nodes()[0];
    ASSERT_EQ(conv.op, OpKind::Conv);
    ASSERT_EQ(conv.inputs.size(), 4u);
    EXPECT_EQ(conv.inputs[3], x);
    EXPECT_TRUE(run_pass(*g, fuse_conv_activation));
    ASSERT_EQ(g->nodes().size(), 1u);
    EXPECT_TRUE(g->nodes()[0].attr<ir::ConvAttrs>().activation.has_value());
    expect_same_results(before, *g, random_inputs(before, seed(3), -2.0, 2.0));
}

// Projection shortcut: both operands are Convs; the later one reads the other as its residual.
TEST(FuseConvResidual, TwoConvsTheLaterTakesTheResidual) {
    ir::Builder b("g");
    ir::ValueId x = b.input("x", DType::f32, {1, 4, 8, 8});
    ir::ValueId proj = b.conv(x, random_tensor(DType::f32, {8, 4, 1, 1}, seed(1)), std::nullopt, ir::conv2d_attrs(1, 2, 0));
    ir::ValueId main = b.conv(x, random_tensor(DType::f32, {8, 4, 3, 3}, seed(2)), random_tensor(DType::f32, {8}, seed(3)),
                              ir::conv2d_attrs(3, 2, 1));
    b.output(b.binary(ir::BinaryKind::Add, proj, main), "y");
    auto g = b.finish();
    ir::Graph before = *g;

    EXPECT_TRUE(run_pass(*g, fuse_conv_residual));
    ASSERT_EQ(g->nodes().size(), 2u);
    EXPECT_EQ(g->nodes()[1].inputs.size(), 4u);
    EXPECT_EQ(g->nodes()[1].inputs[3], proj);
    expect_same_results(before, *g, random_inputs(before, seed(4)));
}

// A Conv whose output is read elsewhere too, or that already has an activation, keeps its Add.
TEST(FuseConvResidual, LeavesSharedOrActivatedConvsAlone) {
    ir::Builder b("g");
    ir::ValueId x = b.input("x", DType::f32, {1, 3, 5, 5});
    ir::ValueId c = b.conv(x, random_tensor(DType::f32, {3, 3, 1, 1}, seed(1)), std::nullopt, ir::conv2d_attrs(1, 1, 0));
    b.output(b.binary(ir::BinaryKind::Add, c, x), "y");
    b.output(c, "c");
    auto g = b.finish();
    EXPECT_FALSE(run_pass(*g, fuse_conv_residual));

    ir::Builder b2("g2");
    ir::ValueId x2 = b2.input("x", DType::f32, {1, 3, 5, 5});
    ir::ConvAttrs attrs = ir::conv2d_attrs(1, 1, 0);
    attrs.activation = ir::UnaryAttrs{ir::UnaryKind::Relu};
    ir::ValueId c2 = b2.conv(x2, random_tensor(DType::f32, {3, 3, 1, 1}, seed(1)), std::nullopt, attrs);
    b2.output(b2.binary(ir::BinaryKind::Add, c2, x2), "y");
    auto g2 = b2.finish();
    EXPECT_FALSE(run_pass(*g2, fuse_conv_residual));
}

}  // namespace
}  // namespace strata::passes::test
