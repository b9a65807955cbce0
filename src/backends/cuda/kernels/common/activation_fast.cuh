// activation_fast.cuh: a fused activation on N values held by one lane, the kind decided once for all N, with
// fast-intrinsic forms of the exponential ones, for store-bound kernels where per-element libm calls would make
// the kernel issue-bound.
#pragma once

#include "backends/cuda/kernels/common/activation_vec.cuh"

namespace strata::cuda {

// SiLU, Sigmoid and HardSwish use the fast intrinsics (__expf, __fdividef, a multiply by 1/6): ~4-5 instructions
// per value instead of ~20 for expf plus an IEEE division (or ~10 for HardSwish's x / 6), which would make
// EfficientNet's and MobileNetV3's expand layers issue-bound (NOTE [pointwise narrow tiles] in
// conv/narrow_gemm.cuh). They differ from the reference's formulas by a few fp32 ulps, far below the rounding of
// the fp16/bf16 store. For x below about -88, 1 + __expf(-x) is +inf and __fdividef returns 0: the limit.
template <int N>
__device__ __forceinline__ void fast_activation(const ActivationParams& a, float (&v)[N]) {
    using K = ir::UnaryKind;
    if (a.kind == static_cast<int>(K::SiLU)) {
#pragma unroll
        for (int i = 0; i < N; ++i) v[i] = __fdividef(v[i], 1.0f + __expf(-v[i]));
    } else if (a.kind == static_cast<int>(K::Sigmoid)) {
#pragma unroll
        for (int i = 0; i < N; ++i) v[i] = __fdividef(1.0f, 1.0f + __expf(-v[i]));
    } else if (a.kind == static_cast<int>(K::HardSwish)) {
#pragma unroll
        for (int i = 0; i < N; ++i) v[i] *= fminf(fmaxf(fmaf(v[i], 1.0f / 6.0f, 0.5f), 0.0f), 1.0f);
    } else {
        apply_activation_each<N>(a, v);
    }
}

}  // namespace strata::cuda
