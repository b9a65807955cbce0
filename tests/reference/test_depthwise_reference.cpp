// test_depthwise_reference.cpp: proves the host depthwise reference (tests/support/depthwise_reference.h) that the
// depthwise backward GPU test trusts. The forward against the reference backend's Conv (group == C); then, on random
// problems and data in double, the adjoint identities <conv(x, w), dy> == <x, dgrad(dy, w)> == <w, wgrad(x, dy)>,
// which hold for every x, w, dy only when dgrad and wgrad are the forward's exact transposes. A control shows that
// the identities catch a gradient off by one pad.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>

#include "depthwise_reference.h"
#include "reference_test_util.h"

namespace strata::test {
namespace {

ir::ConvAttrs depthwise_attrs(const DepthwiseProblem& pb) {
    ir::ConvAttrs a;
    a.kernel = {pb.r, pb.s};
    a.strides = {pb.stride_h, pb.stride_w};
    a.dilations = {pb.dil_h, pb.dil_w};
    a.pads_begin = {pb.pad_top, pb.pad_left};
    a.pads_end = {pb.pad_bottom, pb.pad_right};
    a.group = pb.c;
    return a;
}

std::vector<double> random_doubles(size_t count, std::mt19937_64& rng) {
    std::uniform_real_distribution<double> uni(-1.0, 1.0);
    std::vector<double> v(count);
    for (double& e : v) e = uni(rng);
    return v;
}

struct Adjoint {
    Dot forward, dgrad, wgrad;  // <conv(x, w), dy>, <x, dgrad(dy, w)>, <w, wgrad(x, dy)>
};

// The three inner products, with the gradients of `grad_pb` (the forward always uses `pb`).
Adjoint adjoint_products(const DepthwiseProblem& pb, const DepthwiseProblem& grad_pb, std::mt19937_64& rng) {
    const auto x = random_doubles(static_cast<size_t>(shape_numel(pb.x_shape())), rng);
    const auto w = random_doubles(static_cast<size_t>(shape_numel(pb.w_shape())), rng);
    const auto dy = random_doubles(static_cast<size_t>(shape_numel(pb.y_shape())), rng);
    return {dot(depthwise_forward_ref(pb, x, w), dy), dot(x, depthwise_dgrad_ref(grad_pb, dy, w)),
            dot(w, depthwise_wgrad_ref(grad_pb, x, dy))};
}

double scale(const Adjoint& a) {
    return std::max({a.forward.magnitude, a.dgrad.magnitude, a.wgrad.magnitude});
}

TEST(DepthwiseReference, ForwardMatchesReferenceBackendConv) {
    const uint64_t seed = test_seed();
    std::mt19937_64 rng(seed);
    for (int i = 0; i < 24; ++i) {
        const DepthwiseProblem pb = random_depthwise_problem(rng, 13);
        const uint64_t s = seed + 101 * i;
        Tensor x = random_tensor(DType::f32, pb.x_shape(), s + 1);
        Tensor w = random_tensor(DType::f32, pb.w_shape(), s + 2);
        Tensor y = run_reference_op1(ir::OpKind::Conv, depthwise_attrs(pb), {x, w}, {DType::f32, pb.y_shape()});
        const RefError e = compare_to_ref(y, depthwise_forward_ref(pb, tensor_doubles(x), tensor_doubles(w)));
        EXPECT_LE(e.max_rel, 1e-5) << pb.str() << " STRATA_SEED=" << seed << " case " << i;
    }
}

TEST(DepthwiseReference, AdjointIdentitiesHold) {
    const uint64_t seed = test_seed();
    std::mt19937_64 rng(seed);
    int nonzero = 0;  // problems where some window meets X (in the others every product is 0)
    for (int i = 0; i < 60; ++i) {
        const DepthwiseProblem pb = random_depthwise_problem(rng, 15);
        const Adjoint a = adjoint_products(pb, pb, rng);
        // Each product sums at most a few hundred thousand terms in double: rounding stays far below 1e-10 of the
        // sum of |terms|, while a wrong index or tap moves the products by a good fraction of it.
        const double tol = 1e-10 * scale(a);
        nonzero += scale(a) > 0;
        EXPECT_NEAR(a.dgrad.value, a.forward.value, tol) << "dgrad: " << pb.str() << " STRATA_SEED=" << seed;
        EXPECT_NEAR(a.wgrad.value, a.forward.value, tol) << "wgrad: " << pb.str() << " STRATA_SEED=" << seed;
    }
    EXPECT_GE(nonzero, 50) << "STRATA_SEED=" << seed;
}

TEST(DepthwiseReference, AdjointIdentitiesCatchAShiftedPad) {
    const uint64_t seed = test_seed();
    std::mt19937_64 rng(seed);
    int checked = 0;
    for (int i = 0; checked < 10 && i < 1000; ++i) {
        DepthwiseProblem pb = random_depthwise_problem(rng, 15);
        if (pb.pad_right < 1 || pb.s * pb.q() < 2) continue;
        DepthwiseProblem shifted = pb;  // the same output size, every window one column further left
        ++shifted.pad_left, --shifted.pad_right;
        ASSERT_EQ(shifted.q(), pb.q());
        const Adjoint a = adjoint_products(pb, shifted, rng);
        if (a.forward.magnitude == 0) continue;  // every window in the padding: nothing to tell apart
        EXPECT_GT(std::abs(a.dgrad.value - a.forward.value), 1e-8 * scale(a)) << "dgrad: " << pb.str();
        EXPECT_GT(std::abs(a.wgrad.value - a.forward.value), 1e-8 * scale(a)) << "wgrad: " << pb.str();
        ++checked;
    }
    EXPECT_EQ(checked, 10) << "STRATA_SEED=" << seed;
}

// One case by hand: 1x1 kernel, multiplier 2, so dX[n,c] = sum_j W[2c+j] dY[n,2c+j] and dW[k] = sum X[n,k/2] dY[n,k].
TEST(DepthwiseReference, PointwiseCaseByHand) {
    DepthwiseProblem pb;
    pb.n = 2, pb.c = 2, pb.h = 1, pb.w = 2, pb.mult = 2;
    const std::vector<double> x = {1, 2, 3, 4, 5, 6, 7, 8};  // [2,2,1,2]
    const std::vector<double> w = {1, -1, 2, 3};             // [4,1,1,1]
    std::vector<double> dy(16);                              // [2,4,1,2]
    for (size_t i = 0; i < dy.size(); ++i) dy[i] = 0.5 * static_cast<double>(i) - 3;
    const auto dx = depthwise_dgrad_ref(pb, dy, w);
    const auto dw = depthwise_wgrad_ref(pb, x, dy);
    for (int n = 0; n < 2; ++n)
        for (int c = 0; c < 2; ++c)
            for (int j = 0; j < 2; ++j) {
                double want = 0;
                for (int m = 0; m < 2; ++m) want += w[2 * c + m] * dy[((n * 4 + 2 * c + m) * 2) + j];
                EXPECT_DOUBLE_EQ(dx[(n * 2 + c) * 2 + j], want);
            }
    for (int k = 0; k < 4; ++k) {
        double want = 0;
        for (int n = 0; n < 2; ++n)
            for (int j = 0; j < 2; ++j) want += x[(n * 2 + k / 2) * 2 + j] * dy[(n * 4 + k) * 2 + j];
        EXPECT_DOUBLE_EQ(dw[k], want);
    }
}

}  // namespace
}  // namespace strata::test
