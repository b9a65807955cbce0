// elementwise_kernel.cu: the Unary and Binary kernels (elementwise.h). Same-shape work runs as a flat loop of
// 16-byte vectors with a scalar tail; broadcasting work decomposes the output index over at most 8 merged dims.
#include <cstdint>

#include "backends/cuda/kernels/common/activation.cuh"
#include "backends/cuda/kernels/common/dtype.cuh"
#include "backends/cuda/kernels/elementwise/elementwise.h"

namespace strata::cuda {
namespace {

template <class T>
struct alignas(16) Vec16 {
    static constexpr int kCount = 16 / sizeof(T);
    T v[kCount];
};

__device__ __forceinline__ bool aligned16(const void* p) {
    return (reinterpret_cast<uintptr_t>(p) & 15) == 0;
}

__device__ __forceinline__ float unary_value(const ActivationParams& a, float x) {
    return isnan(x) ? x : apply_activation(a, x);  // NaN passes every function, as in the reference
}

template <class T>
__global__ void unary_kernel(ActivationParams act, const T* x, T* y, int64_t n) {
    using V = Vec16<T>;
    const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
    const int64_t first = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
    const int64_t vectors = aligned16(x) && aligned16(y) ? n / V::kCount : 0;
    for (int64_t i = first; i < vectors; i += step) {
        V v = reinterpret_cast<const V*>(x)[i];
#pragma unroll
        for (int k = 0; k < V::kCount; ++k) v.v[k] = from_float<T>(unary_value(act, to_float(v.v[k])));
        reinterpret_cast<V*>(y)[i] = v;
    }
    for (int64_t i = vectors * V::kCount + first; i < n; i += step)
        y[i] = from_float<T>(unary_value(act, to_float(x[i])));
}

__device__ __forceinline__ float binary_value(int kind, float a, float b) {
    using K = ir::BinaryKind;
    switch (static_cast<K>(kind)) {
        case K::Add:
            return a + b;
        case K::Sub:
            return a - b;
        case K::Mul:
            return a * b;
        case K::Div:
            return a / b;
        case K::Pow:
            return powf(a, b);
        case K::Max:
            return isnan(a) || isnan(b) ? __int_as_float(0x7fc00000) : fmaxf(a, b);
        case K::Min:
            return isnan(a) || isnan(b) ? __int_as_float(0x7fc00000) : fminf(a, b);
        case K::PRelu:
            return a < 0.0f ? a * b : a;
    }
    return a;
}

template <class T>
__global__ void binary_flat_kernel(int kind, const T* a, const T* b, T* c, int64_t n) {
    using V = Vec16<T>;
    const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
    const int64_t first = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
    const int64_t vectors = aligned16(a) && aligned16(b) && aligned16(c) ? n / V::kCount : 0;
    for (int64_t i = first; i < vectors; i += step) {
        V va = reinterpret_cast<const V*>(a)[i];
        V vb = reinterpret_cast<const V*>(b)[i];
#pragma unroll
        for (int k = 0; k < V::kCount; ++k)
            va.v[k] = from_float<T>(binary_value(kind, to_float(va.v[k]), to_float(vb.v[k])));
        reinterpret_cast<V*>(c)[i] = va;
    }
    for (int64_t i = vectors * V::kCount + first; i < n; i += step)
        c[i] = from_float<T>(binary_value(kind, to_float(a[i]), to_float(b[i])));
}

template <class T>
__global__ void binary_strided_kernel(BinaryParams p, const T* a, const T* b, T* c) {
    for (uint32_t idx = blockIdx.x * blockDim.x + threadIdx.x; idx < p.total; idx += gridDim.x * blockDim.x) {
        uint32_t rest = idx;
        int64_t ia = 0, ib = 0;
        for (int d = p.rank - 1; d >= 0; --d) {
            uint32_t o = rest % p.size[d];
            rest /= p.size[d];
            ia += static_cast<int64_t>(o) * p.a_stride[d];
            ib += static_cast<int64_t>(o) * p.b_stride[d];
        }
        c[idx] = from_float<T>(binary_value(p.kind, to_float(a[ia]), to_float(b[ib])));
    }
}

// A vector of the next elements (walks) or of one element repeated.
template <class T>
__device__ __forceinline__ Vec16<T> load_or_splat(const T* p, int64_t at, bool walks) {
    if (walks) return *reinterpret_cast<const Vec16<T>*>(p + at);
    Vec16<T> v;
    const T x = p[at];
#pragma unroll
    for (int k = 0; k < Vec16<T>::kCount; ++k) v.v[k] = x;
    return v;
}

// The broadcasting loop in 16-byte vectors along the innermost dim, where each operand either walks it (stride 1)
// or repeats one value (stride 0): a per-channel scale or bias in nhwc, a squeeze-excite scale in nchw.
template <class T>
__global__ void binary_strided_vec_kernel(BinaryParams p, const T* a, const T* b, T* c) {
    using V = Vec16<T>;
    const int last = p.rank - 1;
    const uint32_t row_vectors = p.size[last] / V::kCount, vectors = p.total / V::kCount;
    for (uint32_t v = blockIdx.x * blockDim.x + threadIdx.x; v < vectors; v += gridDim.x * blockDim.x) {
        uint32_t rest = v / row_vectors;
        const int64_t o = static_cast<int64_t>(v - rest * row_vectors) * V::kCount;
        int64_t ia = o * p.a_stride[last], ib = o * p.b_stride[last];
        for (int d = last - 1; d >= 0; --d) {
            uint32_t od = rest % p.size[d];
            rest /= p.size[d];
            ia += static_cast<int64_t>(od) * p.a_stride[d];
            ib += static_cast<int64_t>(od) * p.b_stride[d];
        }
        const V va = load_or_splat(a, ia, p.a_stride[last] == 1);
        const V vb = load_or_splat(b, ib, p.b_stride[last] == 1);
        V vc;
#pragma unroll
        for (int k = 0; k < V::kCount; ++k)
            vc.v[k] = from_float<T>(binary_value(p.kind, to_float(va.v[k]), to_float(vb.v[k])));
        reinterpret_cast<V*>(c)[v] = vc;
    }
}

// True when binary_strided_vec_kernel applies: whole vectors per innermost row, unit or zero innermost strides,
// outer strides in whole vectors and 16-byte aligned pointers.
bool vectorizable(const BinaryParams& p, int count, const void* a, const void* b, const void* c) {
    if (p.rank < 1 || p.size[p.rank - 1] % count != 0) return false;
    for (const int64_t* s : {p.a_stride, p.b_stride}) {
        if (s[p.rank - 1] != 0 && s[p.rank - 1] != 1) return false;
        for (int d = 0; d + 1 < p.rank; ++d)
            if (s[d] % count != 0) return false;
    }
    for (const void* ptr : {a, b, c})
        if (reinterpret_cast<uintptr_t>(ptr) % 16 != 0) return false;
    return true;
}

}  // namespace

void launch_unary(DType dtype, const ActivationParams& act, const void* x, void* y, int64_t n, int blocks,
                  cudaStream_t stream) {
    if (n == 0) return;
    dispatch_float(dtype, [&](auto zero) {
        using T = decltype(zero);
        unary_kernel<T>
            <<<blocks, kElementwiseThreads, 0, stream>>>(act, static_cast<const T*>(x), static_cast<T*>(y), n);
    });
}

void launch_binary(DType dtype, const BinaryParams& p, const void* a, const void* b, void* c, int blocks,
                   cudaStream_t stream) {
    if (p.total == 0) return;
    const bool flat = p.rank == 1 && p.a_stride[0] == 1 && p.b_stride[0] == 1;
    dispatch_float(dtype, [&](auto zero) {
        using T = decltype(zero);
        const T *pa = static_cast<const T*>(a), *pb = static_cast<const T*>(b);
        T* pc = static_cast<T*>(c);
        if (flat)
            binary_flat_kernel<T><<<blocks, kElementwiseThreads, 0, stream>>>(p.kind, pa, pb, pc, p.total);
        else if (vectorizable(p, Vec16<T>::kCount, a, b, c))
            binary_strided_vec_kernel<T><<<blocks, kElementwiseThreads, 0, stream>>>(p, pa, pb, pc);
        else
            binary_strided_kernel<T><<<blocks, kElementwiseThreads, 0, stream>>>(p, pa, pb, pc);
    });
}

}  // namespace strata::cuda
