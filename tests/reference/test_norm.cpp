// test_norm.cpp: BatchNorm (inference form) and InstanceNorm against their formulas, plus InstanceNorm's defining
// property: with unit scale and zero bias every plane comes out with mean 0 and variance var/(var+eps).
#include <gtest/gtest.h>

#include <cmath>

#include "reference_test_util.h"

namespace strata::test {
namespace {

TEST(ReferenceNorm, BatchNormPerChannelAffine) {
    int64_t n = 2, c = 3, h = 5, w = 7, plane = h * w;
    Tensor x = rand_f32({n, c, h, w}, 1, -3, 3), scale = rand_f32({c}, 2), bias = rand_f32({c}, 3);
    Tensor mean = rand_f32({c}, 4), var = rand_f32({c}, 5, 0.1, 2.0);
    Tensor y = run_reference_op1(ir::OpKind::BatchNorm, ir::BatchNormAttrs{1e-3f}, {x, scale, bias, mean, var},
                                 {DType::f32, {n, c, h, w}});
    Tensor want = Tensor::empty(DType::f32, {n, c, h, w});
    for (int64_t i = 0; i < x.numel(); ++i) {
        int64_t ch = (i / plane) % c;
        double xhat = (x.data<float>()[i] - double(mean.data<float>()[ch])) /
                      std::sqrt(double(var.data<float>()[ch]) + double(1e-3f));
        want.data<float>()[i] = static_cast<float>(xhat * scale.data<float>()[ch] + bias.data<float>()[ch]);
    }
    expect_near_f32(y, want);
}

TEST(ReferenceNorm, BatchNormWrongParameterCountIsAnError) {
    Tensor x = rand_f32({1, 3, 2, 2}, 1), p = rand_f32({2}, 2);
    EXPECT_THROW(
        run_reference_op1(ir::OpKind::BatchNorm, ir::BatchNormAttrs{}, {x, p, p, p, p}, {DType::f32, {1, 3, 2, 2}}),
        Error);
}

TEST(ReferenceNorm, InstanceNormNormalisesEachPlane) {
    int64_t n = 2, c = 3, plane = 5 * 3;
    float eps = 1e-5f;
    Tensor x = rand_f32({n, c, 5, 3}, 1, 2, 5);
    Tensor ones = f32({c}, {1, 1, 1}), zeros = f32({c}, {0, 0, 0});
    Tensor y = run_reference_op1(ir::OpKind::InstanceNorm, ir::BatchNormAttrs{eps}, {x, ones, zeros},
                                 {DType::f32, {n, c, 5, 3}});
    for (int64_t p = 0; p < n * c; ++p) {
        double xm = 0, xv = 0, ym = 0, yv = 0;
        for (int64_t i = 0; i < plane; ++i) xm += x.data<float>()[p * plane + i] / double(plane);
        for (int64_t i = 0; i < plane; ++i) xv += std::pow(x.data<float>()[p * plane + i] - xm, 2) / double(plane);
        for (int64_t i = 0; i < plane; ++i) ym += y.data<float>()[p * plane + i] / double(plane);
        for (int64_t i = 0; i < plane; ++i) yv += std::pow(y.data<float>()[p * plane + i] - ym, 2) / double(plane);
        EXPECT_NEAR(ym, 0.0, 1e-6) << "seed " << test_seed();
        EXPECT_NEAR(yv, xv / (xv + eps), 1e-5) << "seed " << test_seed();
    }
}

TEST(ReferenceNorm, InstanceNormScaleAndBias) {
    int64_t c = 2, plane = 9;
    Tensor x = rand_f32({1, c, 9}, 1), scale = rand_f32({c}, 2), bias = rand_f32({c}, 3);
    Tensor y = run_reference_op1(ir::OpKind::InstanceNorm, ir::BatchNormAttrs{1e-5f}, {x, scale, bias},
                                 {DType::f32, {1, c, 9}});
    Tensor want = Tensor::empty(DType::f32, {1, c, 9});
    for (int64_t ch = 0; ch < c; ++ch) {
        const float* p = x.data<float>() + ch * plane;
        double mean = 0, var = 0;
        for (int64_t i = 0; i < plane; ++i) mean += p[i];
        mean /= plane;
        for (int64_t i = 0; i < plane; ++i) var += (p[i] - mean) * (p[i] - mean);
        var /= plane;
        for (int64_t i = 0; i < plane; ++i)
            want.data<float>()[ch * plane + i] = static_cast<float>(
                scale.data<float>()[ch] * (p[i] - mean) / std::sqrt(var + double(1e-5f)) + bias.data<float>()[ch]);
    }
    expect_near_f32(y, want, 1e-5);
}

}  // namespace
}  // namespace strata::test
