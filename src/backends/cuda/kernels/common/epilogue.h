// epilogue.h: what a convolution or GEMM kernel applies to its float accumulator before the store:
//     y = act(acc + bias[k] + residual)
// bias is float32 per output channel (folded BatchNorm lands here); residual has the output's dtype and layout.
// Plain structs: they are passed by value to kernels.
#pragma once

#include <cstdint>
#include <optional>

#include "ir/attrs.h"

namespace strata::cuda {

/// An ir::UnaryKind applied in a kernel. kind < 0 = none.
struct ActivationParams {
    int kind = -1;
    float alpha = 0.0f;
    float beta = 0.0f;
};

struct EpilogueParams {
    const float* bias = nullptr;     ///< [K] or null
    const void* residual = nullptr;  ///< same dtype/layout/shape as the output, or null
    ActivationParams act;
};

inline ActivationParams activation_params(const std::optional<ir::UnaryAttrs>& a) {
    if (!a) return {};
    return {static_cast<int>(a->kind), a->alpha, a->beta};
}

}  // namespace strata::cuda
