// test_remove_identity.cpp: Identity and Dropout are bypassed; a graph output keeps its name.
#include "pass_test_util.h"

namespace strata::passes::test {
namespace {

using ir::OpKind;

TEST(RemoveIdentity, BypassesIdentityAndDropoutInsideTheGraph) {
    ir::Builder b("g");
    ir::ValueId x = b.input("x", DType::f32, {3, 7, 5});
    ir::ValueId r = b.relu(x);
    ir::ValueId i = b.op(OpKind::Identity, {r});
    ir::ValueId d = b.op(OpKind::Dropout, {i});
    b.output(b.unary(ir::UnaryKind::Tanh, d), "y");
    auto g = b.finish();
    ir::Graph before = *g;

    EXPECT_TRUE(run_pass(*g, remove_identity));
    EXPECT_EQ(count_op(*g, OpKind::Identity), 0);
    EXPECT_EQ(count_op(*g, OpKind::Dropout), 0);
    ASSERT_EQ(g->nodes().size(), 2u);
    EXPECT_EQ(g->nodes()[1].inputs[0], r);
    expect_same_results(before, *g, random_inputs(before, seed(1)));
}

TEST(RemoveIdentity, GraphOutputKeepsItsNameByRenaming) {
    ir::Builder b("g");
    ir::ValueId x = b.input("x", DType::f32, {2, 9});
    ir::ValueId r = b.relu(x);
    ir::ValueId s = b.unary(ir::UnaryKind::Sigmoid, r);  // a second reader of r: it must follow the rename
    b.output(s, "s");
    b.output(b.op(OpKind::Identity, {r}), "y");
    auto g = b.finish();
    ir::Graph before = *g;

    EXPECT_TRUE(run_pass(*g, remove_identity));
    EXPECT_EQ(count_op(*g, OpKind::Identity), 0);
    ir::ValueId y = g->outputs()[1];
    EXPECT_EQ(g->value(y).name, "y");
    ASSERT_EQ(g->producer(y), std::optional<size_t>(0));
    EXPECT_EQ(g->nodes()[1].inputs[0], y);
    expect_same_results(before, *g, random_inputs(before, seed(2)));
}

TEST(RemoveIdentity, KeepsIdentityFromGraphInputToGraphOutput) {
    ir::Builder b("g");
    ir::ValueId x = b.input("x", DType::f32, {4, 3});
    b.output(b.op(OpKind::Identity, {x}), "y");
    b.output(b.relu(x), "z");
    auto g = b.finish();
    expect_not_applied(*g, remove_identity);
}

TEST(RemoveIdentity, KeepsIdentityBetweenTwoGraphOutputs) {
    ir::Builder b("g");
    ir::ValueId x = b.input("x", DType::f32, {4, 3});
    ir::ValueId r = b.relu(x);
    b.output(r, "r");
    b.output(b.op(OpKind::Identity, {r}), "y");
    auto g = b.finish();
    expect_not_applied(*g, remove_identity);
}

TEST(RemoveIdentity, DoesNotApplyWithoutIdentities) {
    ir::Builder b("g");
    ir::ValueId x = b.input("x", DType::f32, {5, 3});
    b.output(b.unary(ir::UnaryKind::Tanh, b.relu(x)), "y");
    auto g = b.finish();
    expect_not_applied(*g, remove_identity);
}

}  // namespace
}  // namespace strata::passes::test
