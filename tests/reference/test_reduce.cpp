// test_reduce.cpp: Reduce Mean/Sum/Max/Min over chosen axes (negative, non-adjacent), keepdims on and off, all axes,
// noop_with_empty_axes, integer reductions for shape arithmetic, and a repeated axis as an error.
#include <gtest/gtest.h>

#include <algorithm>

#include "reference_test_util.h"

namespace strata::test {
namespace {

using ir::ReduceKind;

ir::ReduceAttrs reduce(ReduceKind k, std::vector<int64_t> axes, bool keepdims = true) {
    ir::ReduceAttrs a;
    a.kind = k;
    a.axes = std::move(axes);
    a.keepdims = keepdims;
    return a;
}

TEST(ReferenceReduce, NonAdjacentAxesEveryKind) {
    // X [3,4,5] reduced over axes 0 and 2 (given as -1): Y[j] over i, k.
    Tensor x = rand_f32({3, 4, 5}, 1);
    for (ReduceKind k : {ReduceKind::Mean, ReduceKind::Sum, ReduceKind::Max, ReduceKind::Min}) {
        for (bool keep : {true, false}) {
            Shape out = keep ? Shape{1, 4, 1} : Shape{4};
            Tensor y = run_reference_op1(ir::OpKind::Reduce, reduce(k, {0, -1}, keep), {x}, {DType::f32, out});
            Tensor want = Tensor::empty(DType::f32, out);
            for (int64_t j = 0; j < 4; ++j) {
                double sum = 0, mx = -1e30, mn = 1e30;
                for (int64_t i = 0; i < 3; ++i)
                    for (int64_t l = 0; l < 5; ++l) {
                        double v = x.data<float>()[(i * 4 + j) * 5 + l];
                        sum += v;
                        mx = std::max(mx, v);
                        mn = std::min(mn, v);
                    }
                double r = k == ReduceKind::Mean  ? sum / 15
                           : k == ReduceKind::Sum ? sum
                           : k == ReduceKind::Max ? mx
                                                  : mn;
                want.data<float>()[j] = static_cast<float>(r);
            }
            SCOPED_TRACE(::testing::Message() << "kind " << int(k) << " keepdims " << keep << " seed " << test_seed());
            expect_near_f32(y, want);
        }
    }
}

TEST(ReferenceReduce, EmptyAxesReduceAllOrNothing) {
    Tensor x = rand_f32({2, 3}, 1);
    Tensor all = run_reference_op1(ir::OpKind::Reduce, reduce(ReduceKind::Sum, {}, false), {x}, {DType::f32, {}});
    double sum = 0;
    for (int i = 0; i < 6; ++i) sum += x.data<float>()[i];
    EXPECT_NEAR(all.data<float>()[0], sum, 1e-6);
    ir::ReduceAttrs noop = reduce(ReduceKind::Sum, {});
    noop.noop_with_empty_axes = true;
    Tensor same = run_reference_op1(ir::OpKind::Reduce, noop, {x}, {DType::f32, {2, 3}});
    EXPECT_EQ(values<float>(same), values<float>(x));
}

TEST(ReferenceReduce, IntegerReductions) {
    Tensor x = i64({2, 3}, {4, -9, 2, 7, 1, -3});
    EXPECT_EQ(values<int64_t>(
                  run_reference_op1(ir::OpKind::Reduce, reduce(ReduceKind::Sum, {1}, false), {x}, {DType::i64, {2}})),
              (std::vector<int64_t>{-3, 5}));
    EXPECT_EQ(
        values<int64_t>(run_reference_op1(ir::OpKind::Reduce, reduce(ReduceKind::Max, {0}), {x}, {DType::i64, {1, 3}})),
        (std::vector<int64_t>{7, 1, 2}));
    Tensor y = i32({4}, {5, -2, 11, 3});
    EXPECT_EQ(values<int32_t>(
                  run_reference_op1(ir::OpKind::Reduce, reduce(ReduceKind::Min, {0}, false), {y}, {DType::i32, {}})),
              (std::vector<int32_t>{-2}));
}

TEST(ReferenceReduce, RepeatedAxisIsAnError) {
    Tensor x = rand_f32({2, 3}, 1);
    EXPECT_THROW(run_reference_op1(ir::OpKind::Reduce, reduce(ReduceKind::Sum, {1, -1}), {x}, {DType::f32, {2, 1}}),
                 Error);
}

}  // namespace
}  // namespace strata::test
