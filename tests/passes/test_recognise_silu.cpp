// test_recognise_silu.cpp: x * Sigmoid(x) -> SiLU in either operand order.
#include "pass_test_util.h"

namespace strata::passes::test {
namespace {

using ir::BinaryKind;
using ir::OpKind;
using ir::UnaryKind;

TEST(RecogniseSilu, BothOperandOrders) {
    ir::Builder b("g");
    ir::ValueId x = b.input("x", DType::f32, {2, 7, 5, 3});
    ir::ValueId s1 = b.binary(BinaryKind::Mul, x, b.unary(UnaryKind::Sigmoid, x));
    ir::ValueId s2 = b.binary(BinaryKind::Mul, b.unary(UnaryKind::Sigmoid, s1), s1);
    b.output(s2, "y");
    auto g = b.finish();
    ir::Graph before = *g;

    EXPECT_TRUE(run_pass(*g, recognise_silu));
    EXPECT_EQ(count_unary(*g, UnaryKind::Sigmoid), 0);
    EXPECT_EQ(count_op(*g, OpKind::Binary), 0);
    EXPECT_EQ(count_unary(*g, UnaryKind::SiLU), 2);
    EXPECT_EQ(g->value(g->outputs()[0]).name, "y");
    expect_same_results(before, *g, random_inputs(before, seed(1), -6.0, 6.0));
}

TEST(RecogniseSilu, DoesNotApplyWhenTheSigmoidHasAnotherReader) {
    ir::Builder b("g");
    ir::ValueId x = b.input("x", DType::f32, {3, 5});
    ir::ValueId s = b.unary(UnaryKind::Sigmoid, x);
    b.output(b.binary(BinaryKind::Mul, x, s), "y");
    b.output(b.relu(s), "z");
    auto g = b.finish();
    expect_not_applied(*g, recognise_silu);
}

TEST(RecogniseSilu, DoesNotApplyToAGate) {
    // Squeeze-excitation's y * Sigmoid(z) is a gate, not SiLU.
    ir::Builder b("g");
    ir::ValueId x = b.input("x", DType::f32, {3, 5});
    ir::ValueId z = b.input("z", DType::f32, {3, 5});
    b.output(b.binary(BinaryKind::Mul, x, b.unary(UnaryKind::Sigmoid, z)), "y");
    auto g = b.finish();
    expect_not_applied(*g, recognise_silu);
}

}  // namespace
}  // namespace strata::passes::test
