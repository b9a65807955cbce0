// test_cost.cpp: FLOPs, bytes and parameters of single nodes, worked out by hand.
#include <gtest/gtest.h>

#include "ir/cost.h"
#include "shape_test_util.h"
#include "test_support.h"

namespace strata::ir {
namespace {

Tensor weights(const Shape& shape, uint64_t salt) {
    return strata::test::random_tensor(DType::f32, shape, strata::test::test_seed() + salt);
}

TEST(Cost, GroupedConvByHand) {
    // X [2,6,9,7], W [4,3,3,3] (group 2), bias, stride 2, pad 1: Y [2,4,5,4] = 160 outputs.
    // Each output: C/group * kh * kw = 3*3*3 = 27 multiply-adds -> 2*27*160 = 8640 FLOPs, + 160 bias adds.
    Builder b("g");
    ValueId x = b.input("x", DType::f32, {2, 6, 9, 7});
    ValueId y = b.conv(x, weights({4, 3, 3, 3}, 1), weights({4}, 2), conv2d_attrs(3, 2, 1, 2), "conv");
    b.output(y);
    auto g = b.finish();
    infer_shapes(*g);
    NodeCost c = node_cost(*g, g->nodes()[0]);
    EXPECT_EQ(c.flops, 8640 + 160);
    EXPECT_EQ(c.params, 108 + 4);
    EXPECT_EQ(c.bytes, 4.0 * (2 * 6 * 9 * 7 + 108 + 4 + 160));
}

TEST(Cost, ConvTransposeCountsPerInput) {
    // X [1,2,3,3] scatters into W [2,5,2,2] (group 1): each of 18 inputs does 5*2*2 = 20 multiply-adds.
    Builder b("g");
    ValueId x = b.input("x", DType::f32, {1, 2, 3, 3});
    ValueId w = b.constant("w", weights({2, 5, 2, 2}, 3));
    ValueId y = b.op(OpKind::ConvTranspose, {x, w}, ConvTransposeAttrs{}, "deconv");
    b.output(y);
    auto g = b.finish();
    infer_shapes(*g);
    EXPECT_EQ(g->value(y).shape, (Shape{1, 5, 4, 4}));
    EXPECT_EQ(node_cost(*g, g->nodes()[0]).flops, 2.0 * 18 * 20);
}

TEST(Cost, GemmMatMulFullyConnected) {
    auto gemm = test::one_node(OpKind::Gemm, {{3, 5}, {7, 5}, {7}}, GemmAttrs{1, 1, false, true});
    gemm.infer();
    EXPECT_EQ(node_cost(*gemm.graph, gemm.node()).flops, 2.0 * 3 * 7 * 5 + 3 * 7);
    EXPECT_EQ(node_cost(*gemm.graph, gemm.node()).params, 0);  // graph inputs, not constants
    auto mm = test::one_node(OpKind::MatMul, {{2, 3, 4}, {4, 6}}, NoAttrs{});
    mm.infer();
    EXPECT_EQ(node_cost(*mm.graph, mm.node()).flops, 2.0 * 2 * 3 * 6 * 4);
    auto fc = test::one_node(OpKind::FullyConnected, {{3, 9}, {5, 9}}, FullyConnectedAttrs{});
    fc.infer();
    EXPECT_EQ(node_cost(*fc.graph, fc.node()).flops, 2.0 * 3 * 5 * 9);
}

TEST(Cost, ElementwiseAndDataMovement) {
    auto relu = test::one_node(OpKind::Unary, {{2, 3, 5}}, UnaryAttrs{UnaryKind::Relu});
    relu.infer();
    NodeCost r = node_cost(*relu.graph, relu.node());
    EXPECT_EQ(r.flops, 30);
    EXPECT_EQ(r.bytes, 4.0 * 60);
    auto sigmoid = test::one_node(OpKind::Unary, {{2, 3, 5}}, UnaryAttrs{UnaryKind::Sigmoid});
    sigmoid.infer();
    EXPECT_GT(node_cost(*sigmoid.graph, sigmoid.node()).flops, 30);
    auto add = test::one_node(OpKind::Binary, {{2, 3, 5}, {5}}, BinaryAttrs{});
    add.infer();
    EXPECT_EQ(node_cost(*add.graph, add.node()).flops, 30);
    EXPECT_EQ(node_cost(*add.graph, add.node()).bytes, 4.0 * (30 + 5 + 30));
    auto t = test::one_node(OpKind::Transpose, {{2, 3, 5}}, TransposeAttrs{});
    t.infer();
    EXPECT_EQ(node_cost(*t.graph, t.node()).flops, 0);
    EXPECT_EQ(node_cost(*t.graph, t.node()).bytes, 4.0 * 60);
}

TEST(Cost, DynamicBatchCountsPerItem) {
    auto relu = test::one_node(OpKind::Unary, {{-1, 3, 5}}, UnaryAttrs{UnaryKind::Relu});
    relu.infer();
    EXPECT_EQ(node_cost(*relu.graph, relu.node()).flops, 15);
}

TEST(Cost, NeedsInferredShapes) {
    auto relu = test::one_node(OpKind::Unary, {{2}}, UnaryAttrs{});
    test::expect_error([&] { node_cost(*relu.graph, relu.node()); }, StatusCode::invalid_argument,
                       {"Unary 'n'", "no inferred shape"});
}

}  // namespace
}  // namespace strata::ir
