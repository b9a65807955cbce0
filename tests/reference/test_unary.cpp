// test_unary.cpp: every UnaryKind against its ONNX definition written independently here (often in another but
// equivalent form: HardSwish as x*relu6(x+3)/6, SiLU as x/(1+e^-x)), the numerically hard ends (Sigmoid and
// Softplus at +-100), NaN passing through, and the Unary kernel applying the same function elementwise.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <limits>

#include "backends/reference/unary.h"
#include "reference_test_util.h"

namespace strata::test {
namespace {

using backends::reference::apply_unary;
using ir::UnaryKind;

struct UnaryCase {
    UnaryKind kind;
    float alpha, beta;
    std::function<double(double)> f;
    double lo, hi;  // input range
};

std::vector<UnaryCase> cases() {
    const double selu_a = 1.6732632423543772, selu_g = 1.0507009873554805;
    return {
        {UnaryKind::Relu, 0, 0, [](double x) { return std::fmax(x, 0.0); }, -3, 3},
        {UnaryKind::Relu6, 0, 0, [](double x) { return std::fmin(std::fmax(x, 0.0), 6.0); }, -3, 9},
        {UnaryKind::Clip, -0.5f, 0.75f, [](double x) { return x < -0.5 ? -0.5 : (x > 0.75 ? 0.75 : x); }, -2, 2},
        {UnaryKind::LeakyRelu, 0.1f, 0, [](double x) { return x >= 0 ? x : double(0.1f) * x; }, -3, 3},
        {UnaryKind::Elu, 0.7f, 0, [](double x) { return x > 0 ? x : double(0.7f) * std::expm1(x); }, -3, 3},
        {UnaryKind::Selu, float(selu_a), float(selu_g),
         [=](double x) { return double(float(selu_g)) * (x > 0 ? x : double(float(selu_a)) * std::expm1(x)); }, -3, 3},
        {UnaryKind::Sigmoid, 0, 0, [](double x) { return 1 / (1 + std::exp(-x)); }, -8, 8},
        {UnaryKind::HardSigmoid, 0.2f, 0.5f,
         [](double x) { return std::fmax(0.0, std::fmin(1.0, double(0.2f) * x + 0.5)); }, -4, 4},
        {UnaryKind::HardSwish, 0, 0, [](double x) { return x * std::fmin(std::fmax(x + 3, 0.0), 6.0) / 6; }, -5, 5},
        {UnaryKind::SiLU, 0, 0, [](double x) { return x / (1 + std::exp(-x)); }, -6, 6},
        {UnaryKind::Tanh, 0, 0, [](double x) { return std::tanh(x); }, -3, 3},
        {UnaryKind::Softplus, 0, 0, [](double x) { return std::log(1 + std::exp(x)); }, -5, 5},
        {UnaryKind::Softsign, 0, 0, [](double x) { return x / (1 + std::fabs(x)); }, -5, 5},
        {UnaryKind::Exp, 0, 0, [](double x) { return std::exp(x); }, -3, 3},
        {UnaryKind::Log, 0, 0, [](double x) { return std::log(x); }, 0.01, 5},
        {UnaryKind::Sqrt, 0, 0, [](double x) { return std::sqrt(x); }, 0.0, 5},
        {UnaryKind::Neg, 0, 0, [](double x) { return -x; }, -3, 3},
        {UnaryKind::Abs, 0, 0, [](double x) { return std::fabs(x); }, -3, 3},
        {UnaryKind::Reciprocal, 0, 0, [](double x) { return 1 / x; }, 0.1, 4},
    };
}

TEST(ReferenceUnary, EveryKindMatchesItsDefinition) {
    uint64_t salt = 0;
    for (const UnaryCase& c : cases()) {
        SCOPED_TRACE(::testing::Message() << "kind " << int(c.kind) << " seed " << test_seed());
        Tensor x = rand_f32({3, 37}, ++salt, c.lo, c.hi);
        Tensor y =
            run_reference_op1(ir::OpKind::Unary, ir::UnaryAttrs{c.kind, c.alpha, c.beta}, {x}, {DType::f32, {3, 37}});
        Tensor want = Tensor::empty(DType::f32, {3, 37});
        for (int64_t i = 0; i < x.numel(); ++i) want.data<float>()[i] = static_cast<float>(c.f(x.data<float>()[i]));
        expect_near_f32(y, want, 2e-6);
    }
}

TEST(ReferenceUnary, ExtremesDoNotOverflow) {
    ir::UnaryAttrs sigmoid{UnaryKind::Sigmoid}, softplus{UnaryKind::Softplus}, silu{UnaryKind::SiLU};
    EXPECT_EQ(apply_unary(sigmoid, 100.0f), 1.0f);
    EXPECT_NEAR(apply_unary(sigmoid, -100.0f), std::exp(-100.0), 1e-45);
    EXPECT_EQ(apply_unary(softplus, 100.0f), 100.0f);
    EXPECT_EQ(apply_unary(softplus, 1000.0f), 1000.0f);
    EXPECT_GE(apply_unary(softplus, -100.0f), 0.0f);
    EXPECT_EQ(apply_unary(silu, -1000.0f), -0.0f);
}

TEST(ReferenceUnary, NanPassesThroughClampingKinds) {
    float nan = std::numeric_limits<float>::quiet_NaN();
    for (UnaryKind k : {UnaryKind::Relu, UnaryKind::Relu6, UnaryKind::Clip, UnaryKind::HardSigmoid})
        EXPECT_TRUE(std::isnan(apply_unary(ir::UnaryAttrs{k, 0.0f, 1.0f}, nan))) << int(k);
}

TEST(ReferenceUnary, ClipWithOpenEnds) {
    float inf = std::numeric_limits<float>::infinity();
    EXPECT_EQ(apply_unary(ir::UnaryAttrs{UnaryKind::Clip, -inf, 2.5f}, -1e30f), -1e30f);
    EXPECT_EQ(apply_unary(ir::UnaryAttrs{UnaryKind::Clip, -inf, 2.5f}, 7.0f), 2.5f);
    EXPECT_EQ(apply_unary(ir::UnaryAttrs{UnaryKind::Clip, -1.5f, inf}, 1e30f), 1e30f);
}

TEST(ReferenceUnary, IntegerInputIsUnsupported) {
    Tensor x = random_tensor(DType::i64, {4}, test_seed(), -9, 9);
    try {
        run_reference_op1(ir::OpKind::Unary, ir::UnaryAttrs{UnaryKind::Relu}, {x}, {DType::i64, {4}});
        FAIL() << "expected an error";
    } catch (const Error& e) {
        EXPECT_EQ(e.code(), StatusCode::unsupported);
        EXPECT_NE(std::string(e.what()).find("Unary on int64"), std::string::npos) << e.what();
    }
}

}  // namespace
}  // namespace strata::test
