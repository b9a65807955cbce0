// test_onnx_tensor_ops.cpp: converters for the data-movement ops (attribute forms of early opsets, input forms of
// later ones, absorbed when constant) and for Constant, ConstantOfShape, Shape, Gather, Cast, Identity, Dropout.
#include "onnx_test_model.h"

namespace strata::test {
namespace {

using ir::OpKind;
using V = std::vector<int64_t>;

TEST(OnnxMath, GemmAttributesAndOptionalC) {
    OnnxModel m(13);
    m.input("a", {3, 5}).output("y").initializer("b", random_tensor(DType::f32, {7, 5}, test_seed()));
    auto& n = m.node("Gemm", {"a", "b"}, {"y"});
    set_attr(n, "alpha", 0.5f);
    set_attr(n, "transB", int64_t{1});
    auto g = m.import();
    const ir::Node& gemm = only_node(*g, OpKind::Gemm);
    const auto& a = gemm.attr<ir::GemmAttrs>();
    EXPECT_FLOAT_EQ(a.alpha, 0.5f);
    EXPECT_FLOAT_EQ(a.beta, 1.0f);
    EXPECT_FALSE(a.trans_a);
    EXPECT_TRUE(a.trans_b);
    EXPECT_EQ(gemm.inputs.size(), 2u);
    OnnxModel old(6);  // C was required before opset 11
    old.input("a", {3, 5}).input("b", {5, 7}).output("y");
    old.node("Gemm", {"a", "b"}, {"y"}, "g6");
    expect_error([&] { old.import(); }, StatusCode::parse_error, {"Gemm 'g6' has 2 inputs", "opset 6"});
}

TEST(OnnxMath, SoftmaxAxisDefaultsAndCoercionByOpset) {
    for (int64_t opset : {6, 12, 13, 17}) {
        OnnxModel m(opset);
        m.input("x", {2, 3, 4}).output("y").output("z");
        m.node("Softmax", {"x"}, {"y"});
        set_attr(m.node("LogSoftmax", {"x"}, {"z"}), "axis", int64_t{2});
        auto g = m.import();
        const auto& s = only_node(*g, OpKind::Softmax).attr<ir::SoftmaxAttrs>();
        const auto& l = only_node(*g, OpKind::LogSoftmax).attr<ir::SoftmaxAttrs>();
        EXPECT_EQ(s.coerce_2d, opset < 13) << opset;
        EXPECT_EQ(s.axis, opset < 13 ? 1 : -1) << opset;
        EXPECT_EQ(l.axis, 2);
        EXPECT_EQ(l.coerce_2d, opset < 13);
    }
}

TEST(OnnxMath, ReduceAxesAttributeOrInputByOpset) {
    struct Case {
        const char* op;
        int64_t opset;
        bool axes_input;
        ir::ReduceKind kind;
    };
    const Case cases[] = {
        {"ReduceSum", 11, false, ir::ReduceKind::Sum},   {"ReduceSum", 13, true, ir::ReduceKind::Sum},
        {"ReduceMean", 13, false, ir::ReduceKind::Mean}, {"ReduceMean", 18, true, ir::ReduceKind::Mean},
        {"ReduceMax", 17, false, ir::ReduceKind::Max},   {"ReduceMin", 18, true, ir::ReduceKind::Min}};
    for (const Case& c : cases) {
        OnnxModel m(c.opset);
        m.input("x", {2, 3, 5}).output("y");
        onnx::NodeProto* n;
        if (c.axes_input) {
            m.initializer("axes", i64_tensor({-1, 1}));
            n = &m.node(c.op, {"x", "axes"}, {"y"});
        } else {
            n = &m.node(c.op, {"x"}, {"y"});
            set_attr(*n, "axes", V{-1, 1});
        }
        set_attr(*n, "keepdims", int64_t{0});
        auto g = m.import();
        const ir::Node& r = only_node(*g, OpKind::Reduce);
        const auto& a = r.attr<ir::ReduceAttrs>();
        EXPECT_EQ(a.kind, c.kind) << c.op;
        EXPECT_EQ(a.axes, (V{-1, 1})) << c.op << " opset " << c.opset;
        EXPECT_FALSE(a.keepdims);
        EXPECT_EQ(r.inputs.size(), 1u) << c.op;
    }
}

TEST(OnnxMath, MatMul) {
    OnnxModel m;
    m.input("a", {2, 3, 5}).input("b", {5, 7}).output("y");
    m.node("MatMul", {"a", "b"}, {"y"});
    EXPECT_EQ(only_node(*m.import(), OpKind::MatMul).inputs.size(), 2u);
}

TEST(OnnxTensorOps, ReshapeShapeConstantAbsorbedComputedKept) {
    OnnxModel m;
    m.input("x", {2, 3, 4}).output("y").output("z").initializer("shape", i64_tensor({0, -1}));
    m.node("Reshape", {"x", "shape"}, {"y"});
    m.node("Shape", {"x"}, {"s"});
    m.node("Reshape", {"x", "s"}, {"z"});
    auto g = m.import();
    const ir::Node& r1 = g->nodes()[0];
    EXPECT_EQ(r1.inputs.size(), 1u);
    EXPECT_EQ(r1.attr<ir::ReshapeAttrs>().shape, (V{0, -1}));
    const ir::Node& r2 = g->nodes()[2];
    EXPECT_EQ(r2.inputs.size(), 2u);
    EXPECT_FALSE(r2.attr<ir::ReshapeAttrs>().shape.has_value());
}

TEST(OnnxTensorOps, ReshapeOpset1ShapeAttribute) {
    OnnxModel m(1);
    m.input("x", {2, 3, 4}).output("y");
    set_attr(m.node("Reshape", {"x"}, {"y"}), "shape", V{6, 4});
    EXPECT_EQ(only_node(*m.import(), OpKind::Reshape).attr<ir::ReshapeAttrs>().shape, (V{6, 4}));
}

TEST(OnnxTensorOps, FlattenTransposeConcat) {
    OnnxModel m;
    m.input("x", {2, 3, 4}).output("f").output("t").output("c");
    set_attr(m.node("Flatten", {"x"}, {"f"}), "axis", int64_t{2});
    set_attr(m.node("Transpose", {"x"}, {"t"}), "perm", V{2, 0, 1});
    set_attr(m.node("Concat", {"x", "x", "x"}, {"c"}), "axis", int64_t{-1});
    auto g = m.import();
    EXPECT_EQ(only_node(*g, OpKind::Flatten).attr<ir::FlattenAttrs>().axis, 2);
    EXPECT_EQ(only_node(*g, OpKind::Transpose).attr<ir::TransposeAttrs>().perm, (V{2, 0, 1}));
    const ir::Node& c = only_node(*g, OpKind::Concat);
    EXPECT_EQ(c.attr<ir::AxisAttrs>().axis, -1);
    EXPECT_EQ(c.inputs.size(), 3u);
}

TEST(OnnxTensorOps, SplitAttributeBefore13InputFrom13) {
    OnnxModel m11(11);
    m11.input("x", {7, 3}).output("a").output("b");
    auto& n = m11.node("Split", {"x"}, {"a", "b"});
    set_attr(n, "split", V{5, 2});
    auto g = m11.import();
    const ir::Node& s = only_node(*g, OpKind::Split);
    EXPECT_EQ(s.attr<ir::SplitAttrs>().split, (V{5, 2}));
    EXPECT_EQ(s.outputs.size(), 2u);

    OnnxModel m13(13);
    m13.input("x", {7, 3}).output("a").output("b").output("c").initializer("sizes", i64_tensor({1, 1, 1}));
    set_attr(m13.node("Split", {"x", "sizes"}, {"a", "b", "c"}), "axis", int64_t{1});
    auto g13 = m13.import();
    const ir::Node& s13 = only_node(*g13, OpKind::Split);
    EXPECT_EQ(s13.attr<ir::SplitAttrs>().split, (V{1, 1, 1}));
    EXPECT_EQ(s13.attr<ir::SplitAttrs>().axis, 1);
    EXPECT_EQ(s13.inputs.size(), 1u);

    OnnxModel bad(18);
    bad.input("x", {6}).output("a").output("b");
    set_attr(bad.node("Split", {"x"}, {"a", "b"}, "sp"), "num_outputs", int64_t{3});
    expect_error([&] { bad.import(); }, StatusCode::parse_error, {"Split 'sp'", "num_outputs", "2 outputs"});
}

TEST(OnnxTensorOps, SliceAttributesBefore10InputsFrom10) {
    OnnxModel m9(9);
    m9.input("x", {5, 7}).output("y");
    auto& n = m9.node("Slice", {"x"}, {"y"});
    set_attr(n, "starts", V{1});
    set_attr(n, "ends", V{4});
    set_attr(n, "axes", V{1});
    auto g9 = m9.import();
    const auto& a9 = only_node(*g9, OpKind::Slice).attr<ir::SliceAttrs>();
    EXPECT_EQ(a9.starts, (V{1}));
    EXPECT_EQ(a9.ends, (V{4}));
    EXPECT_EQ(a9.axes, (V{1}));
    EXPECT_TRUE(a9.steps.empty());

    OnnxModel m13(13);
    m13.input("x", {5, 7}).input("e", {1}, DType::i64).output("y");
    m13.initializer("s", i64_tensor({1})).initializer("ax", i64_tensor({0})).initializer("st", i64_tensor({2}));
    m13.node("Slice", {"x", "s", "e", "ax", "st"}, {"y"});
    auto g = m13.import();
    const ir::Node& sl = only_node(*g, OpKind::Slice);
    const auto& a13 = sl.attr<ir::SliceAttrs>();
    EXPECT_EQ(a13.starts, (V{1}));
    EXPECT_FALSE(a13.ends.has_value());  // computed: stays an input
    EXPECT_EQ(a13.axes, (V{0}));
    EXPECT_EQ(a13.steps, (V{2}));
    ASSERT_EQ(sl.inputs.size(), 3u);
    EXPECT_EQ(sl.inputs[1], ir::kNoValue);
    EXPECT_EQ(g->value(sl.inputs[2]).name, "e");
}

TEST(OnnxTensorOps, PadAttributesBefore11InputsFrom11) {
    OnnxModel m2(2);
    m2.input("x", {1, 3, 4, 4}).output("y");
    auto& n = m2.node("Pad", {"x"}, {"y"});
    set_attr(n, "pads", V{0, 0, 1, 2, 0, 0, 3, 4});
    set_attr(n, "mode", std::string("reflect"));
    auto g2 = m2.import();
    const auto& a2 = only_node(*g2, OpKind::Pad).attr<ir::PadAttrs>();
    EXPECT_EQ(a2.pads, (V{0, 0, 1, 2, 0, 0, 3, 4}));
    EXPECT_EQ(a2.mode, ir::PadMode::reflect);

    OnnxModel m11(11);
    m11.input("x", {1, 3, 4, 4}).output("y");
    m11.initializer("p", i64_tensor({0, 0, 1, 1, 0, 0, 1, 1})).initializer("v", f32_scalar(2.5f));
    m11.node("Pad", {"x", "p", "v"}, {"y"});
    auto g11 = m11.import();
    const ir::Node& pad = only_node(*g11, OpKind::Pad);
    EXPECT_EQ(pad.inputs.size(), 1u);
    EXPECT_EQ(pad.attr<ir::PadAttrs>().pads, (V{0, 0, 1, 1, 0, 0, 1, 1}));
    EXPECT_FLOAT_EQ(pad.attr<ir::PadAttrs>().value, 2.5f);
    EXPECT_EQ(pad.attr<ir::PadAttrs>().mode, ir::PadMode::constant);

    OnnxModel wrap(19);
    wrap.input("x", {1, 3}).output("y").initializer("p", i64_tensor({0, 1, 0, 1}));
    set_attr(wrap.node("Pad", {"x", "p"}, {"y"}), "mode", std::string("wrap"));
    expect_error([&] { wrap.import(); }, StatusCode::unsupported, {"Pad mode 'wrap'"});
}

TEST(OnnxTensorOps, SqueezeUnsqueezeAxesByOpset) {
    OnnxModel m11(11);
    m11.input("x", {1, 3, 1}).output("y").output("z");
    set_attr(m11.node("Squeeze", {"x"}, {"y"}), "axes", V{0});
    set_attr(m11.node("Unsqueeze", {"x"}, {"z"}), "axes", V{-1});
    auto g11 = m11.import();
    EXPECT_EQ(only_node(*g11, OpKind::Squeeze).attr<ir::AxesAttrs>().axes, (V{0}));
    EXPECT_EQ(only_node(*g11, OpKind::Unsqueeze).attr<ir::AxesAttrs>().axes, (V{-1}));

    OnnxModel m13(13);
    m13.input("x", {1, 3, 1}).output("y").output("z").initializer("ax", i64_tensor({2}));
    m13.node("Squeeze", {"x"}, {"y"});
    m13.node("Unsqueeze", {"x", "ax"}, {"z"});
    auto g13 = m13.import();
    EXPECT_FALSE(only_node(*g13, OpKind::Squeeze).attr<ir::AxesAttrs>().axes.has_value());
    EXPECT_EQ(only_node(*g13, OpKind::Unsqueeze).attr<ir::AxesAttrs>().axes, (V{2}));
    EXPECT_EQ(only_node(*g13, OpKind::Unsqueeze).inputs.size(), 1u);
}

TEST(OnnxTensorOps, TileAndExpandAbsorbConstants) {
    OnnxModel m;
    m.input("x", {1, 3}).output("t").output("e");
    m.initializer("r", i64_tensor({2, 1})).initializer("s", i64_tensor({5, 1, 3}));
    m.node("Tile", {"x", "r"}, {"t"});
    m.node("Expand", {"x", "s"}, {"e"});
    auto g = m.import();
    EXPECT_EQ(only_node(*g, OpKind::Tile).attr<ir::TileAttrs>().repeats, (V{2, 1}));
    EXPECT_EQ(only_node(*g, OpKind::Expand).attr<ir::ExpandAttrs>().shape, (V{5, 1, 3}));
    EXPECT_EQ(only_node(*g, OpKind::Expand).inputs.size(), 1u);
}

TEST(OnnxMiscOps, ConstantFormsBecomeValuesWithoutNodes) {
    OnnxModel m(13);
    m.input("x", {3}).output("y");
    Tensor t = random_tensor(DType::f32, {3}, test_seed());
    set_attr(m.node("Constant", {}, {"c_tensor"}), "value", t);
    set_attr(m.node("Constant", {}, {"c_float"}), "value_float", 1.5f);
    set_attr(m.node("Constant", {}, {"c_ints"}), "value_ints", V{4, -5});
    m.node("Add", {"x", "c_tensor"}, {"a"});
    m.node("Mul", {"a", "c_float"}, {"b"});
    m.node("Reshape", {"b", "c_ints"}, {"y"});
    auto g = m.import();
    EXPECT_EQ(g->nodes().size(), 3u);
    const ir::Node& add = g->nodes()[0];
    ASSERT_TRUE(g->is_constant(add.inputs[1]));
    const Tensor& ct = *g->value(add.inputs[1]).constant;
    EXPECT_EQ(ct.shape(), (Shape{3}));
    EXPECT_EQ(ct.data<float>()[2], t.data<float>()[2]);
    const Tensor& cf = *g->value(g->nodes()[1].inputs[1]).constant;
    EXPECT_EQ(cf.shape(), Shape{});
    EXPECT_EQ(cf.data<float>()[0], 1.5f);
    EXPECT_EQ(g->nodes()[2].attr<ir::ReshapeAttrs>().shape, (V{4, -5}));
}

TEST(OnnxMiscOps, ConstantSparseOrStringIsUnsupported) {
    OnnxModel m(13);
    m.input("x", {3}).output("y");
    auto& n = m.node("Constant", {}, {"c"});
    auto* a = n.add_attribute();
    a->set_name("value_string");
    a->set_type(onnx::AttributeProto::STRING);
    a->set_s("hello");
    m.node("Identity", {"x"}, {"y"});
    expect_error([&] { m.import(); }, StatusCode::unsupported, {"Constant attribute 'value_string'"});
}

TEST(OnnxMiscOps, ConstantOfShapeValueAndShape) {
    OnnxModel m;
    m.output("y").initializer("shape", i64_tensor({2, 3}));
    Tensor v = Tensor::empty(DType::i32, {1});
    v.data<int32_t>()[0] = 7;
    set_attr(m.node("ConstantOfShape", {"shape"}, {"y"}), "value", v);
    auto g = m.import();
    const ir::Node& n = only_node(*g, OpKind::ConstantOfShape);
    const auto& a = n.attr<ir::ConstantOfShapeAttrs>();
    EXPECT_TRUE(n.inputs.empty());
    EXPECT_EQ(a.shape, (V{2, 3}));
    EXPECT_EQ(a.dtype, DType::i32);
    EXPECT_EQ(a.value, 7.0);
}

TEST(OnnxMiscOps, ShapeGatherCast) {
    OnnxModel m;
    m.input("x", {2, 3, 4}).output("y").initializer("idx", i64_tensor({0}));
    auto& s = m.node("Shape", {"x"}, {"s"});
    set_attr(s, "start", int64_t{1});
    set_attr(s, "end", int64_t{-1});
    set_attr(m.node("Gather", {"s", "idx"}, {"g"}), "axis", int64_t{0});
    set_attr(m.node("Cast", {"g"}, {"y"}), "to", int64_t{onnx::TensorProto_DataType_FLOAT16});
    auto g = m.import();
    const auto& sa = only_node(*g, OpKind::Shape).attr<ir::ShapeAttrs>();
    EXPECT_EQ(sa.start, 1);
    EXPECT_EQ(sa.end, std::optional<int64_t>(-1));
    EXPECT_EQ(only_node(*g, OpKind::Gather).attr<ir::AxisAttrs>().axis, 0);
    EXPECT_EQ(only_node(*g, OpKind::Cast).attr<ir::CastAttrs>().to, DType::f16);
}

TEST(OnnxMiscOps, CastTargetsByOpset) {
    OnnxModel m5(5);
    m5.input("x", {3}).output("y");
    set_attr(m5.node("Cast", {"x"}, {"y"}), "to", std::string("INT64"));
    EXPECT_EQ(only_node(*m5.import(), OpKind::Cast).attr<ir::CastAttrs>().to, DType::i64);
    OnnxModel dbl;
    dbl.input("x", {3}).output("y");
    set_attr(dbl.node("Cast", {"x"}, {"y"}), "to", int64_t{onnx::TensorProto_DataType_DOUBLE});
    expect_error([&] { dbl.import(); }, StatusCode::unsupported, {"Cast to DOUBLE"});
}

TEST(OnnxMiscOps, IdentityOfConstantIsTheConstant) {
    OnnxModel m;
    m.input("x", {2, 3, 5, 5}).output("y").output("z");
    m.initializer("w", random_tensor(DType::f32, {4, 3, 3, 3}, test_seed()));
    m.node("Identity", {"w"}, {"w2"});
    m.node("Conv", {"x", "w2"}, {"y"});
    m.node("Identity", {"y"}, {"z"});
    auto g = m.import();
    EXPECT_EQ(g->nodes().size(), 2u);
    EXPECT_TRUE(g->is_constant(only_node(*g, OpKind::Conv).inputs[1]));
    EXPECT_EQ(count_ops(*g, OpKind::Identity), 1u);
}

TEST(OnnxMiscOps, DropoutMaskUnusedIsFineUsedIsUnsupported) {
    OnnxModel ok(12);
    ok.input("x", {3}).output("y");
    ok.node("Dropout", {"x"}, {"y", "mask"});
    EXPECT_EQ(only_node(*ok.import(), OpKind::Dropout).outputs.size(), 1u);
    OnnxModel used(12);
    used.input("x", {3}).output("y").output("m");
    used.node("Dropout", {"x"}, {"y", "mask"}, "drop");
    used.node("Cast", {"mask"}, {"m"});
    expect_error([&] { used.import(); }, StatusCode::unsupported, {"Dropout mask output", "Dropout 'drop'"});
    OnnxModel training(6);
    training.input("x", {3}).output("y");
    training.node("Dropout", {"x"}, {"y"});
    expect_error([&] { training.import(); }, StatusCode::unsupported, {"Dropout is_test=0"});
}

}  // namespace
}  // namespace strata::test
