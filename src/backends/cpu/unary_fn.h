// unary_fn.h: the CPU backend's elementwise functions as inlinable lambdas, chosen once per call (not per element)
// so that loops over them vectorise. Used by the Unary kernel and by every fused epilogue (Conv, FullyConnected).
#pragma once

#include <cstdint>
#include <optional>

#include "backends/cpu/simd.h"
#include "backends/reference/unary.h"
#include "core/check.h"
#include "ir/attrs.h"

namespace strata::backends::cpu {

/// Calls body(f) with f: float -> float computing `u`. The switch runs once; body's loops inline f.
/// The piecewise-linear kinds (the activations CNNs fuse) are generic lambdas that also take a Vec4 (simd.h), so map
/// loops run them four at a time; a vector body cannot call the scalar definition, so they are written here, NaN
/// passing through as in reference::apply_unary, and tests/cpu compares every kind with it. Every other kind calls
/// reference::apply_unary itself: one definition of Selu's constants or Softplus's overflow guard.
template <class Body>
void with_unary_fn(const ir::UnaryAttrs& u, Body&& body) {
    using K = ir::UnaryKind;
    const float a = u.alpha, b = u.beta;
    switch (u.kind) {
        case K::Relu:
            return body([](auto x) { return clamp_below(x, 0.0f); });
        case K::Relu6:
            return body([](auto x) { return clamp_above(clamp_below(x, 0.0f), 6.0f); });
        case K::Clip:
            return body([a, b](auto x) { return clamp_above(clamp_below(x, a), b); });
        case K::LeakyRelu:
            return body([a](auto x) { return select_negative(x, x * a, x); });
        case K::HardSigmoid:
            return body([a, b](auto x) { return clamp_above(clamp_below(x * a + b, 0.0f), 1.0f); });
        case K::HardSwish:
            return body([](auto x) { return x * clamp_above(clamp_below(x * (1.0f / 6.0f) + 0.5f, 0.0f), 1.0f); });
        case K::Neg:
            return body([](auto x) { return -x; });
        case K::Abs:
            return body([](auto x) { return select_negative(x, -x, x); });
        default:
            return body([&u](float x) { return reference::apply_unary(u, x); });
    }
}

/// Calls body(f) with f computing the optional fused activation, or the identity when there is none.
template <class Body>
void with_activation_fn(const std::optional<ir::UnaryAttrs>& act, Body&& body) {
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
