// test_pool.cpp: MaxPool / AveragePool on a known ramp (answers by hand), against a per-tap naive loop on random
// data (strides, dilations, asymmetric pads, ceil_mode, count_include_pad), windows that lie wholly in the padding,
// 1-D pooling, and the global poolings of any rank.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "reference_test_util.h"

namespace strata::test {
namespace {

Tensor ramp(Shape shape) {
    Tensor t = Tensor::empty(DType::f32, shape);
    for (int64_t i = 0; i < t.numel(); ++i) t.data<float>()[i] = static_cast<float>(i);
    return t;
}

ir::PoolAttrs pool(std::vector<int64_t> k, std::vector<int64_t> s, std::vector<int64_t> pb = {},
                   std::vector<int64_t> pe = {}, std::vector<int64_t> d = {}) {
    ir::PoolAttrs a;
    a.kernel = std::move(k);
    a.strides = std::move(s);
    a.pads_begin = std::move(pb);
    a.pads_end = std::move(pe);
    a.dilations = std::move(d);
    return a;
}

TEST(ReferencePool, MaxPoolOfRamp) {
    Tensor y =
        run_reference_op1(ir::OpKind::MaxPool, pool({2, 2}, {2, 2}), {ramp({1, 1, 4, 5})}, {DType::f32, {1, 1, 2, 2}});
    EXPECT_EQ(values<float>(y), (std::vector<float>{6, 8, 16, 18}));
}

TEST(ReferencePool, CeilModeLastWindowIsClipped) {
    // Ceil mode gives a third column whose window covers column 4 and one column past the end.
    ir::PoolAttrs a = pool({2, 2}, {2, 2});
    a.ceil_mode = true;
    Tensor mx = run_reference_op1(ir::OpKind::MaxPool, a, {ramp({1, 1, 4, 5})}, {DType::f32, {1, 1, 2, 3}});
    EXPECT_EQ(values<float>(mx), (std::vector<float>{6, 8, 9, 16, 18, 19}));
    Tensor av = run_reference_op1(ir::OpKind::AveragePool, a, {ramp({1, 1, 4, 5})}, {DType::f32, {1, 1, 2, 3}});
    EXPECT_EQ(values<float>(av), (std::vector<float>{3, 5, 6.5f, 13, 15, 16.5f}));
    // Counting the padding does not count the overhang past the end padding (there is none here).
    a.count_include_pad = true;
    Tensor avp = run_reference_op1(ir::OpKind::AveragePool, a, {ramp({1, 1, 4, 5})}, {DType::f32, {1, 1, 2, 3}});
    EXPECT_EQ(values<float>(avp), (std::vector<float>{3, 5, 6.5f, 13, 15, 16.5f}));
}

TEST(ReferencePool, CeilModeWindowStartingInEndPadding) {
    // W=5, k=2, s=2, pads 1/1, ceil: 4 windows start at -1, 1, 3, 5; the last starts in the end padding.
    ir::PoolAttrs a = pool({2}, {2}, {1}, {1});
    a.ceil_mode = true;
    Tensor x = f32({1, 1, 5}, {3, -1, 4, -1, 5});
    Tensor mx = run_reference_op1(ir::OpKind::MaxPool, a, {x}, {DType::f32, {1, 1, 4}});
    EXPECT_EQ(values<float>(mx), (std::vector<float>{3, 4, 5, -std::numeric_limits<float>::infinity()}));
    Tensor av = run_reference_op1(ir::OpKind::AveragePool, a, {x}, {DType::f32, {1, 1, 4}});
    EXPECT_EQ(values<float>(av), (std::vector<float>{3, 1.5f, 2, 0}));
    a.count_include_pad = true;
    Tensor avp = run_reference_op1(ir::OpKind::AveragePool, a, {x}, {DType::f32, {1, 1, 4}});
    // Windows [-1,0], [1,2], [3,4], [5,6]: the last covers pad position 5 (counted) and 6 (past the padding).
    EXPECT_EQ(values<float>(avp), (std::vector<float>{1.5f, 1.5f, 2, 0}));
}

TEST(ReferencePool, PaddingLargerThanKernel) {
    // k=2, s=1, pad 3 on a length-3 input: windows start at -3..3; those at -3, -2, 3 see only padding.
    ir::PoolAttrs a = pool({2}, {1}, {3}, {3});
    Tensor x = f32({1, 1, 3}, {2, 7, -4});
    Tensor mx = run_reference_op1(ir::OpKind::MaxPool, a, {x}, {DType::f32, {1, 1, 8}});
    float ninf = -std::numeric_limits<float>::infinity();
    EXPECT_EQ(values<float>(mx), (std::vector<float>{ninf, ninf, 2, 7, 7, -4, ninf, ninf}));
    a.count_include_pad = true;
    Tensor av = run_reference_op1(ir::OpKind::AveragePool, a, {x}, {DType::f32, {1, 1, 8}});
    EXPECT_EQ(values<float>(av), (std::vector<float>{0, 0, 1, 4.5f, 1.5f, -2, 0, 0}));
}

// Per-tap naive pooling: every tap checked against the input and padded bounds.
Tensor naive_pool(const Tensor& x, const ir::PoolAttrs& a, bool is_max, Shape out) {
    Tensor y = Tensor::empty(DType::f32, out);
    int64_t h = x.dim(2), w = x.dim(3);
    for (int64_t p = 0; p < out[0] * out[1]; ++p)
        for (int64_t oy = 0; oy < out[2]; ++oy)
            for (int64_t ox = 0; ox < out[3]; ++ox) {
                double best = -INFINITY, sum = 0;
                int64_t inside = 0, padded = 0;
                for (int64_t ky = 0; ky < a.kernel[0]; ++ky)
                    for (int64_t kx = 0; kx < a.kernel[1]; ++kx) {
                        int64_t iy = oy * a.strides[0] - a.pads_begin[0] + ky * a.dilations[0];
                        int64_t ix = ox * a.strides[1] - a.pads_begin[1] + kx * a.dilations[1];
                        bool in_padded = iy >= -a.pads_begin[0] && iy < h + a.pads_end[0] && ix >= -a.pads_begin[1] &&
                                         ix < w + a.pads_end[1];
                        padded += in_padded;
                        if (iy < 0 || iy >= h || ix < 0 || ix >= w) continue;
                        double v = x.data<float>()[(p * h + iy) * w + ix];
                        best = std::max(best, v);
                        sum += v;
                        ++inside;
                    }
                int64_t count = a.count_include_pad ? padded : inside;
                y.data<float>()[(p * out[2] + oy) * out[3] + ox] =
                    static_cast<float>(is_max ? best : (count ? sum / count : 0.0));
            }
    return y;
}

TEST(ReferencePool, RandomStridedDilatedPaddedAgainstNaive) {
    Tensor x = rand_f32({2, 3, 10, 9}, 1);
    ir::PoolAttrs a = pool({3, 2}, {2, 3}, {1, 0}, {2, 1}, {2, 1});
    a.ceil_mode = true;
    // H: (10+3-5)/2+1 = 5 (ceil of 4 -> 5); W: ceil((9+1-2)/3)+1 = 4, whose last window starts at 9, inside the pad.
    Shape out{2, 3, 5, 4};
    for (bool include : {false, true}) {
        a.count_include_pad = include;
        SCOPED_TRACE(include);
        expect_near_f32(run_reference_op1(ir::OpKind::AveragePool, a, {x}, {DType::f32, out}),
                        naive_pool(x, a, false, out));
    }
    expect_near_f32(run_reference_op1(ir::OpKind::MaxPool, a, {x}, {DType::f32, out}), naive_pool(x, a, true, out));
}

TEST(ReferencePool, OneDimensionalDilatedMax) {
    Tensor x = rand_f32({1, 2, 7}, 1);
    Tensor y = run_reference_op1(ir::OpKind::MaxPool, pool({3}, {1}, {}, {}, {2}), {x}, {DType::f32, {1, 2, 3}});
    for (int c = 0; c < 2; ++c)
        for (int i = 0; i < 3; ++i) {
            const float* p = x.data<float>() + c * 7;
            EXPECT_EQ(y.data<float>()[c * 3 + i], std::max({p[i], p[i + 2], p[i + 4]})) << test_seed();
        }
}

TEST(ReferencePool, GlobalPoolsOfAnyRank) {
    for (Shape s : {Shape{2, 3, 7}, Shape{1, 2, 3, 5}, Shape{2, 2, 3, 2, 4}}) {
        Tensor x = rand_f32(s, 1);
        Shape out(s.size(), 1);
        out[0] = s[0];
        out[1] = s[1];
        int64_t inner = x.numel() / (s[0] * s[1]);
        Tensor avg = run_reference_op1(ir::OpKind::GlobalAveragePool, ir::NoAttrs{}, {x}, {DType::f32, out});
        Tensor mx = run_reference_op1(ir::OpKind::GlobalMaxPool, ir::NoAttrs{}, {x}, {DType::f32, out});
        for (int64_t p = 0; p < s[0] * s[1]; ++p) {
            double sum = 0;
            float best = -INFINITY;
            for (int64_t i = 0; i < inner; ++i) {
                sum += x.data<float>()[p * inner + i];
                best = std::max(best, x.data<float>()[p * inner + i]);
            }
            EXPECT_NEAR(avg.data<float>()[p], sum / inner, 1e-6) << test_seed();
            EXPECT_EQ(mx.data<float>()[p], best);
        }
    }
}

}  // namespace
}  // namespace strata::test
