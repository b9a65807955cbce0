// unary.cpp: the elementwise functions of one input, as the ONNX operator spec defines them, and the Unary kernel.
#include "backends/reference/unary.h"

#include <algorithm>
#include <cmath>

#include "backends/reference/common.h"
#include "backends/reference/kernels.h"

namespace strata::backends::reference {

namespace {
double sigmoid(double x) {
    // Written so that exp never overflows: for x < 0, exp(x) is small.
    if (x >= 0) return 1.0 / (1.0 + std::exp(-x));
    double e = std::exp(x);
    return e / (1.0 + e);
}

double hard_sigmoid(double x, double alpha, double beta) {
    return std::max(0.0, std::min(1.0, alpha * x + beta));
}

double softplus(double x) {
    // log(1 + exp(x)) without overflow for large x.
    return x > 0 ? x + std::log1p(std::exp(-x)) : std::log1p(std::exp(x));
}

double unary_value(const ir::UnaryAttrs& a, double x) {
    using K = ir::UnaryKind;
    switch (a.kind) {
        case K::Relu: return x > 0 ? x : 0.0;
        case K::Relu6: return std::min(6.0, std::max(0.0, x));
        case K::Clip: return std::min<double>(a.beta, std::max<double>(a.alpha, x));
        case K::LeakyRelu: return x < 0 ? a.alpha * x : x;
        case K::Elu: return x < 0 ? a.alpha * (std::exp(x) - 1.0) : x;
        case K::Selu: return a.beta * (x <= 0 ? a.alpha * (std::exp(x) - 1.0) : x);
        case K::Sigmoid: return sigmoid(x);
        case K::HardSigmoid: return hard_sigmoid(x, a.alpha, a.beta);
        case K::HardSwish: return x * hard_sigmoid(x, 1.0 / 6.0, 0.5);
        case K::SiLU: return x * sigmoid(x);
        case K::Tanh: return std::tanh(x);
        case K::Softplus: return softplus(x);
        case K::Softsign: return x / (1.0 + std::fabs(x));
        case K::Exp: return std::exp(x);
        case K::Log: return std::log(x);
        case K::Sqrt: return std::sqrt(x);
        case K::Neg: return -x;
        case K::Abs: return std::fabs(x);
        case K::Reciprocal: return 1.0 / x;
    }
    STRATA_ASSERT(false, "unknown UnaryKind {}", static_cast<int>(a.kind));
    return 0.0;
}
}  // namespace

float apply_unary(const ir::UnaryAttrs& attrs, float x) {
    // NaN passes through every function unchanged, including Relu and Clip (std::max would drop it).
    if (std::isnan(x)) return x;
    return static_cast<float>(unary_value(attrs, x));
}

void unary_kernel(const ir::Node& node, Inputs inputs, Outputs outputs, const KernelContext&) {
    require_outputs(node, outputs, 1);
    const Tensor& x = required_input(node, inputs, 0);
    require_dtype(node, x, {DType::f32});
    const auto& attrs = node.attr<ir::UnaryAttrs>();
    STRATA_ASSERT(outputs[0].numel() == x.numel(), "{}: output size differs from the input", ir::node_label(node));
    const float* in = x.data<float>();
    float* out = outputs[0].data<float>();
    for (int64_t i = 0; i < x.numel(); ++i) out[i] = apply_unary(attrs, in[i]);
}

}  // namespace strata::backends::reference
