// test_shape_inference_tensor.cpp: shape inference of the ops that rearrange, select and join: Flatten, Reshape,
// Transpose, Concat, Split, Slice, Pad, Squeeze, Unsqueeze, Tile, Expand, Shape, Gather, ConstantOfShape; parameters
// from attrs, from constant inputs, and refused when computed (NOTE [constant parameters]).
#include <gtest/gtest.h>

#include <limits>

#include "shape_test_util.h"

namespace strata::ir {
namespace {

using test::expect_infer_error;
using test::infer_one;
using test::one_node;

constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
constexpr int64_t kMin = std::numeric_limits<int64_t>::min();

TEST(ShapeInferenceFlatten, Axes) {
    EXPECT_EQ(infer_one(OpKind::Flatten, {{2, 3, 5, 7}}, FlattenAttrs{2}), (Shape{6, 35}));
    EXPECT_EQ(infer_one(OpKind::Flatten, {{2, 3, 5}}, FlattenAttrs{0}), (Shape{1, 30}));
    EXPECT_EQ(infer_one(OpKind::Flatten, {{2, 3, 5}}, FlattenAttrs{3}), (Shape{30, 1}));
    EXPECT_EQ(infer_one(OpKind::Flatten, {{2, 3, 5}}, FlattenAttrs{-1}), (Shape{6, 5}));
    EXPECT_EQ(infer_one(OpKind::Flatten, {{-1, 3, 5}}, FlattenAttrs{1}), (Shape{-1, 15}));
    expect_infer_error(OpKind::Flatten, {{2, 3}}, FlattenAttrs{4}, {"Flatten 'n'", "axis 4"});
}

ReshapeAttrs reshape(std::vector<int64_t> shape, bool allowzero = false) { return {std::move(shape), allowzero}; }

TEST(ShapeInferenceReshape, ZeroCopiesAndMinusOneInfers) {
    EXPECT_EQ(infer_one(OpKind::Reshape, {{2, 3, 5, 7}}, reshape({0, -1, 7})), (Shape{2, 15, 7}));
    EXPECT_EQ(infer_one(OpKind::Reshape, {{2, 3, 5}}, reshape({5, -1})), (Shape{5, 6}));
    EXPECT_EQ(infer_one(OpKind::Reshape, {{0, 3}}, reshape({3, 0}, true)), (Shape{3, 0}));
    EXPECT_EQ(infer_one(OpKind::Reshape, {{2, 3}}, reshape({3, 2}, true)), (Shape{3, 2}));
}

TEST(ShapeInferenceReshape, DynamicBatch) {
    // The unknown batch is copied by the 0, so it cancels: -1 is 1280.
    EXPECT_EQ(infer_one(OpKind::Reshape, {{-1, 1280, 1, 1}}, reshape({0, -1})), (Shape{-1, 1280}));
    EXPECT_EQ(infer_one(OpKind::Reshape, {{-1, 4, 6}}, reshape({-1, 3, 8})), (Shape{-1, 3, 8}));
    EXPECT_EQ(infer_one(OpKind::Reshape, {{-1, 4, 6}}, reshape({0, 24})), (Shape{-1, 24}));
}

TEST(ShapeInferenceReshape, Errors) {
    expect_infer_error(OpKind::Reshape, {{2, 3, 5}}, reshape({4, -1}), {"Reshape 'n'", "[2,3,5]", "[4,-1]"});
    expect_infer_error(OpKind::Reshape, {{2, 3, 5}}, reshape({7, 5}), {"Reshape 'n'", "[2,3,5]", "[7,5]"});
    expect_infer_error(OpKind::Reshape, {{2, 3, 5}}, reshape({-1, -1}), {"Reshape 'n'", "more than one -1"});
    expect_infer_error(OpKind::Reshape, {{2, 3}}, ReshapeAttrs{}, {"Reshape 'n'", "shape"});
}

TEST(ShapeInferenceReshape, ShapeFromConstantInput) {
    Builder b("g");
    ValueId x = b.input("x", DType::f32, {4, 9});
    Tensor spec = Tensor::empty(DType::i64, {3});
    spec.data<int64_t>()[0] = 3;
    spec.data<int64_t>()[1] = -1;
    spec.data<int64_t>()[2] = 2;
    ValueId y = b.op(OpKind::Reshape, {x, b.constant("spec", spec)}, ReshapeAttrs{}, "r");
    b.output(y);
    auto g = b.finish();
    infer_shapes(*g);
    EXPECT_EQ(g->value(y).shape, (Shape{3, 6, 2}));
}

TEST(ShapeInferenceReshape, ComputedShapeIsUnsupported) {
    Builder b("g");
    ValueId x = b.input("x", DType::f32, {-1, 9});
    ValueId s = b.op(OpKind::Shape, {x}, ShapeAttrs{}, "s");
    ValueId y = b.op(OpKind::Reshape, {x, s}, ReshapeAttrs{}, "r");
    b.output(y);
    auto g = b.finish();
    test::expect_error([&] { infer_shapes(*g); }, StatusCode::unsupported,
                       {"unsupported: dynamic shape of Reshape 'r'"});
}

TEST(ShapeInferenceTranspose, PermAndReverse) {
    EXPECT_EQ(infer_one(OpKind::Transpose, {{2, 3, 5, 7}}, TransposeAttrs{{0, 2, 3, 1}}), (Shape{2, 5, 7, 3}));
    auto n = one_node(OpKind::Transpose, {{-1, 3, 5}}, TransposeAttrs{});
    n.infer();
    EXPECT_EQ(n.shape(), (Shape{5, 3, -1}));
    EXPECT_EQ(n.node().attr<TransposeAttrs>().perm, (std::vector<int64_t>{2, 1, 0}));
    expect_infer_error(OpKind::Transpose, {{2, 3, 5}}, TransposeAttrs{{0, 2, 2}}, {"Transpose 'n'", "[0,2,2]"});
    expect_infer_error(OpKind::Transpose, {{2, 3, 5}}, TransposeAttrs{{1, 0}}, {"Transpose 'n'", "[1,0]"});
}

TEST(ShapeInferenceConcat, AxisAndMismatch) {
    EXPECT_EQ(infer_one(OpKind::Concat, {{2, 3, 5}, {2, 4, 5}, {2, 1, 5}}, AxisAttrs{1}), (Shape{2, 8, 5}));
    EXPECT_EQ(infer_one(OpKind::Concat, {{-1, 3}, {-1, 4}}, AxisAttrs{-1}), (Shape{-1, 7}));
    EXPECT_EQ(infer_one(OpKind::Concat, {{-1, 3}, {2, 3}}, AxisAttrs{0}), (Shape{-1, 3}));
    expect_infer_error(OpKind::Concat, {{2, 3, 5}, {2, 4, 6}}, AxisAttrs{1}, {"Concat 'n'", "[2,4,6]", "[2,3,5]"});
    expect_infer_error(OpKind::Concat, {{2, 3}, {2, 3}}, AxisAttrs{2}, {"Concat 'n'", "axis 2"});
}

TEST(ShapeInferenceSplit, SizesEqualAndUneven) {
    auto sized = one_node(OpKind::Split, {{2, 9, 3}}, SplitAttrs{1, std::vector<int64_t>{2, 7}}, 2);
    sized.infer();
    EXPECT_EQ(sized.shape(0), (Shape{2, 2, 3}));
    EXPECT_EQ(sized.shape(1), (Shape{2, 7, 3}));
    auto equal = one_node(OpKind::Split, {{-1, 9}}, SplitAttrs{-1, std::nullopt}, 3);
    equal.infer();
    for (size_t i = 0; i < 3; ++i) EXPECT_EQ(equal.shape(i), (Shape{-1, 3}));
    auto uneven = one_node(OpKind::Split, {{7}}, SplitAttrs{0, std::nullopt}, 3);  // opset 18: ceil(7/3) = 3
    uneven.infer();
    EXPECT_EQ(uneven.shape(0), (Shape{3}));
    EXPECT_EQ(uneven.shape(1), (Shape{3}));
    EXPECT_EQ(uneven.shape(2), (Shape{1}));
    auto bad = one_node(OpKind::Split, {{2, 9}}, SplitAttrs{1, std::vector<int64_t>{2, 5}}, 2);
    test::expect_error([&] { bad.infer(); }, StatusCode::invalid_argument, {"Split 'n'", "[2,5]", "[2,9]"});
}

SliceAttrs slice(std::vector<int64_t> starts, std::vector<int64_t> ends, std::vector<int64_t> axes = {},
                 std::vector<int64_t> steps = {}) {
    return {std::move(starts), std::move(ends), std::move(axes), std::move(steps)};
}

TEST(ShapeInferenceSlice, NegativeClampedAndStepped) {
    EXPECT_EQ(infer_one(OpKind::Slice, {{10, 7}}, slice({1, -4}, {kMax, -1})), (Shape{9, 3}));
    EXPECT_EQ(infer_one(OpKind::Slice, {{10, 7}}, slice({-100}, {100}, {-1})), (Shape{10, 7}));
    // Backwards from the last element to the front, every second: 9, 7, 5, 3, 1.
    EXPECT_EQ(infer_one(OpKind::Slice, {{10, 7}}, slice({-1}, {kMin}, {0}, {-2})), (Shape{5, 7}));
    EXPECT_EQ(infer_one(OpKind::Slice, {{10, 7}}, slice({20}, {2}, {1}, {-3})), (Shape{10, 2}));  // 6, 3
    EXPECT_EQ(infer_one(OpKind::Slice, {{10, 7}}, slice({5}, {2}, {0})), (Shape{0, 7}));
    EXPECT_EQ(infer_one(OpKind::Slice, {{-1, 7}}, slice({1}, {kMax}, {1}, {3})), (Shape{-1, 2}));
    EXPECT_EQ(infer_one(OpKind::Slice, {{10, 7}}, slice({kMax}, {kMin}, {0}, {kMin})), (Shape{1, 7}));  // no overflow
}

TEST(ShapeInferenceSlice, FillsAxesAndSteps) {
    auto n = one_node(OpKind::Slice, {{4, 5, 6}}, slice({0, 1}, {2, 3}));
    n.infer();
    EXPECT_EQ(n.shape(), (Shape{2, 2, 6}));
    EXPECT_EQ(n.node().attr<SliceAttrs>().axes, (std::vector<int64_t>{0, 1}));
    EXPECT_EQ(n.node().attr<SliceAttrs>().steps, (std::vector<int64_t>{1, 1}));
    expect_infer_error(OpKind::Slice, {{4, 5}}, slice({0}, {2}, {0}, {0}), {"Slice 'n'", "steps"});
    expect_infer_error(OpKind::Slice, {{4, 5}}, slice({0}, {2}, {2}), {"Slice 'n'", "2"});
    expect_infer_error(OpKind::Slice, {{4, 5}}, slice({0, 1}, {2}), {"Slice 'n'", "[0,1]", "[2]"});
}

TEST(ShapeInferencePad, GrowAndCrop) {
    PadAttrs a;
    a.pads = std::vector<int64_t>{1, 0, -2, 2, 3, -1};
    EXPECT_EQ(infer_one(OpKind::Pad, {{2, 3, 5}}, a), (Shape{5, 6, 2}));
    EXPECT_EQ(infer_one(OpKind::Pad, {{-1, 3, 5}}, a), (Shape{-1, 6, 2}));
    a.pads = std::vector<int64_t>{1, 2};
    expect_infer_error(OpKind::Pad, {{2, 3, 5}}, a, {"Pad 'n'", "[1,2]", "[2,3,5]"});
    a.pads = std::vector<int64_t>{kMax, kMax};  // a corrupt file: refused, not overflowed
    expect_infer_error(OpKind::Pad, {{2}}, a, {"Pad 'n'", "out of range"});
    a.pads = std::vector<int64_t>{-3, 0};
    expect_infer_error(OpKind::Pad, {{2}}, a, {"Pad 'n'", "[-3,0]"});
}

TEST(ShapeInferenceSqueeze, AxesAndAllOnes) {
    EXPECT_EQ(infer_one(OpKind::Squeeze, {{1, 3, 1, 5, 1}}, AxesAttrs{}), (Shape{3, 5}));
    EXPECT_EQ(infer_one(OpKind::Squeeze, {{1, 3, 1, 5, 1}}, AxesAttrs{std::vector<int64_t>{0, -1}}), (Shape{3, 1, 5}));
    EXPECT_EQ(infer_one(OpKind::Squeeze, {{-1, 7, 1, 1}}, AxesAttrs{std::vector<int64_t>{2, 3}}), (Shape{-1, 7}));
    expect_infer_error(OpKind::Squeeze, {{1, 3}}, AxesAttrs{std::vector<int64_t>{1}}, {"Squeeze 'n'", "[1,3]"});
}

TEST(ShapeInferenceUnsqueeze, AxesInOutputRank) {
    EXPECT_EQ(infer_one(OpKind::Unsqueeze, {{3, 4}}, AxesAttrs{std::vector<int64_t>{0, -1}}), (Shape{1, 3, 4, 1}));
    EXPECT_EQ(infer_one(OpKind::Unsqueeze, {{-1, 4}}, AxesAttrs{std::vector<int64_t>{1}}), (Shape{-1, 1, 4}));
    expect_infer_error(OpKind::Unsqueeze, {{3}}, AxesAttrs{std::vector<int64_t>{0, 0}}, {"Unsqueeze 'n'", "twice"});
    expect_infer_error(OpKind::Unsqueeze, {{3}}, AxesAttrs{std::vector<int64_t>{2}}, {"Unsqueeze 'n'", "2"});
}

TEST(ShapeInferenceTile, Repeats) {
    EXPECT_EQ(infer_one(OpKind::Tile, {{2, 3, 1}}, TileAttrs{std::vector<int64_t>{3, 1, 5}}), (Shape{6, 3, 5}));
    EXPECT_EQ(infer_one(OpKind::Tile, {{-1, 3}}, TileAttrs{std::vector<int64_t>{2, 2}}), (Shape{-1, 6}));
    expect_infer_error(OpKind::Tile, {{2, 3}}, TileAttrs{std::vector<int64_t>{2}}, {"Tile 'n'", "[2]", "[2,3]"});
}

TEST(ShapeInferenceExpand, Bidirectional) {
    EXPECT_EQ(infer_one(OpKind::Expand, {{3, 1}}, ExpandAttrs{std::vector<int64_t>{2, 1, 4}}), (Shape{2, 3, 4}));
    EXPECT_EQ(infer_one(OpKind::Expand, {{5, 3, 4}}, ExpandAttrs{std::vector<int64_t>{3, 1}}), (Shape{5, 3, 4}));
    expect_infer_error(OpKind::Expand, {{3, 2}}, ExpandAttrs{std::vector<int64_t>{4}}, {"Expand 'n'", "[3,2]", "[4]"});
}

TEST(ShapeInferenceShape, StartEndClamped) {
    auto n = one_node(OpKind::Shape, {{-1, 3, 5, 7}}, ShapeAttrs{});
    n.infer();
    EXPECT_EQ(n.out().dtype, DType::i64);
    EXPECT_EQ(n.shape(), (Shape{4}));
    EXPECT_EQ(infer_one(OpKind::Shape, {{2, 3, 5, 7}}, ShapeAttrs{-3, -1}), (Shape{2}));
    EXPECT_EQ(infer_one(OpKind::Shape, {{2, 3, 5, 7}}, ShapeAttrs{1, 100}), (Shape{3}));
    EXPECT_EQ(infer_one(OpKind::Shape, {{2, 3, 5, 7}}, ShapeAttrs{-100, 1}), (Shape{1}));
    EXPECT_EQ(infer_one(OpKind::Shape, {{2, 3, 5, 7}}, ShapeAttrs{3, 1}), (Shape{0}));
}

TEST(ShapeInferenceGather, IndicesReplaceTheAxis) {
    auto n = one_node(OpKind::Gather, {{5, 4, 3}, {2, 6}}, AxisAttrs{1}, 1, {DType::f16, DType::i64});
    n.infer();
    EXPECT_EQ(n.shape(), (Shape{5, 2, 6, 3}));
    EXPECT_EQ(n.out().dtype, DType::f16);
    auto scalar = one_node(OpKind::Gather, {{-1, 4}, {}}, AxisAttrs{-1}, 1, {DType::f32, DType::i32});
    scalar.infer();
    EXPECT_EQ(scalar.shape(), (Shape{-1}));
    auto bad = one_node(OpKind::Gather, {{5, 4}, {2}}, AxisAttrs{2}, 1, {DType::f32, DType::i64});
    test::expect_error([&] { bad.infer(); }, StatusCode::invalid_argument, {"Gather 'n'", "axis 2"});
    auto floats = one_node(OpKind::Gather, {{5, 4}, {2}}, AxisAttrs{0});
    test::expect_error([&] { floats.infer(); }, StatusCode::invalid_argument, {"Gather 'n'", "float32"});
}

TEST(ShapeInferenceGather, ConstantIndicesInRange) {
    Builder b("g");
    ValueId x = b.input("x", DType::f32, {5, 4});
    Tensor idx = Tensor::empty(DType::i64, {2});
    idx.data<int64_t>()[0] = -4;
    idx.data<int64_t>()[1] = 3;
    ValueId ok = b.op(OpKind::Gather, {x, b.constant("idx", idx)}, AxisAttrs{1}, "ok");
    Tensor far = idx.clone();
    far.data<int64_t>()[1] = 4;
    ValueId bad = b.op(OpKind::Gather, {x, b.constant("far", far)}, AxisAttrs{1}, "bad");
    b.output(ok);
    b.output(bad);
    auto g = b.finish();
    infer_node_shapes(*g, g->nodes()[0]);
    EXPECT_EQ(g->value(ok).shape, (Shape{5, 2}));
    test::expect_error([&] { infer_node_shapes(*g, g->nodes()[1]); }, StatusCode::invalid_argument,
                       {"Gather 'bad'", "index 4", "size 4"});
}

TEST(ShapeInferenceParams, ComputedParametersAreUnsupportedConstantOnesRead) {
    Builder b("g");
    ValueId x = b.input("x", DType::f32, {-1, 6, 5});
    ValueId shape = b.op(OpKind::Shape, {x}, ShapeAttrs{1, std::nullopt}, "shape");
    ValueId sliced = b.op(OpKind::Slice, {x, shape, shape}, SliceAttrs{}, "slice");
    Tensor axes = Tensor::empty(DType::i32, {1});
    axes.data<int32_t>()[0] = -1;
    ValueId reduced = b.op(OpKind::Reduce, {x, b.constant("axes", axes)}, ReduceAttrs{}, "reduce");
    b.output(sliced);
    b.output(reduced);
    auto g = b.finish();
    infer_node_shapes(*g, g->nodes()[0]);
    test::expect_error([&] { infer_node_shapes(*g, g->nodes()[1]); }, StatusCode::unsupported,
                       {"unsupported: dynamic starts of Slice 'slice'"});
    infer_node_shapes(*g, g->nodes()[2]);
    EXPECT_EQ(g->value(reduced).shape, (Shape{-1, 6, 1}));
}

TEST(ShapeInferenceConstantOfShape, ShapeAndDtype) {
    Builder b("g");
    ValueId y = b.op(OpKind::ConstantOfShape, {}, ConstantOfShapeAttrs{std::vector<int64_t>{2, 0, 3}, DType::i32, 7},
                     "c");
    b.output(y);
    auto g = b.finish();
    infer_shapes(*g);
    EXPECT_EQ(g->value(y).shape, (Shape{2, 0, 3}));
    EXPECT_EQ(g->value(y).dtype, DType::i32);
}

}  // namespace
}  // namespace strata::ir
