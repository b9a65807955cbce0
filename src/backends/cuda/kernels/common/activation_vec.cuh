// activation_vec.cuh: an activation applied to a small array with the kind decided once. apply_activation switches
// on the kind per value; in an epilogue that stores 8-16 values per output row, that dispatch costs more than a 3x3
// depthwise window's arithmetic. Each case calls apply_activation with a constant kind, so the formulas stay the
// ones the reference matches.
#pragma once

#include "backends/cuda/kernels/common/activation.cuh"

namespace strata::cuda {

template <int N>
__device__ __forceinline__ void apply_activation_each(const ActivationParams& a, float (&v)[N]) {
    using K = ir::UnaryKind;
    auto each = [&](K kind) {
        const ActivationParams fixed{static_cast<int>(kind), a.alpha, a.beta};
#pragma unroll
        for (int i = 0; i < N; ++i) v[i] = apply_activation(fixed, v[i]);
    };
    if (a.kind < 0) return;
    switch (static_cast<K>(a.kind)) {
        case K::Relu:
            each(K::Relu);
            return;
        case K::Relu6:
            each(K::Relu6);
            return;
        case K::SiLU:
            each(K::SiLU);
            return;
        case K::HardSwish:
            each(K::HardSwish);
            return;
        case K::Sigmoid:
            each(K::Sigmoid);
            return;
        case K::Clip:
            each(K::Clip);
            return;
        default:
            break;
    }
#pragma unroll
    for (int i = 0; i < N; ++i) v[i] = apply_activation(a, v[i]);
}

}  // namespace strata::cuda
