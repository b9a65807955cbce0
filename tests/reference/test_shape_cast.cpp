// test_shape_cast.cpp: the relabelling ops (Reshape and friends copy bytes; a Dropout mask is refused), Shape with
// start/end, ConstantOfShape, and Cast across dtype pairs (truncation toward zero, wrap-around, saturation, NaN,
// fp16/bf16 rounding, bool).
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "core/half.h"
#include "reference_test_util.h"

namespace strata::test {
namespace {

TEST(ReferenceShapeOps, ReshapeAndFriendsCopyBytes) {
    Tensor x = rand_f32({2, 3, 4}, 1);
    for (ir::OpKind op : {ir::OpKind::Reshape, ir::OpKind::Flatten, ir::OpKind::Squeeze, ir::OpKind::Unsqueeze,
                          ir::OpKind::Identity, ir::OpKind::Dropout}) {
        ir::Attrs attrs = ir::NoAttrs{};
        if (op == ir::OpKind::Reshape) attrs = ir::ReshapeAttrs{std::vector<int64_t>{6, 4}, false};
        if (op == ir::OpKind::Flatten) attrs = ir::FlattenAttrs{1};
        if (op == ir::OpKind::Squeeze || op == ir::OpKind::Unsqueeze) attrs = ir::AxesAttrs{};
        Tensor y = run_reference_op1(op, attrs, {x}, {DType::f32, {6, 4}});
        EXPECT_EQ(values<float>(y), values<float>(x)) << ir::op_name(op);
        EXPECT_NE(y.raw(), x.raw());
    }
}

TEST(ReferenceShapeOps, DropoutMaskIsUnsupported) {
    Tensor x = rand_f32({3}, 1);
    try {
        run_reference_op(ir::OpKind::Dropout, ir::NoAttrs{}, {x}, {{DType::f32, {3}}, {DType::boolean, {3}}});
        FAIL() << "expected an error";
    } catch (const Error& e) {
        EXPECT_EQ(e.code(), StatusCode::unsupported);
    }
}

TEST(ReferenceShapeOps, ShapeWithStartAndEnd) {
    Tensor x = rand_f32({2, 3, 5, 7}, 1);
    EXPECT_EQ(values<int64_t>(run_reference_op1(ir::OpKind::Shape, ir::ShapeAttrs{}, {x}, {DType::i64, {4}})),
              (std::vector<int64_t>{2, 3, 5, 7}));
    EXPECT_EQ(values<int64_t>(run_reference_op1(ir::OpKind::Shape, ir::ShapeAttrs{1, -1}, {x}, {DType::i64, {2}})),
              (std::vector<int64_t>{3, 5}));
    EXPECT_EQ(values<int64_t>(run_reference_op1(ir::OpKind::Shape, ir::ShapeAttrs{-2, 100}, {x}, {DType::i64, {2}})),
              (std::vector<int64_t>{5, 7}));
}

TEST(ReferenceShapeOps, ConstantOfShapeFillsInItsDtype) {
    ir::ConstantOfShapeAttrs a{std::vector<int64_t>{2, 3}, DType::i64, 7.0};
    EXPECT_EQ(values<int64_t>(run_reference_op1(ir::OpKind::ConstantOfShape, a, {}, {DType::i64, {2, 3}})),
              (std::vector<int64_t>(6, 7)));
    a.dtype = DType::f32;
    a.value = -0.5;
    EXPECT_EQ(values<float>(run_reference_op1(ir::OpKind::ConstantOfShape, a, {}, {DType::f32, {2, 3}})),
              (std::vector<float>(6, -0.5f)));
}

Tensor cast(const Tensor& x, DType to) {
    return run_reference_op1(ir::OpKind::Cast, ir::CastAttrs{to}, {x}, {to, x.shape()});
}

TEST(ReferenceCast, FloatToIntegerTruncatesSaturatesAndZeroesNan) {
    float nan = std::numeric_limits<float>::quiet_NaN();
    Tensor x = f32({6}, {-2.7f, 2.7f, -0.5f, 3e10f, -3e10f, nan});
    EXPECT_EQ(values<int32_t>(cast(x, DType::i32)), (std::vector<int32_t>{-2, 2, 0, std::numeric_limits<int32_t>::max(),
                                                                          std::numeric_limits<int32_t>::min(), 0}));
    EXPECT_EQ(values<int64_t>(cast(x, DType::i64)),
              (std::vector<int64_t>{-2, 2, 0, int64_t(3e10f), -int64_t(3e10f), 0}));
    EXPECT_EQ(values<uint8_t>(cast(x, DType::u8)), (std::vector<uint8_t>{0, 2, 0, 255, 0, 0}));
}

TEST(ReferenceCast, IntegerNarrowingWraps) {
    Tensor x = i64({4}, {300, -1, 127, 128});
    EXPECT_EQ(values<int8_t>(cast(x, DType::i8)), (std::vector<int8_t>{44, -1, 127, -128}));
    EXPECT_EQ(values<uint8_t>(cast(x, DType::u8)), (std::vector<uint8_t>{44, 255, 127, 128}));
    Tensor big = i64({1}, {(int64_t{1} << 53) + 1});
    EXPECT_EQ(values<int64_t>(cast(big, DType::i64)), values<int64_t>(big));
}

TEST(ReferenceCast, HalfAndBfloatRoundToNearestEven) {
    // 1 + 2^-11 is halfway between fp16 1 and 1 + 2^-10: ties to even gives 1. 1 + 3*2^-11 rounds up to 1 + 2^-9.
    Tensor x = f32({3}, {1.0f + 0x1p-11f, 1.0f + 3 * 0x1p-11f, -2.5f});
    Tensor h = cast(x, DType::f16);
    EXPECT_EQ(values<uint16_t>(h), (std::vector<uint16_t>{0x3C00, 0x3C02, 0xC100}));
    EXPECT_EQ(values<float>(cast(h, DType::f32)), (std::vector<float>{1.0f, 1.0f + 0x1p-9f, -2.5f}));
    Tensor b = cast(f32({2}, {1.0f + 0x1p-8f, 3.0f}), DType::bf16);
    EXPECT_EQ(values<uint16_t>(b), (std::vector<uint16_t>{0x3F80, 0x4040}));
}

TEST(ReferenceCast, BoolBothWays) {
    Tensor x = f32({4}, {0.0f, -0.25f, 3.0f, 0.0f});
    Tensor b = cast(x, DType::boolean);
    EXPECT_EQ(values<uint8_t>(b), (std::vector<uint8_t>{0, 1, 1, 0}));
    EXPECT_EQ(values<int32_t>(cast(b, DType::i32)), (std::vector<int32_t>{0, 1, 1, 0}));
}

TEST(ReferenceCast, RandomRoundTripThroughInt64IsTruncation) {
    Tensor x = rand_f32({5, 7}, 1, -100, 100);
    Tensor back = cast(cast(x, DType::i64), DType::f32);
    for (int64_t i = 0; i < x.numel(); ++i)
        EXPECT_EQ(back.data<float>()[i], std::trunc(x.data<float>()[i])) << test_seed();
}

}  // namespace
}  // namespace strata::test
