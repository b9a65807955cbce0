// test_onnx_graph.cpp: the graph level of the import: inputs (dynamic dims, initializers listed as inputs by older
// IR versions, unknown shapes), outputs, names of unnamed nodes, and internal names that avoid the model's own.
#include <set>

#include "onnx_test_model.h"

namespace strata::test {
namespace {

TEST(OnnxGraph, InputsWithDynamicAndUnknownDims) {
    OnnxModel m;
    m.input("x", {-1, 3, 5}).input("y", {2}, DType::i64).output("z");
    auto* dim = m.graph().mutable_input(0)->mutable_type()->mutable_tensor_type()->mutable_shape()->mutable_dim(2);
    dim->clear_dim_value();  // neither dim_value nor dim_param: unknown
    m.input("s", {}, DType::f16);
    m.graph().mutable_input(2)->mutable_type()->mutable_tensor_type()->clear_shape();
    m.node("Add", {"x", "s"}, {"z"});
    auto g = m.import();
    ASSERT_EQ(g->inputs().size(), 3u);
    EXPECT_EQ(g->value(g->inputs()[0]).shape, (Shape{-1, 3, -1}));
    EXPECT_EQ(g->value(g->inputs()[1]).dtype, DType::i64);
    EXPECT_FALSE(g->value(g->inputs()[2]).has_shape);
    EXPECT_EQ(g->value(g->inputs()[2]).dtype, DType::f16);
    EXPECT_EQ(g->name, "test_graph");
}

// IR version 3 lists every initializer among the graph inputs too: those are constants, not inputs.
TEST(OnnxGraph, InitializersListedAsInputsAreConstants) {
    OnnxModel m(6);
    Tensor w = random_tensor(DType::f32, {3}, test_seed());
    m.input("x", {2, 3}).input("w", {3}).output("y").initializer("w", w);
    m.node("Mul", {"x", "w"}, {"y"});
    auto g = m.import();
    ASSERT_EQ(g->inputs().size(), 1u);
    EXPECT_EQ(g->value(g->inputs()[0]).name, "x");
    EXPECT_TRUE(g->is_constant(only_node(*g, ir::OpKind::Binary).inputs[1]));
}

TEST(OnnxGraph, UnnamedNodesAreNamedAfterTheirOutput) {
    OnnxModel m;
    m.input("x", {3}).output("y");
    m.node("Relu", {"x"}, {"y"}).clear_name();
    auto g = m.import();
    EXPECT_EQ(only_node(*g, ir::OpKind::Unary).name, "y");
}

// Values the importer adds (the partial sums of an n-ary Sum) get names no ONNX value uses, even ones defined later.
TEST(OnnxGraph, InternalNamesAvoidModelNames) {
    OnnxModel m;
    m.input("a", {3}).input("b", {3}).input("c", {3}).output("out");
    m.node("Sum", {"a", "b", "c"}, {"s"}, "sum");
    m.node("Relu", {"s"}, {"sum_partial1"});
    m.node("Add", {"sum_partial1", "a"}, {"out"});
    auto g = m.import();
    std::set<std::string> names;
    for (size_t i = 0; i < g->num_values(); ++i)
        EXPECT_TRUE(names.insert(g->value(ir::ValueId(i)).name).second)
            << "duplicate value name " << g->value(ir::ValueId(i)).name;
    EXPECT_EQ(g->nodes().size(), 4u);
}

TEST(OnnxGraph, GraphOutputMayBeAConstantOrAnInput) {
    OnnxModel m;
    m.input("x", {3}).output("x").output("k").output("y");
    set_attr(m.node("Constant", {}, {"k"}), "value", random_tensor(DType::f32, {2}, test_seed()));
    m.node("Relu", {"x"}, {"y"});
    auto g = m.import();
    ASSERT_EQ(g->outputs().size(), 3u);
    EXPECT_TRUE(g->is_graph_input(g->outputs()[0]));
    EXPECT_TRUE(g->is_constant(g->outputs()[1]));
}

}  // namespace
}  // namespace strata::test
