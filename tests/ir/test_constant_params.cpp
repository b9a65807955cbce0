// test_constant_params.cpp: ir::absorb_constant_params (NOTE [constant parameters]): constant parameter inputs
// move into attrs and leave the node, computed ones stay, and wrong parameter types are clear errors.
#include <cstring>

#include "ir/graph.h"
#include "test_support.h"

namespace strata::ir {
namespace {

Tensor ints(std::vector<int64_t> v, DType dtype = DType::i64) {
    Tensor t = Tensor::empty(dtype, {static_cast<int64_t>(v.size())});
    for (size_t i = 0; i < v.size(); ++i) {
        if (dtype == DType::i64)
            t.data<int64_t>()[i] = v[i];
        else
            t.data<int32_t>()[i] = static_cast<int32_t>(v[i]);
    }
    return t;
}

Tensor scalar(float v) {
    Tensor t = Tensor::empty(DType::f32, {});
    t.data<float>()[0] = v;
    return t;
}

struct Fixture {
    Graph g;
    ValueId x = g.add_value("x", DType::f32, {2, 3, 4});
    ValueId computed = g.add_value("computed", DType::i64, {2});
    Node& add(OpKind op, std::vector<ValueId> inputs, Attrs attrs) {
        ValueId y = g.add_value(g.unique_name("y"), DType::f32, {}, false);
        return g.nodes()[g.add_node(op, "n", std::move(inputs), {y}, std::move(attrs))];
    }
    ValueId c(Tensor t) { return g.add_constant(g.unique_name("c"), std::move(t)); }
};

TEST(AbsorbConstantParams, ReshapeShape) {
    Fixture f;
    Node& n = f.add(OpKind::Reshape, {f.x, f.c(ints({0, -1}))}, ReshapeAttrs{});
    EXPECT_TRUE(absorb_constant_params(f.g, n));
    EXPECT_EQ(n.inputs, std::vector<ValueId>{f.x});
    EXPECT_EQ(n.attr<ReshapeAttrs>().shape, (std::vector<int64_t>{0, -1}));
    EXPECT_FALSE(absorb_constant_params(f.g, n));
}

TEST(AbsorbConstantParams, ComputedParameterStays) {
    Fixture f;
    Node& n = f.add(OpKind::Reshape, {f.x, f.computed}, ReshapeAttrs{});
    EXPECT_FALSE(absorb_constant_params(f.g, n));
    EXPECT_EQ(n.inputs.size(), 2u);
    EXPECT_FALSE(n.attr<ReshapeAttrs>().shape.has_value());
}

TEST(AbsorbConstantParams, SliceAbsorbsConstantsAndKeepsComputedPositions) {
    Fixture f;
    Node& n =
        f.add(OpKind::Slice, {f.x, f.c(ints({1}, DType::i32)), f.computed, f.c(ints({2})), kNoValue}, SliceAttrs{});
    EXPECT_TRUE(absorb_constant_params(f.g, n));
    const auto& a = n.attr<SliceAttrs>();
    EXPECT_EQ(a.starts, (std::vector<int64_t>{1}));
    EXPECT_FALSE(a.ends.has_value());
    EXPECT_EQ(a.axes, (std::vector<int64_t>{2}));
    EXPECT_TRUE(a.steps.empty());
    EXPECT_EQ(n.inputs, (std::vector<ValueId>{f.x, kNoValue, f.computed}));
}

TEST(AbsorbConstantParams, PadPadsAndValue) {
    Fixture f;
    Node& n = f.add(OpKind::Pad, {f.x, f.c(ints({0, 1, 2, 0, 1, 2})), f.c(scalar(-1.5f))}, PadAttrs{});
    EXPECT_TRUE(absorb_constant_params(f.g, n));
    EXPECT_EQ(n.attr<PadAttrs>().pads, (std::vector<int64_t>{0, 1, 2, 0, 1, 2}));
    EXPECT_EQ(n.attr<PadAttrs>().value, -1.5f);
    EXPECT_EQ(n.inputs.size(), 1u);
}

TEST(AbsorbConstantParams, SplitSqueezeUnsqueezeTileExpandReduce) {
    Fixture f;
    Node& split = f.add(OpKind::Split, {f.x, f.c(ints({1, 2}))}, SplitAttrs{});
    EXPECT_TRUE(absorb_constant_params(f.g, split));
    EXPECT_EQ(split.attr<SplitAttrs>().split, (std::vector<int64_t>{1, 2}));
    for (OpKind op : {OpKind::Squeeze, OpKind::Unsqueeze}) {
        Node& n = f.add(op, {f.x, f.c(ints({-1}))}, AxesAttrs{});
        EXPECT_TRUE(absorb_constant_params(f.g, n));
        EXPECT_EQ(n.attr<AxesAttrs>().axes, (std::vector<int64_t>{-1}));
        EXPECT_EQ(n.inputs.size(), 1u);
    }
    Node& tile = f.add(OpKind::Tile, {f.x, f.c(ints({1, 2, 3}))}, TileAttrs{});
    EXPECT_TRUE(absorb_constant_params(f.g, tile));
    EXPECT_EQ(tile.attr<TileAttrs>().repeats, (std::vector<int64_t>{1, 2, 3}));
    Node& expand = f.add(OpKind::Expand, {f.x, f.c(ints({5, 2, 3, 4}))}, ExpandAttrs{});
    EXPECT_TRUE(absorb_constant_params(f.g, expand));
    EXPECT_EQ(expand.attr<ExpandAttrs>().shape, (std::vector<int64_t>{5, 2, 3, 4}));
    Node& reduce = f.add(OpKind::Reduce, {f.x, f.c(ints({0, 2}))}, ReduceAttrs{});
    EXPECT_TRUE(absorb_constant_params(f.g, reduce));
    EXPECT_EQ(reduce.attr<ReduceAttrs>().axes, (std::vector<int64_t>{0, 2}));
}

TEST(AbsorbConstantParams, ConstantOfShapeLosesItsOnlyInput) {
    Fixture f;
    Node& n = f.add(OpKind::ConstantOfShape, {f.c(ints({3, 1}))}, ConstantOfShapeAttrs{});
    EXPECT_TRUE(absorb_constant_params(f.g, n));
    EXPECT_TRUE(n.inputs.empty());
    EXPECT_EQ(n.attr<ConstantOfShapeAttrs>().shape, (std::vector<int64_t>{3, 1}));
}

TEST(AbsorbConstantParams, ClipBoundsButNotOtherUnaries) {
    Fixture f;
    UnaryAttrs clip{UnaryKind::Clip, -1e30f, 1e30f};
    Node& n = f.add(OpKind::Unary, {f.x, kNoValue, f.c(scalar(6.0f))}, clip);
    EXPECT_TRUE(absorb_constant_params(f.g, n));
    EXPECT_EQ(n.attr<UnaryAttrs>().alpha, -1e30f);
    EXPECT_EQ(n.attr<UnaryAttrs>().beta, 6.0f);
    EXPECT_EQ(n.inputs, std::vector<ValueId>{f.x});
    Node& relu = f.add(OpKind::Unary, {f.x}, UnaryAttrs{UnaryKind::Relu});
    EXPECT_FALSE(absorb_constant_params(f.g, relu));
    Node& add = f.add(OpKind::Binary, {f.x, f.c(scalar(1.0f))}, BinaryAttrs{});
    EXPECT_FALSE(absorb_constant_params(f.g, add));
    EXPECT_EQ(add.inputs.size(), 2u);
}

TEST(AbsorbConstantParams, WrongParameterTypesAreErrors) {
    Fixture f;
    Node& n = f.add(OpKind::Reshape, {f.x, f.c(scalar(2.0f))}, ReshapeAttrs{});
    try {
        absorb_constant_params(f.g, n);
        ADD_FAILURE() << "no error";
    } catch (const Error& e) {
        EXPECT_EQ(e.code(), StatusCode::invalid_argument);
        EXPECT_NE(std::string(e.what()).find("Reshape 'n': input 1 (shape) must be int64, got float32"),
                  std::string::npos)
            << e.what();
    }
    Node& pad = f.add(OpKind::Pad, {f.x, f.c(ints({0, 0, 0, 0, 0, 0})), f.c(ints({1, 2}))}, PadAttrs{});
    EXPECT_THROW(absorb_constant_params(f.g, pad), Error);
}

}  // namespace
}  // namespace strata::ir
