// test_depthwise_int8_reference.cpp: the host reference of the int8 depthwise convolution (the oracle of
// tests/gpu/test_depthwise_int8.cpp) on hand-picked values: ties round to even, int8 limits saturate, the scale is
// one fused multiply-add, activations act in output units, padding reads zero. CPU only, so it runs in CI.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <vector>

#include "core/half.h"
#include "depthwise_int8_reference.h"

namespace strata::test {
namespace {

TEST(DepthwiseInt8Reference, RequantizeRoundsTiesToEven) {
    EXPECT_EQ(dw_ref_requantize(0.5f), 0);
    EXPECT_EQ(dw_ref_requantize(1.5f), 2);
    EXPECT_EQ(dw_ref_requantize(2.5f), 2);
    EXPECT_EQ(dw_ref_requantize(3.5f), 4);
    EXPECT_EQ(dw_ref_requantize(-0.5f), 0);
    EXPECT_EQ(dw_ref_requantize(-1.5f), -2);
    EXPECT_EQ(dw_ref_requantize(-2.5f), -2);
    EXPECT_EQ(dw_ref_requantize(126.5f), 126);
    EXPECT_EQ(dw_ref_requantize(-126.5f), -126);
    // Just below and above a half.
    EXPECT_EQ(dw_ref_requantize(std::nextafter(2.5f, 0.0f)), 2);
    EXPECT_EQ(dw_ref_requantize(std::nextafter(2.5f, 3.0f)), 3);
    EXPECT_EQ(dw_ref_requantize(std::nextafter(0.5f, 0.0f)), 0);
    EXPECT_EQ(dw_ref_requantize(std::nextafter(-0.5f, -1.0f)), -1);
}

TEST(DepthwiseInt8Reference, RequantizeSaturatesAtTheInt8Limits) {
    EXPECT_EQ(dw_ref_requantize(127.0f), 127);
    EXPECT_EQ(dw_ref_requantize(127.49f), 127);
    EXPECT_EQ(dw_ref_requantize(127.5f), 127);  // rounds to 128 (even), saturates
    EXPECT_EQ(dw_ref_requantize(128.0f), 127);
    EXPECT_EQ(dw_ref_requantize(1e30f), 127);
    EXPECT_EQ(dw_ref_requantize(-128.0f), -128);
    EXPECT_EQ(dw_ref_requantize(-128.5f), -128);  // rounds to -128 (even)
    EXPECT_EQ(dw_ref_requantize(-129.5f), -128);  // rounds to -130, saturates
    EXPECT_EQ(dw_ref_requantize(-1e30f), -128);
    EXPECT_EQ(dw_ref_requantize(-127.5f), -128);  // rounds to -128 (even)
    EXPECT_EQ(dw_ref_requantize(-126.6f), -127);
}

/// A 1x1 "convolution" on one pixel: acc = x * w, so the value path can be driven directly.
DwInt8RefProblem one_tap(float in_scale, float w_scale, float out_scale) {
    DwInt8RefProblem pr;
    pr.kh = pr.kw = 1;
    pr.in_scale = in_scale;
    pr.w_scale = {w_scale};
    pr.out_scale = {out_scale};
    return pr;
}

TEST(DepthwiseInt8Reference, ValueIsOneFusedMultiplyAdd) {
    // 3 * float(1/3) - 1 is 2^-25 exactly once fused; a separate multiply would round 3 * float(1/3) to 1 first.
    DwInt8RefProblem pr = one_tap(1.0f, 1.0f / 3.0f, 1.0f);
    pr.bias = {-1.0f};
    EXPECT_EQ(dw_ref_value(pr, 3, 0), std::ldexp(1.0f, -25));
    EXPECT_NE(3.0f * (1.0f / 3.0f) - 1.0f, std::ldexp(1.0f, -25));  // (what the unfused form gives)
    // The multiplier is (in_scale * w_scale) / out_scale with each step rounded: 0.1f * 0.3f / 0.7f.
    pr = one_tap(0.1f, 0.3f, 0.7f);
    const float mul = (0.1f * 0.3f) / 0.7f;
    EXPECT_EQ(dw_ref_value(pr, 1000, 0), std::fmaf(1000.0f, mul, 0.0f));
}

TEST(DepthwiseInt8Reference, BiasesAndActivationsActInOutputUnits) {
    // mul = 0.5: acc 5 -> 2.5 -> 2 (tie to even); the int32 bias joins the accumulator before the scale.
    DwInt8RefProblem pr = one_tap(1.0f, 1.0f, 2.0f);
    EXPECT_EQ(dw_ref_requantize(dw_ref_value(pr, 5, 0)), 2);
    EXPECT_EQ(dw_ref_requantize(dw_ref_value(pr, 7, 0)), 4);
    // A float bias is in real units: 3.0 / out_scale 2 = +1.5 in output units.
    pr.bias = {3.0f};
    EXPECT_EQ(dw_ref_value(pr, 5, 0), 4.0f);
    // ReLU6 clamps at 6 / out_scale = 3 output units; ReLU at 0.
    pr.bias.clear();
    pr.act = DwRefAct::relu6;
    EXPECT_EQ(dw_ref_value(pr, 100, 0), 3.0f);
    EXPECT_EQ(dw_ref_value(pr, -100, 0), 0.0f);
    pr.act = DwRefAct::relu;
    EXPECT_EQ(dw_ref_value(pr, 100, 0), 50.0f);
    EXPECT_EQ(dw_ref_value(pr, -100, 0), 0.0f);
    // fp16 output: mul = in_scale * w_scale, the bias as given, ReLU6 at 6.
    pr.fp16_out = true;
    pr.act = DwRefAct::relu6;
    pr.bias = {0.25f};
    EXPECT_EQ(dw_ref_value(pr, 5, 0), 5.25f);
    EXPECT_EQ(dw_ref_value(pr, 7, 0), 6.0f);
}

TEST(DepthwiseInt8Reference, ThreeByThreeSumsSaturateAndPadWithZeros) {
    // One channel, 2x2 input, 3x3 kernel, pad 1: every output sees the 4 input pixels.
    DwInt8RefProblem pr;
    pr.h = pr.w = 2;
    pr.pad_top = pr.pad_left = pr.pad_bottom = pr.pad_right = 1;
    pr.in_scale = 1.0f;
    pr.w_scale = {1.0f};
    pr.out_scale = {1000.0f};  // mul = 1/1000
    ASSERT_EQ(pr.p(), 2);
    ASSERT_EQ(pr.q(), 2);
    const std::vector<int8_t> w(9, 127);
    std::vector<int8_t> x(4, 127);
    EXPECT_EQ(dw_ref_acc(pr, x, w, 0, 0, 0, 0), 4 * 127 * 127);
    // 4 * 16129 / 1000 = 64.516 -> 65.
    EXPECT_EQ(dw_ref_run(pr, x, w), std::vector<uint8_t>(4, 65));
    x.assign(4, -128);
    EXPECT_EQ(dw_ref_acc(pr, x, w, 0, 1, 1, 0), 4 * -128 * 127);
    EXPECT_EQ(dw_ref_run(pr, x, w), std::vector<uint8_t>(4, static_cast<uint8_t>(-65)));
    // out_scale 100: 645.16 saturates to 127; -650.24 to -128.
    pr.out_scale = {100.0f};
    EXPECT_EQ(dw_ref_run(pr, x, w), std::vector<uint8_t>(4, 0x80));
    x.assign(4, 127);
    EXPECT_EQ(dw_ref_run(pr, x, w), std::vector<uint8_t>(4, 127));
    // fp16 output: 4 * 16129 * 0.5 = 32258 exactly (fp16 spacing 16 there rounds it to 32256).
    pr.fp16_out = true;
    pr.w_scale = {0.5f};
    const std::vector<uint8_t> y = dw_ref_run(pr, x, w);
    ASSERT_EQ(y.size(), 8u);
    EXPECT_EQ(fp16_to_float(static_cast<uint16_t>(y[0] | (y[1] << 8))), 32256.0f);
}

TEST(DepthwiseInt8Reference, Int32BiasWrapsLikeTheDevice) {
    DwInt8RefProblem pr = one_tap(1.0f, 1.0f, 1.0f);
    pr.bias_i32 = {INT32_MAX};
    const std::vector<int8_t> x = {1}, w = {1};
    EXPECT_EQ(dw_ref_acc(pr, x, w, 0, 0, 0, 0), INT32_MIN);
}

}  // namespace
}  // namespace strata::test
