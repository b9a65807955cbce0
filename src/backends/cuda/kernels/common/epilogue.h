// epilogue.h: what a convolution or GEMM kernel applies to its float accumulator before the store:
//     y = act(acc + bias[k] + residual)
// bias is float32 per output channel (folded BatchNorm lands here); residual has the output's dtype and layout.
// Plain structs: they are passed by value to kernels.
#pragma once

#include <cstdint>
#include <optional>

#include "ir/attrs.h"

#ifndef STRATA_HOST_DEVICE
#if defined(__CUDACC__)
#define STRATA_HOST_DEVICE __host__ __device__
#else
#define STRATA_HOST_DEVICE
#endif
#endif

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

/// True when the activation is at most a clamp: none, ReLU or ReLU6. The depthwise kernels' fp16 epilogue then stays
/// in half2 (bias and residual add in half2 too; one extra fp16 rounding of an output that is stored in fp16 anyway),
/// and they pick the kernels compiled for such epilogues (NOTE [depthwise clamp epilogues]).
STRATA_HOST_DEVICE inline bool clamp_activation(const ActivationParams& a) {
    using K = ir::UnaryKind;
    return a.kind < 0 || a.kind == static_cast<int>(K::Relu) || a.kind == static_cast<int>(K::Relu6);
}

}  // namespace strata::cuda
