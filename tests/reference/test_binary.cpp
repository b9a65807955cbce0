// test_binary.cpp: Binary with numpy broadcasting ([3,1] with [1,4], rank-extending, scalars), integer arithmetic
// for shape computations (Div of negatives truncates toward zero, division by zero is an error), PRelu's per-channel
// slope, and dtype errors.
#include <gtest/gtest.h>

#include <cmath>

#include "reference_test_util.h"

namespace strata::test {
namespace {

using ir::BinaryKind;

Tensor binary(BinaryKind k, const Tensor& a, const Tensor& b, OutSpec out) {
    return run_reference_op1(ir::OpKind::Binary, ir::BinaryAttrs{k}, {a, b}, std::move(out));
}

TEST(ReferenceBinary, ColumnPlusRowBroadcasts) {
    Tensor a = rand_f32({3, 1}, 1), b = rand_f32({1, 4}, 2);
    Tensor c = binary(BinaryKind::Add, a, b, {DType::f32, {3, 4}});
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 4; ++j)
            EXPECT_FLOAT_EQ(c.data<float>()[i * 4 + j], a.data<float>()[i] + b.data<float>()[j]) << test_seed();
}

TEST(ReferenceBinary, EveryFloatKindWithRankExtendingBroadcast) {
    // A [2,1,5] against B [3,1] -> C [2,3,5]: C[i,j,k] = f(A[i,0,k], B[j,0]).
    Tensor a = rand_f32({2, 1, 5}, 1, 0.5, 2.0), b = rand_f32({3, 1}, 2, -1.5, 1.5);
    struct Case {
        BinaryKind kind;
        double (*f)(double, double);
    };
    Case cases[] = {
        {BinaryKind::Add, [](double x, double y) { return x + y; }},
        {BinaryKind::Sub, [](double x, double y) { return x - y; }},
        {BinaryKind::Mul, [](double x, double y) { return x * y; }},
        {BinaryKind::Div, [](double x, double y) { return x / y; }},
        {BinaryKind::Pow, [](double x, double y) { return std::pow(x, y); }},
        {BinaryKind::Max, [](double x, double y) { return x > y ? x : y; }},
        {BinaryKind::Min, [](double x, double y) { return x < y ? x : y; }},
    };
    for (const Case& cs : cases) {
        Tensor c = binary(cs.kind, a, b, {DType::f32, {2, 3, 5}});
        Tensor want = Tensor::empty(DType::f32, {2, 3, 5});
        for (int i = 0; i < 2; ++i)
            for (int j = 0; j < 3; ++j)
                for (int k = 0; k < 5; ++k)
                    want.data<float>()[(i * 3 + j) * 5 + k] =
                        static_cast<float>(cs.f(a.data<float>()[i * 5 + k], b.data<float>()[j]));
        SCOPED_TRACE(int(cs.kind));
        expect_near_f32(c, want);
    }
}

TEST(ReferenceBinary, ScalarOperand) {
    Tensor a = rand_f32({2, 3}, 1), s = f32({}, {2.5f});
    Tensor c = binary(BinaryKind::Mul, s, a, {DType::f32, {2, 3}});
    for (int i = 0; i < 6; ++i) EXPECT_FLOAT_EQ(c.data<float>()[i], 2.5f * a.data<float>()[i]);
}

TEST(ReferenceBinary, Int64DivTruncatesTowardZero) {
    Tensor a = i64({6}, {-7, 7, -7, 7, -1, 9});
    Tensor b = i64({6}, {2, -2, -2, 2, 3, -4});
    Tensor c = binary(BinaryKind::Div, a, b, {DType::i64, {6}});
    EXPECT_EQ(values<int64_t>(c), (std::vector<int64_t>{-3, -3, 3, 3, 0, -2}));
}

TEST(ReferenceBinary, IntegerShapeArithmetic) {
    Tensor a = i64({3}, {1, 3, 224}), b = i64({1}, {2});
    EXPECT_EQ(values<int64_t>(binary(BinaryKind::Mul, a, b, {DType::i64, {3}})), (std::vector<int64_t>{2, 6, 448}));
    EXPECT_EQ(values<int64_t>(binary(BinaryKind::Sub, a, b, {DType::i64, {3}})), (std::vector<int64_t>{-1, 1, 222}));
    EXPECT_EQ(values<int64_t>(binary(BinaryKind::Pow, a, b, {DType::i64, {3}})), (std::vector<int64_t>{1, 9, 50176}));
    Tensor x = i32({4}, {-5, 8, 0, 3}), y = i32({4}, {4, -8, -1, 3});
    EXPECT_EQ(values<int32_t>(binary(BinaryKind::Max, x, y, {DType::i32, {4}})), (std::vector<int32_t>{4, 8, 0, 3}));
    EXPECT_EQ(values<int32_t>(binary(BinaryKind::Min, x, y, {DType::i32, {4}})), (std::vector<int32_t>{-5, -8, -1, 3}));
    EXPECT_EQ(values<int32_t>(binary(BinaryKind::Add, x, y, {DType::i32, {4}})), (std::vector<int32_t>{-1, 0, -1, 6}));
}

TEST(ReferenceBinary, IntegerDivisionByZeroIsAnError) {
    Tensor a = i64({2}, {4, 5}), b = i64({2}, {1, 0});
    try {
        binary(BinaryKind::Div, a, b, {DType::i64, {2}});
        FAIL() << "expected an error";
    } catch (const Error& e) {
        EXPECT_EQ(e.code(), StatusCode::invalid_argument);
    }
}

TEST(ReferenceBinary, PReluPerChannelSlope) {
    Tensor x = rand_f32({2, 3, 4, 5}, 1), slope = rand_f32({3, 1, 1}, 2);
    Tensor y = binary(BinaryKind::PRelu, x, slope, {DType::f32, {2, 3, 4, 5}});
    for (int64_t i = 0; i < x.numel(); ++i) {
        float v = x.data<float>()[i], s = slope.data<float>()[(i / 20) % 3];
        EXPECT_FLOAT_EQ(y.data<float>()[i], v < 0 ? s * v : v) << test_seed();
    }
}

TEST(ReferenceBinary, MixedDtypesAndBadBroadcastAreErrors) {
    Tensor a = rand_f32({3}, 1), b = i64({3}, {1, 2, 3});
    EXPECT_THROW(binary(BinaryKind::Add, a, b, {DType::f32, {3}}), Error);
    Tensor c = rand_f32({4}, 2);
    EXPECT_THROW(binary(BinaryKind::Add, a, c, {DType::f32, {4}}), Error);
    Tensor u = random_tensor(DType::u8, {3}, test_seed(), 1, 9);
    try {
        binary(BinaryKind::Add, u, u, {DType::u8, {3}});
        FAIL() << "expected an error";
    } catch (const Error& e) {
        EXPECT_EQ(e.code(), StatusCode::unsupported);
    }
}

}  // namespace
}  // namespace strata::test
