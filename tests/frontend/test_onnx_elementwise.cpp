// test_onnx_elementwise.cpp: the unary, Clip, binary (with opset < 7 broadcast/axis), PRelu and n-ary converters.
#include <cmath>

#include "onnx_test_model.h"

namespace strata::test {
namespace {

using ir::OpKind;
using ir::UnaryKind;

struct UnaryCase {
    const char* op;
    UnaryKind kind;
    float alpha, beta;  // the ONNX defaults
};

TEST(OnnxUnary, EveryOpWithItsDefaults) {
    const UnaryCase cases[] = {
        {"Relu", UnaryKind::Relu, 0, 0},
        {"LeakyRelu", UnaryKind::LeakyRelu, 0.01f, 0},
        {"Elu", UnaryKind::Elu, 1.0f, 0},
        {"Selu", UnaryKind::Selu, 1.67326319217681884765625f, 1.05070102214813232421875f},
        {"Sigmoid", UnaryKind::Sigmoid, 0, 0},
        {"HardSigmoid", UnaryKind::HardSigmoid, 0.2f, 0.5f},
        {"HardSwish", UnaryKind::HardSwish, 0, 0},
        {"Tanh", UnaryKind::Tanh, 0, 0},
        {"Softplus", UnaryKind::Softplus, 0, 0},
        {"Softsign", UnaryKind::Softsign, 0, 0},
        {"Exp", UnaryKind::Exp, 0, 0},
        {"Log", UnaryKind::Log, 0, 0},
        {"Sqrt", UnaryKind::Sqrt, 0, 0},
        {"Neg", UnaryKind::Neg, 0, 0},
        {"Abs", UnaryKind::Abs, 0, 0},
        {"Reciprocal", UnaryKind::Reciprocal, 0, 0},
    };
    for (const UnaryCase& c : cases) {
        OnnxModel m;
        m.input("x", {2, 3}).output("y");
        m.node(c.op, {"x"}, {"y"});
        auto g = m.import();
        const auto& a = only_node(*g, OpKind::Unary).attr<ir::UnaryAttrs>();
        EXPECT_EQ(a.kind, c.kind) << c.op;
        EXPECT_FLOAT_EQ(a.alpha, c.alpha) << c.op;
        EXPECT_FLOAT_EQ(a.beta, c.beta) << c.op;
    }
}

TEST(OnnxUnary, AttributesOverrideDefaults) {
    OnnxModel m;
    m.input("x", {2, 3}).output("y");
    auto& n = m.node("HardSigmoid", {"x"}, {"y"});
    set_attr(n, "alpha", 0.125f);
    set_attr(n, "beta", 0.375f);
    auto g = m.import();
    const auto& a = only_node(*g, OpKind::Unary).attr<ir::UnaryAttrs>();
    EXPECT_FLOAT_EQ(a.alpha, 0.125f);
    EXPECT_FLOAT_EQ(a.beta, 0.375f);
}

TEST(OnnxClip, AttributesBeforeOpset11) {
    OnnxModel m(6);
    m.input("x", {2, 3}).output("y");
    set_attr(m.node("Clip", {"x"}, {"y"}), "max", 0.5f);
    auto g = m.import();
    const auto& a = only_node(*g, OpKind::Unary).attr<ir::UnaryAttrs>();
    EXPECT_EQ(a.kind, UnaryKind::Clip);
    EXPECT_TRUE(std::isinf(a.alpha) && a.alpha < 0);
    EXPECT_FLOAT_EQ(a.beta, 0.5f);
}

TEST(OnnxClip, ConstantInputsAbsorbedComputedOnesKept) {
    OnnxModel m(13);
    m.input("x", {2, 3}).input("hi", {}).output("y").output("z");
    m.initializer("lo", f32_scalar(-0.25f));
    m.node("Clip", {"x", "lo"}, {"y"});
    m.node("Clip", {"x", "", "hi"}, {"z"});
    auto g = m.import();
    ASSERT_EQ(g->nodes().size(), 2u);
    const ir::Node& c1 = g->nodes()[0];
    EXPECT_EQ(c1.inputs.size(), 1u);
    EXPECT_FLOAT_EQ(c1.attr<ir::UnaryAttrs>().alpha, -0.25f);
    EXPECT_TRUE(std::isinf(c1.attr<ir::UnaryAttrs>().beta));
    const ir::Node& c2 = g->nodes()[1];
    ASSERT_EQ(c2.inputs.size(), 3u);
    EXPECT_EQ(c2.inputs[1], ir::kNoValue);
    EXPECT_EQ(g->value(c2.inputs[2]).name, "hi");
}

TEST(OnnxBinary, KindsAndOperands) {
    const std::pair<const char*, ir::BinaryKind> ops[] = {{"Add", ir::BinaryKind::Add},
                                                          {"Sub", ir::BinaryKind::Sub},
                                                          {"Mul", ir::BinaryKind::Mul},
                                                          {"Div", ir::BinaryKind::Div},
                                                          {"Pow", ir::BinaryKind::Pow}};
    for (auto [op, kind] : ops) {
        OnnxModel m;
        m.input("a", {3, 5}).input("b", {5}).output("c");
        m.node(op, {"a", "b"}, {"c"});
        auto g = m.import();
        const ir::Node& n = only_node(*g, OpKind::Binary);
        EXPECT_EQ(n.attr<ir::BinaryAttrs>().kind, kind) << op;
        EXPECT_EQ(g->value(n.inputs[0]).name, "a");
        EXPECT_EQ(g->value(n.inputs[1]).name, "b");
    }
}

// Opset 6 Add(broadcast=1, axis=1): B [3] lines up with A's dim 1 of [2,3,4,5], so it becomes [3,1,1].
TEST(OnnxBinary, LegacyAxisBroadcastReshapesConstant) {
    OnnxModel m(6);
    Tensor b = random_tensor(DType::f32, {3}, test_seed());
    m.input("a", {2, 3, 4, 5}).output("c").initializer("b", b);
    auto& n = m.node("Add", {"a", "b"}, {"c"});
    set_attr(n, "broadcast", int64_t{1});
    set_attr(n, "axis", int64_t{1});
    auto g = m.import();
    const ir::Node& add = only_node(*g, OpKind::Binary);
    ASSERT_TRUE(g->is_constant(add.inputs[1]));
    const Tensor& aligned = *g->value(add.inputs[1]).constant;
    EXPECT_EQ(aligned.shape(), (Shape{3, 1, 1}));
    for (int i = 0; i < 3; ++i) EXPECT_EQ(aligned.data<float>()[i], b.data<float>()[i]);
}

TEST(OnnxBinary, LegacyAxisBroadcastUnsqueezesComputedOperand) {
    OnnxModel m(6);
    m.input("a", {2, 3, 4, 5}).input("b", {3, 4}).output("c");
    auto& n = m.node("Mul", {"a", "b"}, {"c"});
    set_attr(n, "broadcast", int64_t{1});
    set_attr(n, "axis", int64_t{-3});
    auto g = m.import();
    const ir::Node& unsq = only_node(*g, OpKind::Unsqueeze);
    EXPECT_EQ(unsq.attr<ir::AxesAttrs>().axes, (std::vector<int64_t>{2}));
    EXPECT_EQ(only_node(*g, OpKind::Binary).inputs[1], unsq.outputs[0]);
}

TEST(OnnxBinary, LegacyBroadcastWithoutAxisOrFlagIsNumpy) {
    OnnxModel m(6);
    m.input("a", {2, 3}).input("b", {3}).output("c").output("d");
    set_attr(m.node("Add", {"a", "b"}, {"c"}), "broadcast", int64_t{1});
    m.node("Sub", {"a", "a"}, {"d"});
    auto g = m.import();
    EXPECT_EQ(count_ops(*g, OpKind::Binary), 2u);
    EXPECT_EQ(count_ops(*g, OpKind::Unsqueeze), 0u);
}

TEST(OnnxBinary, LegacyAxisThatDoesNotFitIsAnError) {
    OnnxModel m(6);
    m.input("a", {2, 3}).input("b", {3, 4}).output("c");
    auto& n = m.node("Add", {"a", "b"}, {"c"}, "add");
    set_attr(n, "broadcast", int64_t{1});
    set_attr(n, "axis", int64_t{1});
    expect_error([&] { m.import(); }, StatusCode::parse_error, {"Add 'add'", "'axis'", "rank 2"});
}

TEST(OnnxBinary, LegacyAxisOnUnknownRankIsUnsupported) {
    OnnxModel m(6);
    m.input("a", {2, 3, 4}).input("b", {3}).output("c");
    m.node("Relu", {"a"}, {"r"});
    auto& n = m.node("Add", {"r", "b"}, {"c"});
    set_attr(n, "broadcast", int64_t{1});
    set_attr(n, "axis", int64_t{1});
    expect_error([&] { m.import(); }, StatusCode::unsupported, {"Add broadcast with axis=1", "unknown"});
}

TEST(OnnxPRelu, Opset6SlopeIsPerChannel) {
    OnnxModel m(6);
    m.input("x", {2, 3, 4, 5}).output("y").initializer("s", random_tensor(DType::f32, {3}, test_seed()));
    m.node("PRelu", {"x", "s"}, {"y"});
    auto g = m.import();
    const ir::Node& p = only_node(*g, OpKind::Binary);
    EXPECT_EQ(p.attr<ir::BinaryAttrs>().kind, ir::BinaryKind::PRelu);
    EXPECT_EQ(g->value(p.inputs[1]).shape, (Shape{3, 1, 1}));
}

TEST(OnnxPRelu, Opset9SlopeUsesNumpyRules) {
    OnnxModel m(9);
    m.input("x", {2, 3, 4, 5}).output("y").initializer("s", random_tensor(DType::f32, {5}, test_seed()));
    m.node("PRelu", {"x", "s"}, {"y"});
    auto g = m.import();
    EXPECT_EQ(g->value(only_node(*g, OpKind::Binary).inputs[1]).shape, (Shape{5}));
}

TEST(OnnxVariadic, SumOfThreeIsAChainMaxOfOneIsIdentity) {
    OnnxModel m;
    m.input("a", {3}).input("b", {3}).input("c", {3}).output("s").output("mx").output("mn");
    m.node("Sum", {"a", "b", "c"}, {"s"});
    m.node("Max", {"a"}, {"mx"});
    m.node("Min", {"a", "c"}, {"mn"});
    auto g = m.import();
    ASSERT_EQ(g->nodes().size(), 4u);
    const ir::Node& first = g->nodes()[0];
    const ir::Node& second = g->nodes()[1];
    EXPECT_EQ(first.attr<ir::BinaryAttrs>().kind, ir::BinaryKind::Add);
    EXPECT_EQ(second.inputs[0], first.outputs[0]);
    EXPECT_EQ(g->value(second.inputs[1]).name, "c");
    EXPECT_EQ(g->value(second.outputs[0]).name, "s");
    EXPECT_EQ(g->nodes()[2].op, OpKind::Identity);
    EXPECT_EQ(g->nodes()[3].attr<ir::BinaryAttrs>().kind, ir::BinaryKind::Min);
}

}  // namespace
}  // namespace strata::test
