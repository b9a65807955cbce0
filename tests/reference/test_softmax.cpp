// test_softmax.cpp: Softmax / LogSoftmax: rows sum to 1 and equal exp(x)/sum exp(x) over a middle axis, negative
// axes, the opset<13 coerce_2d form (normalised over all trailing dims), large inputs without overflow.
#include <gtest/gtest.h>

#include <cmath>

#include "reference_test_util.h"

namespace strata::test {
namespace {

// Softmax of x viewed as [outer, n, inner] over n.
Tensor direct_softmax(const Tensor& x, int64_t outer, int64_t n, int64_t inner, bool log) {
    Tensor y = Tensor::empty(DType::f32, x.shape());
    for (int64_t o = 0; o < outer; ++o)
        for (int64_t i = 0; i < inner; ++i) {
            double sum = 0;
            for (int64_t j = 0; j < n; ++j) sum += std::exp(double(x.data<float>()[(o * n + j) * inner + i]));
            for (int64_t j = 0; j < n; ++j) {
                double v = x.data<float>()[(o * n + j) * inner + i];
                y.data<float>()[(o * n + j) * inner + i] =
                    static_cast<float>(log ? v - std::log(sum) : std::exp(v) / sum);
            }
        }
    return y;
}

TEST(ReferenceSoftmax, MiddleAxisMatchesExpOverSum) {
    Tensor x = rand_f32({2, 5, 3}, 1, -3, 3);
    for (int64_t axis : {1, -2}) {
        Tensor y = run_reference_op1(ir::OpKind::Softmax, ir::SoftmaxAttrs{axis, false}, {x}, {DType::f32, {2, 5, 3}});
        expect_near_f32(y, direct_softmax(x, 2, 5, 3, false));
        for (int64_t o = 0; o < 2; ++o)
            for (int64_t i = 0; i < 3; ++i) {
                double s = 0;
                for (int64_t j = 0; j < 5; ++j) s += y.data<float>()[(o * 5 + j) * 3 + i];
                EXPECT_NEAR(s, 1.0, 1e-6);
            }
    }
}

TEST(ReferenceSoftmax, LogSoftmaxLastAxis) {
    Tensor x = rand_f32({3, 7}, 1, -3, 3);
    Tensor y = run_reference_op1(ir::OpKind::LogSoftmax, ir::SoftmaxAttrs{-1, false}, {x}, {DType::f32, {3, 7}});
    expect_near_f32(y, direct_softmax(x, 3, 7, 1, true), 2e-6);
}

TEST(ReferenceSoftmax, Coerce2dNormalisesAllTrailingDims) {
    Tensor x = rand_f32({2, 3, 4}, 1, -3, 3);
    Tensor y = run_reference_op1(ir::OpKind::Softmax, ir::SoftmaxAttrs{1, true}, {x}, {DType::f32, {2, 3, 4}});
    expect_near_f32(y, direct_softmax(x, 2, 12, 1, false));
    Tensor ly = run_reference_op1(ir::OpKind::LogSoftmax, ir::SoftmaxAttrs{1, true}, {x}, {DType::f32, {2, 3, 4}});
    expect_near_f32(ly, direct_softmax(x, 2, 12, 1, true), 2e-6);
}

TEST(ReferenceSoftmax, LargeInputsDoNotOverflow) {
    Tensor x = f32({1, 3}, {1000.0f, 1001.0f, 999.0f});
    Tensor y = run_reference_op1(ir::OpKind::Softmax, ir::SoftmaxAttrs{}, {x}, {DType::f32, {1, 3}});
    double e = std::exp(-1.0), sum = e + 1 + e * e;
    EXPECT_NEAR(y.data<float>()[0], e / sum, 1e-7);
    EXPECT_NEAR(y.data<float>()[1], 1 / sum, 1e-7);
    EXPECT_NEAR(y.data<float>()[2], e * e / sum, 1e-7);
}

TEST(ReferenceSoftmax, AxisOutOfRangeIsAnError) {
    Tensor x = rand_f32({2, 3}, 1);
    EXPECT_THROW(run_reference_op1(ir::OpKind::Softmax, ir::SoftmaxAttrs{2, false}, {x}, {DType::f32, {2, 3}}), Error);
}

}  // namespace
}  // namespace strata::test
