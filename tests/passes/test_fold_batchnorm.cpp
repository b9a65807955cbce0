// test_fold_batchnorm.cpp: Conv -> BatchNorm folds into the Conv's weight and bias.
#include "pass_test_util.h"

namespace strata::passes::test {
namespace {

using ir::OpKind;
using strata::test::random_tensor;

// A BatchNorm of `channels` with random statistics (variance kept positive, away from zero).
ir::ValueId random_batch_norm(ir::Builder& b, ir::ValueId x, int64_t channels, uint64_t s) {
    return b.batch_norm(x, random_tensor(DType::f32, {channels}, seed(s), 0.5, 1.5),
                        random_tensor(DType::f32, {channels}, seed(s + 1)),
                        random_tensor(DType::f32, {channels}, seed(s + 2)),
                        random_tensor(DType::f32, {channels}, seed(s + 3), 0.2, 2.0), 1e-3f);
}

TEST(FoldBatchNorm, ConvWithBiasThenBatchNormThenRelu) {
    ir::Builder b("g");
    ir::ValueId x = b.input("x", DType::f32, {2, 3, 11, 9});
    ir::ValueId c = b.conv(x, random_tensor(DType::f32, {5, 3, 3, 3}, seed(1)),
                           random_tensor(DType::f32, {5}, seed(2)), ir::conv2d_attrs(3, 1, 1));
    b.output(b.relu(random_batch_norm(b, c, 5, 10)), "y");
    auto g = b.finish();
    ir::Graph before = *g;

    EXPECT_TRUE(run_pass(*g, fold_batchnorm));
    EXPECT_EQ(count_op(*g, OpKind::BatchNorm), 0);
    ASSERT_EQ(g->nodes().size(), 2u);
    EXPECT_EQ(g->nodes()[0].op, OpKind::Conv);
    EXPECT_EQ(g->nodes()[0].inputs.size(), 3u);
    EXPECT_EQ(g->nodes()[1].inputs[0], g->nodes()[0].outputs[0]);
    expect_same_results(before, *g, random_inputs(before, seed(3)));
}

TEST(FoldBatchNorm, GroupedStridedConvWithoutBiasAsGraphOutput) {
    ir::Builder b("g");
    ir::ValueId x = b.input("x", DType::f32, {3, 6, 13, 7});
    ir::ValueId c = b.conv(x, random_tensor(DType::f32, {9, 2, 3, 3}, seed(1)), std::nullopt,
                           ir::conv2d_attrs(3, 2, 1, 3));
    b.output(random_batch_norm(b, c, 9, 20), "y");
    auto g = b.finish();
    ir::Graph before = *g;

    EXPECT_TRUE(run_pass(*g, fold_batchnorm));
    ASSERT_EQ(g->nodes().size(), 1u);
    EXPECT_EQ(g->value(g->nodes()[0].outputs[0]).name, "y");
    EXPECT_EQ(g->nodes()[0].inputs.size(), 3u);
    expect_same_results(before, *g, random_inputs(before, seed(4)));
}

TEST(FoldBatchNorm, SharedWeightIsNotModified) {
    ir::Builder b("g");
    ir::ValueId x = b.input("x", DType::f32, {1, 4, 5, 5});
    ir::ValueId w = b.constant("w", random_tensor(DType::f32, {4, 4, 1, 1}, seed(1)));
    ir::ValueId c1 = b.op(OpKind::Conv, {x, w}, ir::conv2d_attrs(1));
    ir::ValueId c2 = b.op(OpKind::Conv, {random_batch_norm(b, c1, 4, 30), w}, ir::conv2d_attrs(1));
    b.output(c2, "y");
    auto g = b.finish();
    ir::Graph before = *g;
    EXPECT_TRUE(run_pass(*g, fold_batchnorm));
    EXPECT_EQ(g->nodes()[1].inputs[1], w);  // the second Conv still reads the original weight
    expect_same_results(before, *g, random_inputs(before, seed(5)));
}

TEST(FoldBatchNorm, DoesNotApplyWhenTheConvOutputHasAnotherReader) {
    ir::Builder b("g");
    ir::ValueId x = b.input("x", DType::f32, {2, 3, 7, 7});
    ir::ValueId c = b.conv(x, random_tensor(DType::f32, {4, 3, 3, 3}, seed(1)), std::nullopt, ir::conv2d_attrs(3));
    b.output(random_batch_norm(b, c, 4, 40), "y");
    b.output(b.relu(c), "z");
    auto g = b.finish();
    expect_not_applied(*g, fold_batchnorm);
}

TEST(FoldBatchNorm, DoesNotApplyToAConvWithAFusedActivation) {
    ir::Builder b("g");
    ir::ValueId x = b.input("x", DType::f32, {2, 3, 7, 7});
    ir::ConvAttrs attrs = ir::conv2d_attrs(3);
    attrs.activation = ir::UnaryAttrs{ir::UnaryKind::Relu};
    ir::ValueId c = b.conv(x, random_tensor(DType::f32, {4, 3, 3, 3}, seed(1)), std::nullopt, attrs);
    b.output(random_batch_norm(b, c, 4, 50), "y");
    auto g = b.finish();
    expect_not_applied(*g, fold_batchnorm);
}

}  // namespace
}  // namespace strata::passes::test
