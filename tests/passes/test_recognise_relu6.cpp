// test_recognise_relu6.cpp: Clip(0, 6) -> Relu6 and Clip(0, inf) -> Relu.
#include <limits>

#include "pass_test_util.h"

namespace strata::passes::test {
namespace {

using ir::UnaryKind;

TEST(RecogniseRelu6, ClipZeroSixAndClipZeroInf) {
    ir::Builder b("g");
    ir::ValueId x = b.input("x", DType::f32, {3, 5, 7});
    ir::ValueId r6 = b.unary(UnaryKind::Clip, x, 0.0f, 6.0f);
    ir::ValueId r = b.unary(UnaryKind::Clip, r6, 0.0f, std::numeric_limits<float>::infinity());
    b.output(b.add(r6, r), "y");
    auto g = b.finish();
    ir::Graph before = *g;

    EXPECT_TRUE(run_pass(*g, recognise_relu6));
    EXPECT_EQ(count_unary(*g, UnaryKind::Clip), 0);
    EXPECT_EQ(count_unary(*g, UnaryKind::Relu6), 1);
    EXPECT_EQ(count_unary(*g, UnaryKind::Relu), 1);
    expect_same_results(before, *g, random_inputs(before, seed(1), -10.0, 10.0));
}

TEST(RecogniseRelu6, DoesNotApplyToOtherClips) {
    ir::Builder b("g");
    ir::ValueId x = b.input("x", DType::f32, {3, 5});
    ir::ValueId a = b.unary(UnaryKind::Clip, x, -1.0f, 6.0f);
    ir::ValueId c = b.unary(UnaryKind::Clip, a, 0.0f, 5.0f);
    b.output(b.unary(UnaryKind::Clip, c, -std::numeric_limits<float>::infinity(), 6.0f), "y");
    auto g = b.finish();
    expect_not_applied(*g, recognise_relu6);
}

}  // namespace
}  // namespace strata::passes::test
