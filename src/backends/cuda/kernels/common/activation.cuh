// activation.cuh: ir::UnaryKind evaluated on a float, on the device (fused epilogues and the unary kernel). The
// formulas match the reference backend's (backends/reference/unary.h).
#pragma once

#include <cuda_runtime.h>

#include "backends/cuda/kernels/common/epilogue.h"

namespace strata::cuda {

__device__ __forceinline__ float apply_activation(const ActivationParams& a, float x) {
    using K = ir::UnaryKind;
    switch (static_cast<K>(a.kind)) {
        case K::Relu: return fmaxf(x, 0.0f);
        case K::Relu6: return fminf(fmaxf(x, 0.0f), 6.0f);
        case K::Clip: return fminf(fmaxf(x, a.alpha), a.beta);
        case K::LeakyRelu: return x >= 0.0f ? x : a.alpha * x;
        case K::Elu: return x >= 0.0f ? x : a.alpha * (expf(x) - 1.0f);
        case K::Selu: return a.beta * (x > 0.0f ? x : a.alpha * (expf(x) - 1.0f));
        case K::Sigmoid: return 1.0f / (1.0f + expf(-x));
        case K::HardSigmoid: return fminf(fmaxf(a.alpha * x + a.beta, 0.0f), 1.0f);
        case K::HardSwish: return x * fminf(fmaxf(x / 6.0f + 0.5f, 0.0f), 1.0f);
        case K::SiLU: return x / (1.0f + expf(-x));
        case K::Tanh: return tanhf(x);
        case K::Softplus: return x > 20.0f ? x : log1pf(expf(x));
        case K::Softsign: return x / (1.0f + fabsf(x));
        case K::Exp: return expf(x);
        case K::Log: return logf(x);
        case K::Sqrt: return sqrtf(x);
        case K::Neg: return -x;
        case K::Abs: return fabsf(x);
        case K::Reciprocal: return 1.0f / x;
    }
    return x;  // kind < 0: no activation
}

}  // namespace strata::cuda
