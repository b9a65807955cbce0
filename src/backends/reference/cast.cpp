// cast.cpp: Cast between every pair of dtypes. Integers travel as int64 and floats as double, so int64 survives
// int64 -> int64 exactly. Float -> integer truncates toward zero; NaN gives 0 and values beyond the target's range
// saturate (C++ leaves both undefined, and the oracle must not). Integer -> narrower integer wraps, as numpy's
// astype does. fp16/bf16 round to nearest even through src/core/half.h. bool is 0 or 1.
#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>

#include "backends/reference/common.h"
#include "backends/reference/kernels.h"
#include "core/half.h"

namespace strata::backends::reference {

namespace {
// One element, either as an integer or as a floating value.
struct Scalar {
    bool is_int;
    int64_t i;
    double f;
};

Scalar read_scalar(DType t, const void* p) {
    switch (t) {
        case DType::f32: return {false, 0, *static_cast<const float*>(p)};
        case DType::f16: return {false, 0, fp16_to_float(*static_cast<const uint16_t*>(p))};
        case DType::bf16: return {false, 0, bf16_to_float(*static_cast<const uint16_t*>(p))};
        case DType::i8: return {true, *static_cast<const int8_t*>(p), 0};
        case DType::u8: return {true, *static_cast<const uint8_t*>(p), 0};
        case DType::i32: return {true, *static_cast<const int32_t*>(p), 0};
        case DType::i64: return {true, *static_cast<const int64_t*>(p), 0};
        case DType::boolean: return {true, *static_cast<const uint8_t*>(p) != 0, 0};
    }
    return {true, 0, 0};
}

template <class I>
I to_integer(const Scalar& s) {
    if (s.is_int) return static_cast<I>(s.i);  // modular for narrower types (C++20)
    if (std::isnan(s.f)) return 0;
    double t = std::trunc(s.f);
    if (t <= static_cast<double>(std::numeric_limits<I>::lowest())) return std::numeric_limits<I>::lowest();
    if (t >= static_cast<double>(std::numeric_limits<I>::max())) return std::numeric_limits<I>::max();
    return static_cast<I>(t);
}

void write(DType t, const Scalar& s, void* p) {
    double f = s.is_int ? static_cast<double>(s.i) : s.f;
    switch (t) {
        case DType::f32: *static_cast<float*>(p) = static_cast<float>(f); return;
        case DType::f16: *static_cast<uint16_t*>(p) = float_to_fp16(static_cast<float>(f)); return;
        case DType::bf16: *static_cast<uint16_t*>(p) = float_to_bf16(static_cast<float>(f)); return;
        case DType::i8: *static_cast<int8_t*>(p) = to_integer<int8_t>(s); return;
        case DType::u8: *static_cast<uint8_t*>(p) = to_integer<uint8_t>(s); return;
        case DType::i32: *static_cast<int32_t*>(p) = to_integer<int32_t>(s); return;
        case DType::i64: *static_cast<int64_t*>(p) = to_integer<int64_t>(s); return;
        case DType::boolean: *static_cast<uint8_t*>(p) = s.is_int ? s.i != 0 : f != 0.0; return;
    }
}
}  // namespace

void write_scalar(DType dtype, double value, void* dst) {
    write(dtype, Scalar{false, 0, value}, dst);
}

void cast_kernel(const ir::Node& node, Inputs inputs, Outputs outputs, const KernelContext&) {
    require_outputs(node, outputs, 1);
    const Tensor& x = required_input(node, inputs, 0);
    Tensor& y = outputs[0];
    STRATA_ASSERT(y.numel() == x.numel() && y.dtype() == node.attr<ir::CastAttrs>().to, "{}: output does not fit",
                  ir::node_label(node));
    size_t in_size = dtype_size(x.dtype()), out_size = dtype_size(y.dtype());
    const char* in = static_cast<const char*>(x.raw());
    char* out = static_cast<char*>(y.raw());
    for (int64_t i = 0; i < x.numel(); ++i)
        write(y.dtype(), read_scalar(x.dtype(), in + i * in_size), out + i * out_size);
}

}  // namespace strata::backends::reference
