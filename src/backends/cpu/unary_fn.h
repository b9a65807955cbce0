// unary_fn.h: the CPU backend's elementwise functions as inlinable lambdas, chosen once per call (not per element)
// so that loops over them vectorise. Used by the Unary kernel and by every fused epilogue (Conv, FullyConnected).
// The definitions follow the ONNX operator spec, as the reference kernels do (attrs.h documents alpha/beta).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <optional>

#include "core/check.h"
#include "backends/cpu/simd.h"
#include "ir/attrs.h"

namespace strata::backends::cpu {

/// Calls body(f) with f: float -> float computing `u`. The switch runs once; body's loops inline f. The
/// piecewise-linear kinds are generic lambdas that also take a Vec4 (simd.h), so map loops run them four at a time.
template <class Body> void with_unary_fn(const ir::UnaryAttrs& u, Body&& body) {
    using K = ir::UnaryKind;
    const float a = u.alpha, b = u.beta;
    switch (u.kind) {
        case K::Relu: return body([](auto x) { return vmax(x, splat<decltype(x)>(0.0f)); });
        case K::Relu6:
            return body([](auto x) { return vmin(vmax(x, splat<decltype(x)>(0.0f)), splat<decltype(x)>(6.0f)); });
        case K::Clip:
            return body([a, b](auto x) { return vmin(vmax(x, splat<decltype(x)>(a)), splat<decltype(x)>(b)); });
        case K::LeakyRelu: return body([a](auto x) { return vselect_nonneg(x, x, x * a); });
        case K::Elu: return body([a](float x) { return x > 0.0f ? x : a * (std::exp(x) - 1.0f); });
        case K::Selu: return body([a, b](float x) { return b * (x > 0.0f ? x : a * (std::exp(x) - 1.0f)); });
        case K::Sigmoid: return body([](float x) { return 1.0f / (1.0f + std::exp(-x)); });
        case K::HardSigmoid:
            return body([a, b](auto x) {
                using T = decltype(x);
                return vmax(splat<T>(0.0f), vmin(splat<T>(1.0f), x * a + b));
            });
        case K::HardSwish:
            return body([](auto x) {
                using T = decltype(x);
                return x * vmax(splat<T>(0.0f), vmin(splat<T>(1.0f), x / 6.0f + 0.5f));
            });
        case K::SiLU: return body([](float x) { return x / (1.0f + std::exp(-x)); });
        case K::Tanh: return body([](float x) { return std::tanh(x); });
        case K::Softplus: return body([](float x) { return x > 20.0f ? x : std::log1p(std::exp(x)); });
        case K::Softsign: return body([](float x) { return x / (1.0f + std::fabs(x)); });
        case K::Exp: return body([](float x) { return std::exp(x); });
        case K::Log: return body([](float x) { return std::log(x); });
        case K::Sqrt: return body([](float x) { return std::sqrt(x); });
        case K::Neg: return body([](auto x) { return -x; });
        case K::Abs: return body([](auto x) { return vmax(x, -x); });
        case K::Reciprocal: return body([](float x) { return 1.0f / x; });
    }
    STRATA_ASSERT(false, "unary kind {} has no CPU definition", static_cast<int>(u.kind));
}

/// Calls body(f) with f computing the optional fused activation, or the identity when there is none.
template <class Body> void with_activation_fn(const std::optional<ir::UnaryAttrs>& act, Body&& body) {
    if (!act) return body([](auto x) { return x; });
    with_unary_fn(*act, body);
}

/// The epilogue of a GEMM-shaped kernel: rows of `cols` values at stride `ld`, row r gets bias[r] (if any) added and
/// then the activation applied, in one pass over the block while it is still in cache.
inline void bias_activation_rows(float* out, int64_t rows, int64_t cols, int64_t ld, const float* bias,
                                 const std::optional<ir::UnaryAttrs>& act) {
    if (!bias && !act) return;
    with_activation_fn(act, [&](auto f) {
        for (int64_t r = 0; r < rows; ++r) map_inplace(out + r * ld, cols, bias ? bias[r] : 0.0f, f);
    });
}

}  // namespace strata::backends::cpu
