// test_fold_constants.cpp: constant subgraphs are evaluated; Shape chains become plain Reshapes once the batch is
// fixed; large results and graph outputs are left alone.
#include "core/check.h"
#include "pass_test_util.h"

namespace strata::passes::test {
namespace {

using ir::OpKind;

Tensor i64_tensor(std::vector<int64_t> values, Shape shape) {
    Tensor t = Tensor::empty(DType::i64, std::move(shape));
    for (size_t i = 0; i < values.size(); ++i) t.data<int64_t>()[i] = values[i];
    return t;
}

TEST(FoldConstants, EvaluatesAConstantSubgraph) {
    ir::Builder b("g");
    ir::ValueId x = b.input("x", DType::f32, {3, 5, 7});
    ir::ValueId c1 = b.constant("c1", strata::test::random_tensor(DType::f32, {5, 7}, seed(1)));
    ir::ValueId c2 = b.constant("c2", strata::test::random_tensor(DType::f32, {5, 7}, seed(2)));
    ir::ValueId c = b.unary(ir::UnaryKind::Tanh, b.add(c1, c2));
    b.output(b.binary(ir::BinaryKind::Mul, x, c), "y");
    auto g = b.finish();
    ir::Graph before = *g;

    EXPECT_TRUE(run_pass(*g, fold_constants));
    ASSERT_EQ(g->nodes().size(), 1u);
    EXPECT_TRUE(g->is_constant(g->nodes()[0].inputs[1]));
    expect_same_results(before, *g, random_inputs(before, seed(3)));
}

// The chain exporters write for x.view(x.size(0), 35, 3): Shape -> Gather -> Unsqueeze -> Concat -> Reshape; then
// r.view(-1, r.size(0)), whose Shape reads the first Reshape's output (known only once that Reshape is static).
std::shared_ptr<ir::Graph> reshape_by_shape_chain() {
    ir::Builder b("g");
    ir::ValueId x = b.input("x", DType::f32, {-1, 5, 7, 3});
    auto batch_of = [&](ir::ValueId v) {
        ir::ValueId shape = b.op(OpKind::Shape, {v}, ir::ShapeAttrs{});
        ir::ValueId n = b.op(OpKind::Gather, {shape, b.constant("zero", i64_tensor({0}, {}))}, ir::AxisAttrs{0});
        return b.op(OpKind::Unsqueeze, {n}, ir::AxesAttrs{std::vector<int64_t>{0}});
    };
    ir::ValueId dims = b.concat({batch_of(x), b.constant("rest", i64_tensor({35, 3}, {2}))}, 0);
    ir::ValueId r = b.op(OpKind::Reshape, {x, dims}, ir::ReshapeAttrs{});
    ir::ValueId dims2 = b.concat({b.constant("minus_one", i64_tensor({-1}, {1})), batch_of(r)}, 0);
    b.output(b.op(OpKind::Reshape, {r, dims2}, ir::ReshapeAttrs{}), "y");
    return b.finish();
}

TEST(FoldConstants, ShapeChainsBecomePlainReshapesOnceTheBatchIsFixed) {
    auto g = reshape_by_shape_chain();
    ir::Graph dynamic = *g;
    EXPECT_FALSE(fold_constants(dynamic));  // the batch is unknown: Shape cannot fold

    set_batch(*g, 3);
    run_pipeline(*g, {{"fold_constants", fold_constants}, {"remove_unused", remove_unused}});
    ASSERT_EQ(g->nodes().size(), 2u);
    for (const ir::Node& reshape : g->nodes()) {
        ASSERT_EQ(reshape.op, OpKind::Reshape);
        EXPECT_EQ(reshape.inputs.size(), 1u);
    }
    EXPECT_EQ(g->nodes()[0].attr<ir::ReshapeAttrs>().shape, (std::vector<int64_t>{3, 35, 3}));
    EXPECT_EQ(g->nodes()[1].attr<ir::ReshapeAttrs>().shape, (std::vector<int64_t>{-1, 3}));

    auto inputs = random_inputs(*g, seed(4));
    Tensor y = backends::run_reference(*g, inputs).at("y");
    const Tensor& x = inputs.at("x");
    ASSERT_EQ(y.shape(), (Shape{105, 3}));
    EXPECT_EQ(strata::test::count_mismatches(y, x.reshaped({105, 3}), 0.0, 0.0), 0);
}

TEST(FoldConstants, LeavesResultsOverTheSizeCap) {
    ir::Builder b("g");
    ir::ValueId x = b.input("x", DType::f32, {1, 1, 1});
    ir::ConstantOfShapeAttrs big{std::vector<int64_t>{5, 1024, 1024}, DType::f32, 0.5};  // 20 MiB
    b.output(b.add(x, b.op(OpKind::ConstantOfShape, {}, big)), "y");
    auto g = b.finish();
    expect_not_applied(*g, fold_constants);
}

TEST(FoldConstants, FoldsASmallConstantOfShape) {
    ir::Builder b("g");
    ir::ValueId x = b.input("x", DType::f32, {2, 3, 5});
    ir::ConstantOfShapeAttrs small{std::vector<int64_t>{3, 5}, DType::f32, 0.75};
    b.output(b.add(x, b.op(OpKind::ConstantOfShape, {}, small)), "y");
    auto g = b.finish();
    ir::Graph before = *g;
    EXPECT_TRUE(run_pass(*g, fold_constants));
    EXPECT_EQ(count_op(*g, OpKind::ConstantOfShape), 0);
    expect_same_results(before, *g, random_inputs(before, seed(5)));
}

TEST(FoldConstants, KeepsTheProducerOfAGraphOutput) {
    ir::Builder b("g");
    ir::ValueId x = b.input("x", DType::f32, {2, 3});
    b.output(b.relu(x), "y");
    ir::ValueId c = b.constant("c", strata::test::random_tensor(DType::f32, {2, 3}, seed(6)));
    b.output(b.unary(ir::UnaryKind::Tanh, c), "z");
    auto g = b.finish();
    expect_not_applied(*g, fold_constants);
}

TEST(FoldConstants, DoesNotApplyWithoutConstants) {
    ir::Builder b("g");
    ir::ValueId x = b.input("x", DType::f32, {2, 3, 5});
    b.output(b.unary(ir::UnaryKind::Sigmoid, b.relu(x)), "y");
    auto g = b.finish();
    expect_not_applied(*g, fold_constants);
}

}  // namespace
}  // namespace strata::passes::test
