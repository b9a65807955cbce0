// depthwise_reference.h: the plain depthwise convolution and its two gradients on the host, in double, written as
// the definitions read (loops over every output and tap). The depthwise backward GPU test trusts them;
// tests/reference/test_depthwise_reference.cpp proves them through the adjoint identities. Tensors are logical
// NCHW, flat: X [N,C,H,W], W [K,1,R,S], Y [N,K,P,Q] with K = C * mult (output channel k reads input channel k / mult).
#pragma once

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "strata/tensor.h"

namespace strata::test {

struct DepthwiseProblem {
    int64_t n = 1, c = 1, h = 1, w = 1, mult = 1, r = 1, s = 1;
    int64_t stride_h = 1, stride_w = 1, dil_h = 1, dil_w = 1;
    int64_t pad_top = 0, pad_left = 0, pad_bottom = 0, pad_right = 0;

    int64_t k() const { return c * mult; }
    int64_t p() const { return (h + pad_top + pad_bottom - ((r - 1) * dil_h + 1)) / stride_h + 1; }
    int64_t q() const { return (w + pad_left + pad_right - ((s - 1) * dil_w + 1)) / stride_w + 1; }
    Shape x_shape() const { return {n, c, h, w}; }
    Shape w_shape() const { return {k(), 1, r, s}; }
    Shape y_shape() const { return {n, k(), p(), q()}; }
    /// "N2 C5 H9 W11 x2 k3x5 s2x1 d1x2 pads[1,0,2,1] -> P5 Q10"
    std::string str() const;
};

/// A random problem: batch 1..5, channels from a list that has odd counts and multiples of 4 and 8 (up to 264),
/// multiplier 1..3, kernel 1..7 (height and width apart), stride 1..3, dilation 1..2, asymmetric pads, H and W up to
/// `max_hw` (odd and even); at least one output pixel.
DepthwiseProblem random_depthwise_problem(std::mt19937_64& rng, int64_t max_hw = 19);

/// Y[n,k,p,q] = sum over r, s of X[n, k/mult, p*sh - pt + r*dh, q*sw - pl + s*dw] * W[k,0,r,s] (outside X: 0).
std::vector<double> depthwise_forward_ref(const DepthwiseProblem& pb, const std::vector<double>& x,
                                          const std::vector<double>& w);
/// dX: every (n, k, p, q, r, s) adds W[k,0,r,s] * dY[n,k,p,q] to the X element that the forward read.
std::vector<double> depthwise_dgrad_ref(const DepthwiseProblem& pb, const std::vector<double>& dy,
                                        const std::vector<double>& w);
/// dW: every (n, k, p, q, r, s) adds X[the element the forward read] * dY[n,k,p,q] to dW[k,0,r,s].
std::vector<double> depthwise_wgrad_ref(const DepthwiseProblem& pb, const std::vector<double>& x,
                                        const std::vector<double>& dy);

/// The values of a float32 tensor, in its logical order.
std::vector<double> tensor_doubles(const Tensor& t);
/// sum a[i] * b[i], and the sum of |a[i] * b[i]| (the scale of its rounding error), in double.
struct Dot {
    double value = 0, magnitude = 0;
};
Dot dot(const std::vector<double>& a, const std::vector<double>& b);

/// max |got - want| / max |want| (infinite where got is NaN or the sizes differ), and how many got are NaN.
struct RefError {
    double max_rel = 0;
    int64_t nan_count = 0;
};
RefError compare_to_ref(const Tensor& got, const std::vector<double>& want);

}  // namespace strata::test
