// depthwise_reference.cpp: see depthwise_reference.h.
#include "depthwise_reference.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <iterator>
#include <limits>

namespace strata::test {

std::string DepthwiseProblem::str() const {
    return fmt::format("N{} C{} H{} W{} x{} k{}x{} s{}x{} d{}x{} pads[{},{},{},{}] -> P{} Q{}", n, c, h, w, mult, r, s,
                       stride_h, stride_w, dil_h, dil_w, pad_top, pad_left, pad_bottom, pad_right, p(), q());
}

DepthwiseProblem random_depthwise_problem(std::mt19937_64& rng, int64_t max_hw) {
    auto range = [&](int64_t lo, int64_t hi) { return lo + static_cast<int64_t>(rng() % (hi - lo + 1)); };
    static const int64_t kChannels[] = {1, 2, 3, 5, 7, 8, 12, 16, 24, 32, 40, 64, 96, 136, 264};
    DepthwiseProblem pb;
    pb.n = range(1, 5);
    pb.c = kChannels[rng() % std::size(kChannels)];
    pb.mult = range(1, 3);
    pb.r = range(1, 7);
    pb.s = rng() % 3 ? pb.r : range(1, 7);
    pb.stride_h = range(1, 3);
    pb.stride_w = rng() % 3 ? pb.stride_h : range(1, 3);
    pb.dil_h = range(1, 2);
    pb.dil_w = rng() % 3 ? pb.dil_h : range(1, 2);
    pb.pad_top = range(0, pb.r / 2 + 1), pb.pad_bottom = range(0, pb.r / 2 + 1);
    pb.pad_left = range(0, pb.s / 2 + 1), pb.pad_right = range(0, pb.s / 2 + 1);
    if (pb.c > 64) max_hw = std::min<int64_t>(max_hw, 11);  // keeps the double reference quick
    // At least one dilated window fits the padded input.
    const int64_t ekh = (pb.r - 1) * pb.dil_h + 1, ekw = (pb.s - 1) * pb.dil_w + 1;
    pb.h = std::max(range(1, max_hw), ekh - pb.pad_top - pb.pad_bottom);
    pb.w = std::max(range(1, max_hw), ekw - pb.pad_left - pb.pad_right);
    return pb;
}

namespace {

// Calls f(n, k, c, p, q, ih, iw, r, s) for every output element and tap whose input element lies inside X.
template <class F>
void for_each_tap(const DepthwiseProblem& pb, F&& f) {
    for (int64_t n = 0; n < pb.n; ++n)
        for (int64_t k = 0; k < pb.k(); ++k)
            for (int64_t p = 0; p < pb.p(); ++p)
                for (int64_t q = 0; q < pb.q(); ++q)
                    for (int64_t r = 0; r < pb.r; ++r)
                        for (int64_t s = 0; s < pb.s; ++s) {
                            const int64_t ih = p * pb.stride_h - pb.pad_top + r * pb.dil_h;
                            const int64_t iw = q * pb.stride_w - pb.pad_left + s * pb.dil_w;
                            if (ih < 0 || ih >= pb.h || iw < 0 || iw >= pb.w) continue;
                            f(n, k, k / pb.mult, p, q, ih, iw, r, s);
                        }
}

}  // namespace

std::vector<double> depthwise_forward_ref(const DepthwiseProblem& pb, const std::vector<double>& x,
                                          const std::vector<double>& w) {
    std::vector<double> y(static_cast<size_t>(shape_numel(pb.y_shape())), 0.0);
    for_each_tap(
        pb, [&](int64_t n, int64_t k, int64_t c, int64_t p, int64_t q, int64_t ih, int64_t iw, int64_t r, int64_t s) {
            y[((n * pb.k() + k) * pb.p() + p) * pb.q() + q] +=
                x[((n * pb.c + c) * pb.h + ih) * pb.w + iw] * w[(k * pb.r + r) * pb.s + s];
        });
    return y;
}

std::vector<double> depthwise_dgrad_ref(const DepthwiseProblem& pb, const std::vector<double>& dy,
                                        const std::vector<double>& w) {
    std::vector<double> dx(static_cast<size_t>(shape_numel(pb.x_shape())), 0.0);
    for_each_tap(
        pb, [&](int64_t n, int64_t k, int64_t c, int64_t p, int64_t q, int64_t ih, int64_t iw, int64_t r, int64_t s) {
            dx[((n * pb.c + c) * pb.h + ih) * pb.w + iw] +=
                w[(k * pb.r + r) * pb.s + s] * dy[((n * pb.k() + k) * pb.p() + p) * pb.q() + q];
        });
    return dx;
}

std::vector<double> depthwise_wgrad_ref(const DepthwiseProblem& pb, const std::vector<double>& x,
                                        const std::vector<double>& dy) {
    std::vector<double> dw(static_cast<size_t>(shape_numel(pb.w_shape())), 0.0);
    for_each_tap(
        pb, [&](int64_t n, int64_t k, int64_t c, int64_t p, int64_t q, int64_t ih, int64_t iw, int64_t r, int64_t s) {
            dw[(k * pb.r + r) * pb.s + s] +=
                x[((n * pb.c + c) * pb.h + ih) * pb.w + iw] * dy[((n * pb.k() + k) * pb.p() + p) * pb.q() + q];
        });
    return dw;
}

std::vector<double> tensor_doubles(const Tensor& t) {
    EXPECT_EQ(t.dtype(), DType::f32);
    std::vector<double> v(static_cast<size_t>(t.numel()));
    if (t.dtype() != DType::f32) return v;
    for (int64_t i = 0; i < t.numel(); ++i) v[static_cast<size_t>(i)] = t.data<float>()[i];
    return v;
}

Dot dot(const std::vector<double>& a, const std::vector<double>& b) {
    EXPECT_EQ(a.size(), b.size());
    Dot d;
    for (size_t i = 0; i < a.size() && i < b.size(); ++i) {
        d.value += a[i] * b[i];
        d.magnitude += std::abs(a[i] * b[i]);
    }
    return d;
}

RefError compare_to_ref(const Tensor& got, const std::vector<double>& want) {
    RefError e;
    if (got.dtype() != DType::f32 || static_cast<size_t>(got.numel()) != want.size()) {
        ADD_FAILURE() << "compare_to_ref: got " << dtype_name(got.dtype()) << shape_str(got.shape()) << " against "
                      << want.size() << " values";
        e.max_rel = std::numeric_limits<double>::infinity();
        return e;
    }
    double max_diff = 0, max_want = 0;
    for (size_t i = 0; i < want.size(); ++i) {
        const double g = got.data<float>()[i];
        if (std::isnan(g)) {
            ++e.nan_count;
            continue;
        }
        max_diff = std::max(max_diff, std::abs(g - want[i]));
        max_want = std::max(max_want, std::abs(want[i]));
    }
    e.max_rel =
        e.nan_count > 0 ? std::numeric_limits<double>::infinity() : (max_want > 0 ? max_diff / max_want : max_diff);
    return e;
}

}  // namespace strata::test
