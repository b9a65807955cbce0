// test_shape_inference.cpp: shape inference of the computing ops: Conv, ConvTranspose, pools (auto_pad, ceil_mode),
// normalisation, broadcasting binaries, Gemm, MatMul, FullyConnected, Softmax, Reduce, elementwise; dynamic batch
// and the errors. Expected sizes are worked out by hand from the ONNX spec's formulas in the comments.
#include <gtest/gtest.h>

#include "shape_test_util.h"
#include "test_support.h"

namespace strata::ir {
namespace {

using test::expect_infer_error;
using test::infer_one;
using test::one_node;

ConvAttrs conv(std::vector<int64_t> strides, std::vector<int64_t> pads, std::vector<int64_t> dilations = {},
               int64_t group = 1) {
    ConvAttrs a;
    a.strides = std::move(strides);
    a.dilations = std::move(dilations);
    if (!pads.empty()) {
        a.pads_begin.assign(pads.begin(), pads.begin() + pads.size() / 2);
        a.pads_end.assign(pads.begin() + pads.size() / 2, pads.end());
    }
    a.group = group;
    return a;
}

TEST(ShapeInferenceConv, StridesPadsDilationsOddSizes) {
    // H: (17 + 1 + 2 - ((3-1)*2+1)) / 2 + 1 = 8; W: (13 + 0 + 1 - 5) / 3 + 1 = 4
    EXPECT_EQ(infer_one(OpKind::Conv, {{2, 3, 17, 13}, {8, 3, 3, 5}, {8}}, conv({2, 3}, {1, 0, 2, 1}, {2, 1})),
              (Shape{2, 8, 8, 4}));
}

TEST(ShapeInferenceConv, FillsDefaultsAndKernelFromWeight) {
    auto n = one_node(OpKind::Conv, {{1, 5, 9, 7}, {6, 5, 3, 2}}, ConvAttrs{});
    n.infer();
    EXPECT_EQ(n.shape(), (Shape{1, 6, 7, 6}));
    const auto& a = n.node().attr<ConvAttrs>();
    EXPECT_EQ(a.kernel, (std::vector<int64_t>{3, 2}));
    EXPECT_EQ(a.strides, (std::vector<int64_t>{1, 1}));
    EXPECT_EQ(a.dilations, (std::vector<int64_t>{1, 1}));
    EXPECT_EQ(a.pads_begin, (std::vector<int64_t>{0, 0}));
    EXPECT_EQ(a.pads_end, (std::vector<int64_t>{0, 0}));
}

TEST(ShapeInferenceConv, OneDimensionalAndDepthwise) {
    EXPECT_EQ(infer_one(OpKind::Conv, {{3, 4, 11}, {2, 4, 3}}, conv({2}, {1, 1})), (Shape{3, 2, 6}));
    EXPECT_EQ(infer_one(OpKind::Conv, {{1, 6, 5, 5}, {6, 1, 3, 3}}, conv({1, 1}, {1, 1, 1, 1}, {}, 6)),
              (Shape{1, 6, 5, 5}));
}

TEST(ShapeInferenceConv, AutoPadResolvedIntoExplicitPads) {
    // in 7, k 4, stride 2: out = ceil(7/2) = 4, total pad = (4-1)*2 + 4 - 7 = 3.
    struct Case {
        AutoPad mode;
        int64_t begin, end, out;
    };
    for (Case c : {Case{AutoPad::same_upper, 1, 2, 4}, Case{AutoPad::same_lower, 2, 1, 4},
                   Case{AutoPad::valid, 0, 0, 2}}) {
        ConvAttrs a = conv({2}, {});
        a.auto_pad = c.mode;
        a.pads_begin = {5};  // ignored under auto_pad
        a.pads_end = {5};
        auto n = one_node(OpKind::Conv, {{1, 2, 7}, {3, 2, 4}}, a);
        n.infer();
        const auto& r = n.node().attr<ConvAttrs>();
        EXPECT_EQ(n.shape(), (Shape{1, 3, c.out}));
        EXPECT_EQ(r.auto_pad, AutoPad::explicit_pads);
        EXPECT_EQ(r.pads_begin, std::vector<int64_t>{c.begin});
        EXPECT_EQ(r.pads_end, std::vector<int64_t>{c.end});
    }
}

TEST(ShapeInferenceConv, DynamicBatchPropagates) {
    EXPECT_EQ(infer_one(OpKind::Conv, {{-1, 3, 9, 9}, {4, 3, 3, 3}}, conv({2, 2}, {1, 1, 1, 1})),
              (Shape{-1, 4, 5, 5}));
}

TEST(ShapeInferenceConv, MismatchesNameNodeOpAndShapes) {
    expect_infer_error(OpKind::Conv, {{1, 4, 9, 9}, {8, 3, 3, 3}}, conv({}, {}),
                       {"Conv 'n'", "[1,4,9,9]", "[8,3,3,3]"});
    expect_infer_error(OpKind::Conv, {{1, 6, 9, 9}, {8, 2, 3, 3}}, conv({}, {}, {}, 4), {"Conv 'n'", "group 4"});
    expect_infer_error(OpKind::Conv, {{1, 3, 9, 9}, {8, 3, 3, 3}, {7}}, conv({}, {}), {"Conv 'n'", "bias", "[7]"});
    expect_infer_error(OpKind::Conv, {{1, 3, 2, 9}, {8, 3, 3, 3}}, conv({}, {}), {"Conv 'n'", "[1,3,2,9]"});
    expect_infer_error(OpKind::Conv, {{1, 3, 9}, {8, 3, 3, 3}}, conv({}, {}), {"Conv 'n'", "[8,3,3,3]", "[1,3,9]"});
    expect_infer_error(OpKind::Conv, {{1, 3, 9, 9}, {8, 3, 3, 3}}, conv({1, 1, 1}, {}), {"Conv 'n'", "strides"});
}

ConvTransposeAttrs deconv(std::vector<int64_t> strides, std::vector<int64_t> pads, int64_t group = 1) {
    ConvTransposeAttrs a;
    a.strides = std::move(strides);
    if (!pads.empty()) {
        a.pads_begin.assign(pads.begin(), pads.begin() + pads.size() / 2);
        a.pads_end.assign(pads.begin() + pads.size() / 2, pads.end());
    }
    a.group = group;
    return a;
}

TEST(ShapeInferenceConvTranspose, PadsOutputPaddingGroups) {
    // H: 2*(5-1) + 1 + 3 - 1 - 1 = 10; W: 2*(6-1) + 0 + 3 - 0 - 2 = 11; channels 3 * group 2.
    auto a = deconv({2, 2}, {1, 0, 1, 2}, 2);
    a.output_padding = {1, 0};
    EXPECT_EQ(infer_one(OpKind::ConvTranspose, {{2, 4, 5, 6}, {4, 3, 3, 3}, {6}}, a), (Shape{2, 6, 10, 11}));
    EXPECT_EQ(infer_one(OpKind::ConvTranspose, {{-1, 4, 5}, {4, 3, 3}}, deconv({}, {})), (Shape{-1, 3, 7}));
}

TEST(ShapeInferenceConvTranspose, OutputShapeDerivesPads) {
    // full = 2*(5-1) + 3 = 11, output_shape 10: total pad 1; NOTSET puts the larger half first, SAME_UPPER last.
    auto a = deconv({2}, {});
    a.output_shape = {10};
    auto n = one_node(OpKind::ConvTranspose, {{1, 2, 5}, {2, 3, 3}}, a);
    n.infer();
    EXPECT_EQ(n.shape(), (Shape{1, 3, 10}));
    EXPECT_EQ(n.node().attr<ConvTransposeAttrs>().pads_begin, std::vector<int64_t>{1});
    EXPECT_EQ(n.node().attr<ConvTransposeAttrs>().pads_end, std::vector<int64_t>{0});

    auto s = deconv({2}, {});
    s.auto_pad = AutoPad::same_upper;  // out = 5 * 2 = 10
    auto m = one_node(OpKind::ConvTranspose, {{1, 2, 5}, {2, 3, 3}}, s);
    m.infer();
    const auto& r = m.node().attr<ConvTransposeAttrs>();
    EXPECT_EQ(m.shape(), (Shape{1, 3, 10}));
    EXPECT_EQ(r.auto_pad, AutoPad::explicit_pads);
    EXPECT_EQ(r.pads_begin, std::vector<int64_t>{0});
    EXPECT_EQ(r.pads_end, std::vector<int64_t>{1});
}

TEST(ShapeInferenceConvTranspose, SameLowerValidAndFourEntryOutputShape) {
    // in 4, k 4, stride 3: SAME out 12, full 3*3 + 4 = 13, total 1: SAME_LOWER puts it first.
    auto lower = deconv({3}, {});
    lower.auto_pad = AutoPad::same_lower;
    auto n = one_node(OpKind::ConvTranspose, {{2, 3, 4}, {3, 2, 4}}, lower);
    n.infer();
    EXPECT_EQ(n.shape(), (Shape{2, 2, 12}));
    EXPECT_EQ(n.node().attr<ConvTransposeAttrs>().pads_begin, std::vector<int64_t>{1});
    EXPECT_EQ(n.node().attr<ConvTransposeAttrs>().pads_end, std::vector<int64_t>{0});
    auto valid = deconv({3}, {2, 2});
    valid.auto_pad = AutoPad::valid;  // the pads are ignored
    EXPECT_EQ(infer_one(OpKind::ConvTranspose, {{2, 3, 4}, {3, 2, 4}}, valid), (Shape{2, 2, 13}));
    // output_shape written with N and C, as some exporters do: only the spatial entries count.
    auto full = deconv({2, 2}, {});
    full.output_shape = {1, 2, 9, 10};  // full: 2*3 + 3 = 9 and 2*4 + 3 = 11 -> pads (0,0) and (1,0)
    auto m = one_node(OpKind::ConvTranspose, {{1, 4, 4, 5}, {4, 2, 3, 3}}, full);
    m.infer();
    EXPECT_EQ(m.shape(), (Shape{1, 2, 9, 10}));
    EXPECT_EQ(m.node().attr<ConvTransposeAttrs>().pads_begin, (std::vector<int64_t>{0, 1}));
    EXPECT_EQ(m.node().attr<ConvTransposeAttrs>().pads_end, (std::vector<int64_t>{0, 0}));
}

TEST(ShapeInferenceConvTranspose, ChannelMismatch) {
    expect_infer_error(OpKind::ConvTranspose, {{1, 5, 4, 4}, {4, 3, 3, 3}}, deconv({}, {}),
                       {"ConvTranspose 'n'", "[1,5,4,4]", "[4,3,3,3]"});
}

TEST(ShapeInferencePool, FloorAndCeilMode) {
    // in 6, k 3, s 2: floor (6-3)/2+1 = 2, ceil ceil(3/2)+1 = 3.
    EXPECT_EQ(infer_one(OpKind::MaxPool, {{1, 2, 6, 6}}, pool2d_attrs(3, 2)), (Shape{1, 2, 2, 2}));
    EXPECT_EQ(infer_one(OpKind::MaxPool, {{1, 2, 6, 6}}, pool2d_attrs(3, 2, 0, true)), (Shape{1, 2, 3, 3}));
    // in 5, k 2, s 2, pad 1: ceil gives 4 windows but the 4th starts at 6 >= 5 + 1 (in the end padding): 3.
    EXPECT_EQ(infer_one(OpKind::AveragePool, {{1, 2, 5, 5}}, pool2d_attrs(2, 2, 1, true)), (Shape{1, 2, 3, 3}));
    // squeezenet's pools: 111 -> 55 -> 27 -> 13 with ceil_mode.
    EXPECT_EQ(infer_one(OpKind::MaxPool, {{-1, 64, 111, 111}}, pool2d_attrs(3, 2, 0, true)), (Shape{-1, 64, 55, 55}));
}

TEST(ShapeInferencePool, AutoPadAndDefaults) {
    PoolAttrs a;
    a.kernel = {3, 2};
    a.strides = {2, 1};
    a.auto_pad = AutoPad::same_lower;
    // H: out ceil(7/2) = 4, total (4-1)*2 + 3 - 7 = 2 -> 1/1; W: out 5, total 4 + 2 - 5 = 1 -> lower 1, upper 0.
    auto n = one_node(OpKind::AveragePool, {{2, 3, 7, 5}}, a);
    n.infer();
    EXPECT_EQ(n.shape(), (Shape{2, 3, 4, 5}));
    const auto& r = n.node().attr<PoolAttrs>();
    EXPECT_EQ(r.pads_begin, (std::vector<int64_t>{1, 1}));
    EXPECT_EQ(r.pads_end, (std::vector<int64_t>{1, 0}));
    EXPECT_EQ(r.dilations, (std::vector<int64_t>{1, 1}));
    expect_infer_error(OpKind::MaxPool, {{1, 2, 6, 6}}, PoolAttrs{}, {"MaxPool 'n'", "kernel_shape"});
}

TEST(ShapeInferencePool, GlobalPools) {
    EXPECT_EQ(infer_one(OpKind::GlobalAveragePool, {{2, 5, 7, 3}}, NoAttrs{}), (Shape{2, 5, 1, 1}));
    EXPECT_EQ(infer_one(OpKind::GlobalMaxPool, {{-1, 5, 9}}, NoAttrs{}), (Shape{-1, 5, 1}));
    expect_infer_error(OpKind::GlobalMaxPool, {{2, 5}}, NoAttrs{}, {"GlobalMaxPool 'n'", "[2,5]"});
}

TEST(ShapeInferenceNorm, BatchNormAndInstanceNorm) {
    EXPECT_EQ(infer_one(OpKind::BatchNorm, {{-1, 3, 5, 7}, {3}, {3}, {3}, {3}}, BatchNormAttrs{}),
              (Shape{-1, 3, 5, 7}));
    EXPECT_EQ(infer_one(OpKind::InstanceNorm, {{2, 3, 5}, {3}, {3}}, BatchNormAttrs{}), (Shape{2, 3, 5}));
    expect_infer_error(OpKind::BatchNorm, {{1, 3, 5, 7}, {3}, {3}, {4}, {3}}, BatchNormAttrs{},
                       {"BatchNorm 'n'", "[4]", "[1,3,5,7]"});
}

TEST(ShapeInferenceBinary, NumpyBroadcasting) {
    EXPECT_EQ(infer_one(OpKind::Binary, {{2, 1, 5}, {3, 1}}, BinaryAttrs{BinaryKind::Add}), (Shape{2, 3, 5}));
    EXPECT_EQ(infer_one(OpKind::Binary, {{-1, 3, 1}, {4}}, BinaryAttrs{BinaryKind::Mul}), (Shape{-1, 3, 4}));
    EXPECT_EQ(infer_one(OpKind::Binary, {{}, {3, 2}}, BinaryAttrs{BinaryKind::Pow}), (Shape{3, 2}));
    expect_infer_error(OpKind::Binary, {{2, 3}, {4}}, BinaryAttrs{BinaryKind::Sub}, {"Binary 'n'", "[2,3]", "[4]"});
}

TEST(ShapeInferenceBinary, PReluSlopeBroadcastsToX) {
    EXPECT_EQ(infer_one(OpKind::Binary, {{-1, 3, 4, 5}, {3, 1, 1}}, BinaryAttrs{BinaryKind::PRelu}),
              (Shape{-1, 3, 4, 5}));
    // Would broadcast both ways, but the slope may not grow X.
    expect_infer_error(OpKind::Binary, {{3, 1}, {3, 4}}, BinaryAttrs{BinaryKind::PRelu},
                       {"Binary 'n'", "[3,4]", "[3,1]"});
}

TEST(ShapeInferenceBinary, OutputDtypeFollowsInput) {
    auto n = one_node(OpKind::Binary, {{3}, {3}}, BinaryAttrs{}, 1, {DType::i64, DType::i64});
    n.infer();
    EXPECT_EQ(n.out().dtype, DType::i64);
    auto pow = one_node(OpKind::Binary, {{3}, {1}}, BinaryAttrs{BinaryKind::Pow}, 1, {DType::f16, DType::f32});
    pow.infer();  // Pow's exponent may have its own type
    EXPECT_EQ(pow.out().dtype, DType::f16);
}

TEST(ShapeInferenceBinary, MixedDtypesAreAnError) {
    auto n = one_node(OpKind::Binary, {{3}, {3}}, BinaryAttrs{BinaryKind::Mul}, 1, {DType::f32, DType::f16});
    test::expect_error([&] { n.infer(); }, StatusCode::invalid_argument, {"Binary 'n'", "float16", "float32"});
    auto g = one_node(OpKind::Gemm, {{2, 3}, {3, 4}}, GemmAttrs{}, 1, {DType::f32, DType::i32});
    test::expect_error([&] { g.infer(); }, StatusCode::invalid_argument, {"Gemm 'n'", "int32"});
}

TEST(ShapeInferenceGemm, Transposes) {
    EXPECT_EQ(infer_one(OpKind::Gemm, {{3, 5}, {5, 7}}, GemmAttrs{}), (Shape{3, 7}));
    EXPECT_EQ(infer_one(OpKind::Gemm, {{5, 3}, {7, 5}, {7}}, GemmAttrs{1, 1, true, true}), (Shape{3, 7}));
    EXPECT_EQ(infer_one(OpKind::Gemm, {{-1, 5}, {7, 5}, {1, 7}}, GemmAttrs{1, 1, false, true}), (Shape{-1, 7}));
    expect_infer_error(OpKind::Gemm, {{3, 5}, {7, 5}}, GemmAttrs{}, {"Gemm 'n'", "[3,5]", "[7,5]"});
    expect_infer_error(OpKind::Gemm, {{3, 5}, {5, 7}, {3, 2}}, GemmAttrs{}, {"Gemm 'n'", "[3,2]", "[3,7]"});
}

TEST(ShapeInferenceMatMul, VectorsBatchesAndBroadcast) {
    EXPECT_EQ(infer_one(OpKind::MatMul, {{3}, {3}}, NoAttrs{}), (Shape{}));
    EXPECT_EQ(infer_one(OpKind::MatMul, {{3}, {3, 4}}, NoAttrs{}), (Shape{4}));
    EXPECT_EQ(infer_one(OpKind::MatMul, {{2, 3}, {3}}, NoAttrs{}), (Shape{2}));
    EXPECT_EQ(infer_one(OpKind::MatMul, {{2, 1, 3, 4}, {5, 4, 6}}, NoAttrs{}), (Shape{2, 5, 3, 6}));
    EXPECT_EQ(infer_one(OpKind::MatMul, {{-1, 7, 4}, {4, 6}}, NoAttrs{}), (Shape{-1, 7, 6}));
    expect_infer_error(OpKind::MatMul, {{3, 4}, {5}}, NoAttrs{}, {"MatMul 'n'", "[3,4]", "[5]"});
    expect_infer_error(OpKind::MatMul, {{2, 3, 4}, {3, 4, 5}}, NoAttrs{}, {"MatMul 'n'", "[2,3,4]", "[3,4,5]"});
}

TEST(ShapeInferenceFullyConnected, WeightIsOutByIn) {
    EXPECT_EQ(infer_one(OpKind::FullyConnected, {{-1, 9}, {5, 9}, {5}}, FullyConnectedAttrs{}), (Shape{-1, 5}));
    expect_infer_error(OpKind::FullyConnected, {{2, 9}, {5, 8}}, FullyConnectedAttrs{},
                       {"FullyConnected 'n'", "[2,9]", "[5,8]"});
}

TEST(ShapeInferenceSoftmax, AxisChecked) {
    EXPECT_EQ(infer_one(OpKind::Softmax, {{2, 3, 5}}, SoftmaxAttrs{-3, false}), (Shape{2, 3, 5}));
    EXPECT_EQ(infer_one(OpKind::LogSoftmax, {{-1, 7}}, SoftmaxAttrs{}), (Shape{-1, 7}));
    expect_infer_error(OpKind::Softmax, {{2, 3}}, SoftmaxAttrs{2, false}, {"Softmax 'n'", "axis 2"});
}

TEST(ShapeInferenceReduce, AxesKeepdimsNoop) {
    ReduceAttrs a;
    a.axes = {-1, 1};
    a.keepdims = false;
    EXPECT_EQ(infer_one(OpKind::Reduce, {{2, 3, 5, 7}}, a), (Shape{2, 5}));
    a.keepdims = true;
    EXPECT_EQ(infer_one(OpKind::Reduce, {{-1, 3, 5, 7}}, a), (Shape{-1, 1, 5, 1}));
    ReduceAttrs all;
    EXPECT_EQ(infer_one(OpKind::Reduce, {{2, 3, 5}}, all), (Shape{1, 1, 1}));
    all.keepdims = false;
    EXPECT_EQ(infer_one(OpKind::Reduce, {{2, 3, 5}}, all), (Shape{}));
    all.noop_with_empty_axes = true;
    EXPECT_EQ(infer_one(OpKind::Reduce, {{2, 3, 5}}, all), (Shape{2, 3, 5}));
    a.axes = {4};
    expect_infer_error(OpKind::Reduce, {{2, 3, 5, 7}}, a, {"Reduce 'n'", "4"});
}

TEST(ShapeInferenceElementwise, UnaryIdentityDropoutCast) {
    EXPECT_EQ(infer_one(OpKind::Unary, {{-1, 3, 5}}, UnaryAttrs{UnaryKind::HardSwish}), (Shape{-1, 3, 5}));
    EXPECT_EQ(infer_one(OpKind::Identity, {{4, 1}}, NoAttrs{}), (Shape{4, 1}));
    EXPECT_EQ(infer_one(OpKind::Dropout, {{3}}, NoAttrs{}), (Shape{3}));
    auto n = one_node(OpKind::Cast, {{2, 7}}, CastAttrs{DType::f16});
    n.infer();
    EXPECT_EQ(n.out().dtype, DType::f16);
    EXPECT_EQ(n.shape(), (Shape{2, 7}));
}

TEST(ShapeInference, ChainWithDynamicBatchThenFixedBatch) {
    Builder b("g");
    ValueId x = b.input("x", DType::f32, {-1, 3, 15, 15});
    Tensor w = strata::test::random_tensor(DType::f32, {8, 3, 3, 3}, strata::test::test_seed());
    ValueId y = b.conv(x, w, std::nullopt, conv2d_attrs(3, 2, 1));
    y = b.max_pool(b.relu(y), pool2d_attrs(2, 2, 0, true));
    y = b.flatten(b.global_avg_pool(y));
    b.output(y);
    auto g = b.finish();
    infer_shapes(*g);
    EXPECT_EQ(g->value(g->outputs()[0]).shape, (Shape{-1, 8}));
    g->value(x).shape[0] = 3;
    infer_shapes(*g);
    EXPECT_EQ(g->value(g->outputs()[0]).shape, (Shape{3, 8}));
}

TEST(ShapeInference, InputWithoutShapeIsAnError) {
    Graph g;
    g.name = "g";
    ValueId x = g.add_value("x", DType::f32, {}, false);
    g.inputs().push_back(x);
    test::expect_error([&] { infer_shapes(g); }, StatusCode::invalid_argument, {"'x'", "no shape"});
}

}  // namespace
}  // namespace strata::ir
