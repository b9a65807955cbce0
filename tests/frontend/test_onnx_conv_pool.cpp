// test_onnx_conv_pool.cpp: the Conv, ConvTranspose, BatchNormalization/InstanceNormalization and pooling
// converters: attributes into ConvAttrs/PoolAttrs, defaults, legacy forms and what is refused.
#include "onnx_test_model.h"

namespace strata::test {
namespace {

using ir::OpKind;

OnnxModel conv_model(const Shape& w_shape, int64_t opset = 17) {
    OnnxModel m(opset);
    Shape x_shape{1, w_shape[1]};
    for (size_t i = 2; i < w_shape.size(); ++i) x_shape.push_back(9);
    m.input("x", x_shape).output("y").initializer("w", random_tensor(DType::f32, w_shape, test_seed()));
    return m;
}

TEST(OnnxConv, AttributesBecomeConvAttrs) {
    OnnxModel m = conv_model({6, 3, 3, 5});
    m.initializer("b", random_tensor(DType::f32, {6}, test_seed() + 1));
    auto& n = m.node("Conv", {"x", "w", "b"}, {"y"}, "conv1");
    set_attr(n, "strides", std::vector<int64_t>{2, 1});
    set_attr(n, "dilations", std::vector<int64_t>{1, 3});
    set_attr(n, "pads", std::vector<int64_t>{1, 2, 0, 3});
    auto g = m.import();
    const ir::Node& conv = only_node(*g, OpKind::Conv);
    const auto& a = conv.attr<ir::ConvAttrs>();
    EXPECT_EQ(conv.name, "conv1");
    EXPECT_EQ(a.kernel, (std::vector<int64_t>{3, 5}));  // from W: no kernel_shape attribute
    EXPECT_EQ(a.strides, (std::vector<int64_t>{2, 1}));
    EXPECT_EQ(a.dilations, (std::vector<int64_t>{1, 3}));
    EXPECT_EQ(a.pads_begin, (std::vector<int64_t>{1, 2}));
    EXPECT_EQ(a.pads_end, (std::vector<int64_t>{0, 3}));
    EXPECT_EQ(a.group, 1);
    EXPECT_EQ(a.auto_pad, ir::AutoPad::explicit_pads);
    ASSERT_EQ(conv.inputs.size(), 3u);
    EXPECT_TRUE(g->is_constant(conv.inputs[2]));
    EXPECT_EQ(g->outputs()[0], conv.outputs[0]);
}

TEST(OnnxConv, OneDimensionalGroupedWithAutoPad) {
    OnnxModel m = conv_model({4, 1, 3});
    auto& n = m.node("Conv", {"x", "w"}, {"y"});
    set_attr(n, "group", int64_t{1});
    set_attr(n, "auto_pad", std::string("SAME_LOWER"));
    set_attr(n, "kernel_shape", std::vector<int64_t>{3});
    auto g = m.import();
    const auto& a = only_node(*g, OpKind::Conv).attr<ir::ConvAttrs>();
    EXPECT_EQ(a.kernel, (std::vector<int64_t>{3}));
    EXPECT_EQ(a.strides, (std::vector<int64_t>{1}));
    EXPECT_EQ(a.pads_begin, (std::vector<int64_t>{0}));
    EXPECT_EQ(a.auto_pad, ir::AutoPad::same_lower);
    EXPECT_EQ(only_node(*g, OpKind::Conv).inputs.size(), 2u);
}

TEST(OnnxConv, ThreeDimensionalKernelIsUnsupported) {
    OnnxModel m = conv_model({2, 3, 3, 3, 3});
    m.node("Conv", {"x", "w"}, {"y"}, "conv3d");
    expect_error([&] { m.import(); }, StatusCode::unsupported, {"test.onnx", "unsupported: Conv 3-D kernel", "conv3d"});
}

TEST(OnnxConv, BadAttributeValuesAreParseErrors) {
    OnnxModel m = conv_model({2, 3, 3, 3});
    set_attr(m.node("Conv", {"x", "w"}, {"y"}, "c"), "pads", std::vector<int64_t>{1, 1, 1});
    expect_error([&] { m.import(); }, StatusCode::parse_error, {"Conv 'c'", "'pads'", "has 3 entries, expected 4"});
    OnnxModel m2 = conv_model({2, 3, 3, 3});
    set_attr(m2.node("Conv", {"x", "w"}, {"y"}, "c"), "strides", std::vector<int64_t>{0, 1});
    expect_error([&] { m2.import(); }, StatusCode::parse_error, {"'strides'", "expected >= 1"});
    OnnxModel m3 = conv_model({2, 3, 3, 3});
    set_attr(m3.node("Conv", {"x", "w"}, {"y"}, "c"), "auto_pad", std::string("SAME"));
    expect_error([&] { m3.import(); }, StatusCode::parse_error, {"'auto_pad'", "'SAME'", "SAME_UPPER"});
}

TEST(OnnxConv, BadAttributeTypeNamesAttributeAndTypes) {
    OnnxModel m = conv_model({2, 3, 3, 3});
    set_attr(m.node("Conv", {"x", "w"}, {"y"}, "c"), "group", 2.0f);
    expect_error([&] { m.import(); }, StatusCode::parse_error, {"Conv 'c'", "'group'", "FLOAT", "expected INT"});
}

TEST(OnnxConv, WeightOfUnknownShapeNeedsKernelShape) {
    OnnxModel m;
    m.input("x", {1, 3, 8, 8}).input("w", {}).output("y");
    m.graph().mutable_input(1)->mutable_type()->mutable_tensor_type()->clear_shape();
    m.node("Conv", {"x", "w"}, {"y"});
    expect_error([&] { m.import(); }, StatusCode::unsupported, {"kernel_shape"});
}

TEST(OnnxConvTranspose, OutputPaddingAndShape) {
    OnnxModel m = conv_model({3, 2, 4, 4});
    auto& n = m.node("ConvTranspose", {"x", "w"}, {"y"});
    set_attr(n, "strides", std::vector<int64_t>{2, 2});
    set_attr(n, "output_padding", std::vector<int64_t>{1, 0});
    set_attr(n, "output_shape", std::vector<int64_t>{19, 18});
    auto g = m.import();
    const auto& a = only_node(*g, OpKind::ConvTranspose).attr<ir::ConvTransposeAttrs>();
    EXPECT_EQ(a.kernel, (std::vector<int64_t>{4, 4}));
    EXPECT_EQ(a.output_padding, (std::vector<int64_t>{1, 0}));
    EXPECT_EQ(a.output_shape, (std::vector<int64_t>{19, 18}));
}

OnnxModel batch_norm_model(int64_t opset) {
    OnnxModel m(opset);
    m.input("x", {2, 5, 3, 3}).output("y");
    const char* names[] = {"scale", "bias", "mean", "var"};
    for (int i = 0; i < 4; ++i) m.initializer(names[i], random_tensor(DType::f32, {5}, test_seed() + i, 0.5, 1.5));
    return m;
}

TEST(OnnxBatchNorm, InferenceFormsAcrossOpsets) {
    for (int64_t opset : {6, 9, 15}) {
        OnnxModel m = batch_norm_model(opset);
        auto& n = m.node("BatchNormalization", {"x", "scale", "bias", "mean", "var"}, {"y"});
        set_attr(n, "epsilon", 1e-3f);
        if (opset < 7) set_attr(n, "is_test", int64_t{1});
        auto g = m.import();
        const ir::Node& bn = only_node(*g, OpKind::BatchNorm);
        EXPECT_FLOAT_EQ(bn.attr<ir::BatchNormAttrs>().epsilon, 1e-3f) << "opset " << opset;
        EXPECT_EQ(bn.inputs.size(), 5u);
    }
}

TEST(OnnxBatchNorm, TrainingFormsAreUnsupported) {
    OnnxModel m6 = batch_norm_model(6);  // is_test defaults to 0: training mode
    m6.node("BatchNormalization", {"x", "scale", "bias", "mean", "var"}, {"y"});
    expect_error([&] { m6.import(); }, StatusCode::unsupported, {"BatchNormalization is_test=0"});
    OnnxModel m7 = batch_norm_model(7);
    set_attr(m7.node("BatchNormalization", {"x", "scale", "bias", "mean", "var"}, {"y"}), "spatial", int64_t{0});
    expect_error([&] { m7.import(); }, StatusCode::unsupported, {"spatial=0"});
    OnnxModel m15 = batch_norm_model(15);
    set_attr(m15.node("BatchNormalization", {"x", "scale", "bias", "mean", "var"}, {"y"}), "training_mode", int64_t{1});
    expect_error([&] { m15.import(); }, StatusCode::unsupported, {"training_mode=1"});
    OnnxModel used = batch_norm_model(9);
    used.node("BatchNormalization", {"x", "scale", "bias", "mean", "var"}, {"y", "running_mean"});
    used.output("running_mean");
    expect_error([&] { used.import(); }, StatusCode::unsupported, {"BatchNormalization output 1"});
}

TEST(OnnxInstanceNorm, EpsilonAndInputs) {
    OnnxModel m(6);
    m.input("x", {2, 3, 5}).output("y");
    m.initializer("s", random_tensor(DType::f32, {3}, test_seed()));
    m.initializer("b", random_tensor(DType::f32, {3}, test_seed() + 1));
    set_attr(m.node("InstanceNormalization", {"x", "s", "b"}, {"y"}), "epsilon", 0.25f);
    auto g = m.import();
    EXPECT_FLOAT_EQ(only_node(*g, OpKind::InstanceNorm).attr<ir::BatchNormAttrs>().epsilon, 0.25f);
}

TEST(OnnxPool, MaxPoolAttributes) {
    OnnxModel m;
    m.input("x", {1, 3, 11, 13}).output("y");
    auto& n = m.node("MaxPool", {"x"}, {"y"});
    set_attr(n, "kernel_shape", std::vector<int64_t>{3, 2});
    set_attr(n, "strides", std::vector<int64_t>{2, 2});
    set_attr(n, "dilations", std::vector<int64_t>{2, 1});
    set_attr(n, "pads", std::vector<int64_t>{1, 0, 1, 1});
    set_attr(n, "ceil_mode", int64_t{1});
    auto g = m.import();
    const auto& a = only_node(*g, OpKind::MaxPool).attr<ir::PoolAttrs>();
    EXPECT_EQ(a.kernel, (std::vector<int64_t>{3, 2}));
    EXPECT_EQ(a.dilations, (std::vector<int64_t>{2, 1}));
    EXPECT_EQ(a.pads_end, (std::vector<int64_t>{1, 1}));
    EXPECT_TRUE(a.ceil_mode);
}

TEST(OnnxPool, AveragePoolCountIncludePadAndGlobalPools) {
    OnnxModel m;
    m.input("x", {1, 3, 7}).output("y").output("gmax");
    auto& n = m.node("AveragePool", {"x"}, {"a"});
    set_attr(n, "kernel_shape", std::vector<int64_t>{3});
    set_attr(n, "count_include_pad", int64_t{1});
    m.node("GlobalAveragePool", {"a"}, {"y"});
    m.node("GlobalMaxPool", {"x"}, {"gmax"});
    auto g = m.import();
    const auto& a = only_node(*g, OpKind::AveragePool).attr<ir::PoolAttrs>();
    EXPECT_TRUE(a.count_include_pad);
    EXPECT_FALSE(a.ceil_mode);
    EXPECT_EQ(count_ops(*g, OpKind::GlobalAveragePool), 1u);
    EXPECT_EQ(count_ops(*g, OpKind::GlobalMaxPool), 1u);
}

TEST(OnnxPool, RefusedForms) {
    OnnxModel idx;
    idx.input("x", {1, 3, 8, 8}).output("y");
    set_attr(idx.node("MaxPool", {"x"}, {"y", "indices"}), "kernel_shape", std::vector<int64_t>{2, 2});
    expect_error([&] { idx.import(); }, StatusCode::unsupported, {"MaxPool Indices output"});
    OnnxModel p3;
    p3.input("x", {1, 3, 4, 4, 4}).output("y");
    set_attr(p3.node("MaxPool", {"x"}, {"y"}), "kernel_shape", std::vector<int64_t>{2, 2, 2});
    expect_error([&] { p3.import(); }, StatusCode::unsupported, {"MaxPool 3-D kernel"});
    OnnxModel nok;
    nok.input("x", {1, 3, 4, 4}).output("y");
    nok.node("AveragePool", {"x"}, {"y"});
    expect_error([&] { nok.import(); }, StatusCode::parse_error, {"'kernel_shape' is missing"});
}

}  // namespace
}  // namespace strata::test
