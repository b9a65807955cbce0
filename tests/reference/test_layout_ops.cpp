// test_layout_ops.cpp: the byte-moving ops: Transpose, Concat, Split, Slice (negative steps, clamping), Pad
// (constant, reflect, edge, negative pads), Tile, Expand and Gather (negative indices), each against indices
// computed in the test, on f32 and on other dtypes (they must not care what the bytes mean).
#include <gtest/gtest.h>

#include <limits>

#include "core/half.h"
#include "reference_test_util.h"

namespace strata::test {
namespace {

TEST(ReferenceTranspose, PermutationAndDefaultReverse) {
    Tensor x = rand_f32({2, 3, 4}, 1);
    Tensor y = run_reference_op1(ir::OpKind::Transpose, ir::TransposeAttrs{{2, 0, 1}}, {x}, {DType::f32, {4, 2, 3}});
    for (int a = 0; a < 4; ++a)
        for (int b = 0; b < 2; ++b)
            for (int c = 0; c < 3; ++c)
                EXPECT_EQ(y.data<float>()[(a * 2 + b) * 3 + c], x.data<float>()[(b * 3 + c) * 4 + a]);
    Tensor h = random_tensor(DType::f16, {3, 5}, test_seed(), -2, 2);
    Tensor r = run_reference_op1(ir::OpKind::Transpose, ir::TransposeAttrs{}, {h}, {DType::f16, {5, 3}});
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 5; ++j) EXPECT_EQ(r.data<uint16_t>()[j * 3 + i], h.data<uint16_t>()[i * 5 + j]);
}

TEST(ReferenceTranspose, RepeatedPermEntryIsAnError) {
    Tensor x = rand_f32({2, 3}, 1);
    EXPECT_THROW(run_reference_op1(ir::OpKind::Transpose, ir::TransposeAttrs{{0, 0}}, {x}, {DType::f32, {2, 2}}),
                 Error);
}

TEST(ReferenceConcatSplit, ConcatMiddleAxisInt64) {
    Tensor a = i64({2, 1, 2}, {1, 2, 3, 4}), b = i64({2, 2, 2}, {5, 6, 7, 8, 9, 10, 11, 12});
    Tensor y = run_reference_op1(ir::OpKind::Concat, ir::AxisAttrs{-2}, {a, b}, {DType::i64, {2, 3, 2}});
    EXPECT_EQ(values<int64_t>(y), (std::vector<int64_t>{1, 2, 5, 6, 7, 8, 3, 4, 9, 10, 11, 12}));
}

TEST(ReferenceConcatSplit, SplitUnevenIsConcatInverse) {
    Tensor x = rand_f32({3, 7}, 1);
    auto parts = run_reference_op(ir::OpKind::Split, ir::SplitAttrs{1, std::vector<int64_t>{2, 4, 1}}, {x},
                                  {{DType::f32, {3, 2}}, {DType::f32, {3, 4}}, {DType::f32, {3, 1}}});
    for (int i = 0; i < 3; ++i) {
        EXPECT_EQ(parts[0].data<float>()[i * 2 + 1], x.data<float>()[i * 7 + 1]);
        EXPECT_EQ(parts[1].data<float>()[i * 4 + 3], x.data<float>()[i * 7 + 5]);
        EXPECT_EQ(parts[2].data<float>()[i], x.data<float>()[i * 7 + 6]);
    }
    Tensor back =
        run_reference_op1(ir::OpKind::Concat, ir::AxisAttrs{1}, {parts[0], parts[1], parts[2]}, {DType::f32, {3, 7}});
    EXPECT_EQ(values<float>(back), values<float>(x));
}

ir::SliceAttrs slice(std::vector<int64_t> starts, std::vector<int64_t> ends, std::vector<int64_t> axes = {},
                     std::vector<int64_t> steps = {}) {
    return ir::SliceAttrs{std::move(starts), std::move(ends), std::move(axes), std::move(steps)};
}

TEST(ReferenceSlice, NegativeStepFromTheEnd) {
    Tensor x = i64({10}, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9});
    int64_t lowest = std::numeric_limits<int64_t>::min();
    Tensor y = run_reference_op1(ir::OpKind::Slice, slice({-1}, {lowest}, {}, {-3}), {x}, {DType::i64, {4}});
    EXPECT_EQ(values<int64_t>(y), (std::vector<int64_t>{9, 6, 3, 0}));
    Tensor z = run_reference_op1(ir::OpKind::Slice, slice({7}, {2}, {}, {-2}), {x}, {DType::i64, {3}});
    EXPECT_EQ(values<int64_t>(z), (std::vector<int64_t>{7, 5, 3}));
}

TEST(ReferenceSlice, ClampedEndsOnChosenAxis) {
    Tensor x = rand_f32({3, 5, 4}, 1);
    Tensor y = run_reference_op1(ir::OpKind::Slice, slice({1, -100}, {1000, 3}, {1, -1}, {2, 1}), {x},
                                 {DType::f32, {3, 2, 3}});
    for (int a = 0; a < 3; ++a)
        for (int b = 0; b < 2; ++b)
            for (int c = 0; c < 3; ++c)
                EXPECT_EQ(y.data<float>()[(a * 2 + b) * 3 + c], x.data<float>()[(a * 5 + 1 + 2 * b) * 4 + c]);
    Tensor empty = run_reference_op1(ir::OpKind::Slice, slice({3}, {1}, {1}), {x}, {DType::f32, {3, 0, 4}});
    EXPECT_EQ(empty.numel(), 0);
}

TEST(ReferenceSlice, ZeroStepIsAnError) {
    Tensor x = rand_f32({4}, 1);
    EXPECT_THROW(run_reference_op1(ir::OpKind::Slice, slice({0}, {4}, {}, {0}), {x}, {DType::f32, {4}}), Error);
}

ir::PadAttrs pad(ir::PadMode mode, std::vector<int64_t> pads, float value = 0) {
    return ir::PadAttrs{mode, std::move(pads), value};
}

TEST(ReferencePad, OneDimensionalModes) {
    Tensor x = f32({3}, {1, 2, 3});
    auto run = [&](ir::PadAttrs a, int64_t n) {
        return values<float>(run_reference_op1(ir::OpKind::Pad, a, {x}, {DType::f32, {n}}));
    };
    EXPECT_EQ(run(pad(ir::PadMode::constant, {2, 1}, 9.5f), 6), (std::vector<float>{9.5f, 9.5f, 1, 2, 3, 9.5f}));
    EXPECT_EQ(run(pad(ir::PadMode::reflect, {2, 2}), 7), (std::vector<float>{3, 2, 1, 2, 3, 2, 1}));
    EXPECT_EQ(run(pad(ir::PadMode::edge, {2, 3}), 8), (std::vector<float>{1, 1, 1, 2, 3, 3, 3, 3}));
    EXPECT_EQ(run(pad(ir::PadMode::constant, {-1, 2}, -4), 4), (std::vector<float>{2, 3, -4, -4}));
    EXPECT_EQ(run(pad(ir::PadMode::reflect, {-2, 1}), 2), (std::vector<float>{3, 2}));
}

TEST(ReferencePad, TwoDimensionalReflect) {
    Tensor x = rand_f32({1, 3, 4}, 1);
    // pads: begins (0, 1, 2), ends (0, 2, 1) -> [1, 6, 7]
    Tensor y =
        run_reference_op1(ir::OpKind::Pad, pad(ir::PadMode::reflect, {0, 1, 2, 0, 2, 1}), {x}, {DType::f32, {1, 6, 7}});
    auto refl = [](int64_t i, int64_t n) { return i < 0 ? -i : (i >= n ? 2 * (n - 1) - i : i); };
    for (int64_t r = 0; r < 6; ++r)
        for (int64_t c = 0; c < 7; ++c)
            EXPECT_EQ(y.data<float>()[r * 7 + c], x.data<float>()[refl(r - 1, 3) * 4 + refl(c - 2, 4)])
                << r << "," << c;
}

TEST(ReferencePad, Int64ConstantValue) {
    Tensor x = i64({2}, {5, -6});
    Tensor y = run_reference_op1(ir::OpKind::Pad, pad(ir::PadMode::constant, {1, 1}, 3), {x}, {DType::i64, {4}});
    EXPECT_EQ(values<int64_t>(y), (std::vector<int64_t>{3, 5, -6, 3}));
}

TEST(ReferenceTileExpand, TileRepeatsEachDim) {
    Tensor x = rand_f32({2, 3}, 1);
    Tensor y =
        run_reference_op1(ir::OpKind::Tile, ir::TileAttrs{std::vector<int64_t>{2, 3}}, {x}, {DType::f32, {4, 9}});
    for (int i = 0; i < 4; ++i)
        for (int j = 0; j < 9; ++j) EXPECT_EQ(y.data<float>()[i * 9 + j], x.data<float>()[(i % 2) * 3 + j % 3]);
}

TEST(ReferenceTileExpand, ExpandBroadcastsAndAddsDims) {
    Tensor x = rand_f32({3, 1}, 1);
    Tensor y = run_reference_op1(ir::OpKind::Expand, ir::ExpandAttrs{std::vector<int64_t>{2, 1, 4}}, {x},
                                 {DType::f32, {2, 3, 4}});
    for (int a = 0; a < 2; ++a)
        for (int b = 0; b < 3; ++b)
            for (int c = 0; c < 4; ++c) EXPECT_EQ(y.data<float>()[(a * 3 + b) * 4 + c], x.data<float>()[b]);
}

TEST(ReferenceGather, NegativeIndicesOnMiddleAxis) {
    Tensor x = rand_f32({2, 5, 3}, 1);
    Tensor idx = i32({2, 2}, {-1, 0, 2, -5});
    Tensor y = run_reference_op1(ir::OpKind::Gather, ir::AxisAttrs{1}, {x, idx}, {DType::f32, {2, 2, 2, 3}});
    int src[4] = {4, 0, 2, 0};
    for (int a = 0; a < 2; ++a)
        for (int q = 0; q < 4; ++q)
            for (int c = 0; c < 3; ++c)
                EXPECT_EQ(y.data<float>()[(a * 4 + q) * 3 + c], x.data<float>()[(a * 5 + src[q]) * 3 + c]);
}

TEST(ReferenceGather, ScalarIndexOfShapeVector) {
    Tensor shape = i64({4}, {1, 3, 224, 224});
    Tensor y = run_reference_op1(ir::OpKind::Gather, ir::AxisAttrs{0}, {shape, i64({}, {0})}, {DType::i64, {}});
    EXPECT_EQ(values<int64_t>(y), (std::vector<int64_t>{1}));
}

TEST(ReferenceGather, OutOfRangeIndexIsAnError) {
    Tensor x = rand_f32({3, 2}, 1);
    try {
        run_reference_op1(ir::OpKind::Gather, ir::AxisAttrs{0}, {x, i64({1}, {3})}, {DType::f32, {1, 2}});
        FAIL() << "expected an error";
    } catch (const Error& e) {
        EXPECT_EQ(e.code(), StatusCode::invalid_argument);
        EXPECT_NE(std::string(e.what()).find("index 3"), std::string::npos) << e.what();
    }
}

}  // namespace
}  // namespace strata::test
