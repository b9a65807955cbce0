// test_fully_connected.cpp: Gemm and MatMul with a constant 2-D weight -> FullyConnected with W [out, in].
#include "pass_test_util.h"

namespace strata::passes::test {
namespace {

using ir::OpKind;
using strata::test::random_tensor;

TEST(FullyConnected, GemmTransBWithBias) {
    ir::Builder b("g");
    ir::ValueId x = b.input("x", DType::f32, {3, 17});
    ir::ValueId w = b.constant("w", random_tensor(DType::f32, {11, 17}, seed(1)));
    ir::ValueId bias = b.constant("b", random_tensor(DType::f32, {11}, seed(2)));
    b.output(b.op(OpKind::Gemm, {x, w, bias}, ir::GemmAttrs{1.0f, 1.0f, false, true}), "y");
    auto g = b.finish();
    ir::Graph before = *g;

    EXPECT_TRUE(run_pass(*g, fully_connected));
    ASSERT_EQ(g->nodes().size(), 1u);
    const ir::Node& fc = g->nodes()[0];
    EXPECT_EQ(fc.op, OpKind::FullyConnected);
    EXPECT_EQ(fc.inputs, (std::vector<ir::ValueId>{x, w, bias}));
    expect_same_results(before, *g, random_inputs(before, seed(3)));
}

TEST(FullyConnected, GemmWithoutTransBOrBiasTransposesTheWeight) {
    ir::Builder b("g");
    ir::ValueId x = b.input("x", DType::f32, {5, 13});
    ir::ValueId w = b.constant("w", random_tensor(DType::f32, {13, 7}, seed(1)));
    b.output(b.op(OpKind::Gemm, {x, w}, ir::GemmAttrs{}), "y");
    auto g = b.finish();
    ir::Graph before = *g;

    EXPECT_TRUE(run_pass(*g, fully_connected));
    const ir::Node& fc = g->nodes()[0];
    ASSERT_EQ(fc.op, OpKind::FullyConnected);
    ASSERT_EQ(fc.inputs.size(), 2u);
    EXPECT_EQ(g->value(fc.inputs[1]).shape, (Shape{7, 13}));
    EXPECT_EQ(g->value(w).constant->shape(), (Shape{13, 7}));  // the original is untouched
    expect_same_results(before, *g, random_inputs(before, seed(4)));
}

TEST(FullyConnected, MatMulWithConstantWeight) {
    ir::Builder b("g");
    ir::ValueId x = b.input("x", DType::f32, {2, 9});
    ir::ValueId w = b.constant("w", random_tensor(DType::f32, {9, 6}, seed(1)));
    b.output(b.op(OpKind::MatMul, {x, w}), "y");
    auto g = b.finish();
    ir::Graph before = *g;

    EXPECT_TRUE(run_pass(*g, fully_connected));
    EXPECT_EQ(count_op(*g, OpKind::MatMul), 0);
    EXPECT_EQ(count_op(*g, OpKind::FullyConnected), 1);
    expect_same_results(before, *g, random_inputs(before, seed(5)));
}

TEST(FullyConnected, DoesNotApplyToScaledGemmOrBatchedMatMul) {
    ir::Builder b("g");
    ir::ValueId x = b.input("x", DType::f32, {3, 5});
    ir::ValueId w = b.constant("w", random_tensor(DType::f32, {5, 4}, seed(1)));
    b.output(b.op(OpKind::Gemm, {x, w}, ir::GemmAttrs{2.0f, 1.0f, false, false}), "a");
    ir::ValueId c = b.constant("c", random_tensor(DType::f32, {4}, seed(2)));
    b.output(b.op(OpKind::Gemm, {x, w, c}, ir::GemmAttrs{1.0f, 0.5f, false, false}), "b");
    ir::ValueId x3 = b.input("x3", DType::f32, {2, 3, 5});
    b.output(b.op(OpKind::MatMul, {x3, w}), "m");
    ir::ValueId wx = b.input("wx", DType::f32, {5, 4});
    b.output(b.op(OpKind::MatMul, {x, wx}), "n");
    auto g = b.finish();
    expect_not_applied(*g, fully_connected);
}

}  // namespace
}  // namespace strata::passes::test
