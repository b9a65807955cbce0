// binary_int.cu: Binary on int32 / int64 (the shape arithmetic and integer graphs that remain after folding), with
// the reference backend's integer semantics: Add/Sub/Mul wrap around, Div truncates toward zero (MIN / -1 wraps),
// Pow by squaring. Division by zero cannot raise an error on the device: it yields 0 (the CPU reports an error).
// The output is walked in memory order and the inputs read through broadcast strides (BinaryParams).
#include <cstdint>

#include "backends/cuda/kernels/elementwise/binary_int.h"
#include "ir/attrs.h"

namespace strata::cuda {

namespace {

template <class T>
__device__ T wrap(uint64_t v) {
    return static_cast<T>(v);
}

template <class T>
__device__ T int_pow(T base, T exp) {
    if (exp < 0) return base == 1 ? T(1) : base == -1 ? (exp % 2 ? T(-1) : T(1)) : T(0);
    uint64_t result = 1, b = static_cast<uint64_t>(base);
    for (uint64_t e = static_cast<uint64_t>(exp); e > 0; e >>= 1, b *= b)
        if (e & 1) result *= b;
    return wrap<T>(result);
}

template <class T>
__device__ T apply(int kind, T a, T b) {
    using K = ir::BinaryKind;
    uint64_t x = static_cast<uint64_t>(a), y = static_cast<uint64_t>(b);
    switch (static_cast<K>(kind)) {
        case K::Add: return wrap<T>(x + y);
        case K::Sub: return wrap<T>(x - y);
        case K::Mul: return wrap<T>(x * y);
        case K::Div: return b == 0 ? T(0) : b == -1 ? wrap<T>(0 - x) : static_cast<T>(a / b);
        case K::Pow: return int_pow(a, b);
        case K::Max: return a > b ? a : b;
        case K::Min: return a < b ? a : b;
        case K::PRelu: return a < 0 ? wrap<T>(x * y) : a;
    }
    return a;
}

template <class T>
__global__ void binary_int_kernel(BinaryParams p, const T* a, const T* b, T* c) {
    for (uint32_t i = blockIdx.x * blockDim.x + threadIdx.x; i < p.total; i += gridDim.x * blockDim.x) {
        uint32_t rest = i;
        int64_t ia = 0, ib = 0;
        for (int d = p.rank - 1; d >= 0; --d) {
            uint32_t o = rest % p.size[d];
            rest /= p.size[d];
            ia += o * p.a_stride[d];
            ib += o * p.b_stride[d];
        }
        c[i] = apply<T>(p.kind, a[ia], b[ib]);
    }
}

}  // namespace

void launch_binary_int(DType dtype, const BinaryParams& p, const void* a, const void* b, void* c, int blocks,
                       cudaStream_t stream) {
    if (dtype == DType::i64)
        binary_int_kernel<int64_t><<<blocks, 256, 0, stream>>>(p, static_cast<const int64_t*>(a),
                                                               static_cast<const int64_t*>(b), static_cast<int64_t*>(c));
    else
        binary_int_kernel<int32_t><<<blocks, 256, 0, stream>>>(p, static_cast<const int32_t*>(a),
                                                               static_cast<const int32_t*>(b), static_cast<int32_t*>(c));
}

}  // namespace strata::cuda
