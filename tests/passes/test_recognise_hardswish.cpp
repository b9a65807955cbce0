// test_recognise_hardswish.cpp: x * HardSigmoid(x, 1/6, 1/2) and x * Relu6(x + 3) / 6 -> HardSwish.
#include "pass_test_util.h"

namespace strata::passes::test {
namespace {

using ir::BinaryKind;
using ir::OpKind;
using ir::UnaryKind;

ir::ValueId scalar(ir::Builder& b, const std::string& name, float v, Shape shape = {}) {
    Tensor t = Tensor::empty(DType::f32, std::move(shape));
    t.data<float>()[0] = v;
    return b.constant(name, t);
}

TEST(RecogniseHardSwish, HardSigmoidForm) {
    ir::Builder b("g");
    ir::ValueId x = b.input("x", DType::f32, {2, 5, 3, 7});
    ir::ValueId h = b.unary(UnaryKind::HardSigmoid, x, 1.0f / 6.0f, 0.5f);
    b.output(b.binary(BinaryKind::Mul, h, x), "y");
    auto g = b.finish();
    ir::Graph before = *g;

    EXPECT_TRUE(run_pass(*g, recognise_hardswish));
    ASSERT_EQ(g->nodes().size(), 1u);
    EXPECT_EQ(count_unary(*g, UnaryKind::HardSwish), 1);
    EXPECT_EQ(g->nodes()[0].inputs[0], x);
    expect_same_results(before, *g, random_inputs(before, seed(1), -5.0, 5.0));
}

TEST(RecogniseHardSwish, Relu6FormWithDivAndWithMul) {
    ir::Builder b("g");
    ir::ValueId x = b.input("x", DType::f32, {3, 4, 5});
    ir::ValueId three = scalar(b, "three", 3.0f, {1});
    ir::ValueId m1 = b.binary(BinaryKind::Mul, x, b.unary(UnaryKind::Relu6, b.add(x, three)));
    ir::ValueId h1 = b.binary(BinaryKind::Div, m1, scalar(b, "six", 6.0f));
    ir::ValueId m2 = b.binary(BinaryKind::Mul, b.unary(UnaryKind::Relu6, b.add(three, h1)), h1);
    ir::ValueId h2 = b.binary(BinaryKind::Mul, scalar(b, "sixth", 1.0f / 6.0f), m2);
    b.output(h2, "y");
    auto g = b.finish();
    ir::Graph before = *g;

    EXPECT_TRUE(run_pass(*g, recognise_hardswish));
    ASSERT_EQ(g->nodes().size(), 2u);
    EXPECT_EQ(count_unary(*g, UnaryKind::HardSwish), 2);
    EXPECT_EQ(g->nodes()[1].inputs[0], g->nodes()[0].outputs[0]);
    expect_same_results(before, *g, random_inputs(before, seed(2), -5.0, 5.0));
}

TEST(RecogniseHardSwish, DoesNotApplyToOtherConstants) {
    ir::Builder b("g");
    ir::ValueId x = b.input("x", DType::f32, {3, 4});
    b.output(b.binary(BinaryKind::Mul, x, b.unary(UnaryKind::HardSigmoid, x, 0.2f, 0.5f)), "a");
    ir::ValueId m = b.binary(BinaryKind::Mul, x, b.unary(UnaryKind::Relu6, b.add(x, scalar(b, "two", 2.0f))));
    b.output(b.binary(BinaryKind::Div, m, scalar(b, "six", 6.0f)), "b");
    auto g = b.finish();
    expect_not_applied(*g, recognise_hardswish);
}

TEST(RecogniseHardSwish, DoesNotApplyWhenAnIntermediateHasAnotherReader) {
    ir::Builder b("g");
    ir::ValueId x = b.input("x", DType::f32, {3, 4});
    ir::ValueId r = b.unary(UnaryKind::Relu6, b.add(x, scalar(b, "three", 3.0f)));
    b.output(b.binary(BinaryKind::Div, b.binary(BinaryKind::Mul, x, r), scalar(b, "six", 6.0f)), "y");
    b.output(r, "r");
    auto g = b.finish();
    expect_not_applied(*g, recognise_hardswish);
}

TEST(RecogniseHardSwish, DoesNotApplyWhenAConstantWouldBroadcastToAHigherRank) {
    ir::Builder b("g");
    ir::ValueId x = b.input("x", DType::f32, {3, 4});
    ir::ValueId m = b.binary(BinaryKind::Mul, x, b.unary(UnaryKind::Relu6, b.add(x, scalar(b, "three", 3.0f))));
    b.output(b.binary(BinaryKind::Div, m, scalar(b, "six", 6.0f, {1, 1, 1})), "y");
    auto g = b.finish();
    expect_not_applied(*g, recognise_hardswish);
}

}  // namespace
}  // namespace strata::passes::test
