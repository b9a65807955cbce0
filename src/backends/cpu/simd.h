// simd.h: a 4-float vector (GCC/Clang vector extensions: SSE2 on x86-64, NEON on aarch64, no intrinsics) for the
// CPU kernels' elementwise inner loops. Written out rather than left to the auto-vectoriser because GCC's -O2
// (the RelWithDebInfo build) only vectorises loops whose trip count is a known multiple of the vector width.
// Functions come in float and Vec4 overloads so that one generic lambda serves the vector body and the scalar tail.
#pragma once

#include <cstdint>
#include <cstring>
#include <type_traits>

namespace strata::backends::cpu {

using Vec4 = float __attribute__((vector_size(16)));

inline Vec4 load4(const float* p) {
    Vec4 v;
    std::memcpy(&v, p, sizeof(v));  // an unaligned load
    return v;
}
inline void store4(float* p, Vec4 v) {
    std::memcpy(p, &v, sizeof(v));
}

template <class T>
inline T splat(float v) {
    if constexpr (std::is_same_v<T, Vec4>)
        return Vec4{v, v, v, v};
    else
        return v;
}

// Clamps and selects that let NaN in x through (x < lo and x > hi are false for NaN), as the reference does.
template <class T>
inline T clamp_below(T x, float lo) {
    return x < splat<T>(lo) ? splat<T>(lo) : x;
}
template <class T>
inline T clamp_above(T x, float hi) {
    return x > splat<T>(hi) ? splat<T>(hi) : x;
}
template <class T>
inline T select_negative(T x, T if_negative, T otherwise) {
    return x < splat<T>(0.0f) ? if_negative : otherwise;
}
// max/min that return NaN when either operand is NaN (x != x only for NaN).
template <class T>
inline T max_nan(T a, T b) {
    return a != a ? a : (a > b ? a : b);
}
template <class T>
inline T min_nan(T a, T b) {
    return a != a ? a : (a < b ? a : b);
}

/// True when f can be applied to a Vec4 (the piecewise-linear functions); others run one float at a time.
template <class F>
inline constexpr bool kVectorisable = std::is_invocable_r_v<Vec4, F, Vec4>;

/// p[i] = f(p[i] + bias) for i < n, four at a time where f allows.
template <class F>
inline void map_inplace(float* p, int64_t n, float bias, F f) {
    int64_t i = 0;
    if constexpr (kVectorisable<F>) {
        const Vec4 b = splat<Vec4>(bias);
        for (; i + 4 <= n; i += 4) store4(p + i, f(load4(p + i) + b));
    }
    for (; i < n; ++i) p[i] = f(p[i] + bias);
}

/// y[i] = f(x[i]) for i < n, four at a time where f allows.
template <class F>
inline void map(const float* x, float* y, int64_t n, F f) {
    int64_t i = 0;
    if constexpr (kVectorisable<F>) {
        for (; i + 4 <= n; i += 4) store4(y + i, f(load4(x + i)));
    }
    for (; i < n; ++i) y[i] = f(x[i]);
}

/// y[i] = f(a[i], b[i]) (or f(a[i], s) / f(s, b[i]) through the Vec4/float overloads of the caller's lambda).
template <class F>
inline void map2(const float* a, const float* b, float* y, int64_t n, F f) {
    int64_t i = 0;
    if constexpr (std::is_invocable_r_v<Vec4, F, Vec4, Vec4>) {
        for (; i + 4 <= n; i += 4) store4(y + i, f(load4(a + i), load4(b + i)));
    }
    for (; i < n; ++i) y[i] = f(a[i], b[i]);
}

}  // namespace strata::backends::cpu
