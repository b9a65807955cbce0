// binary.cpp: elementwise functions of two inputs with numpy broadcasting (Add, Sub, Mul, Div, Pow, Max, Min, PRelu)
// on f32, and on i64/i32 for the shape arithmetic ONNX graphs do (Shape -> Gather -> Div -> Concat -> Reshape).
// Integer Div truncates toward zero, as the ONNX reference does (true quotient cast back to the integer type);
// integer Add/Sub/Mul wrap around instead of overflowing.
#include <algorithm>
#include <cmath>
#include <type_traits>

#include "backends/reference/common.h"
#include "backends/reference/kernels.h"

namespace strata::backends::reference {

namespace {
using ir::BinaryKind;

template <class T>
T wrap(uint64_t v) {
    return static_cast<T>(v);  // modular conversion (C++20)
}

template <class T>
T int_pow(const ir::Node& node, T base, T exp) {
    if (exp < 0) {  // 1 / base^|exp| truncated toward zero
        STRATA_CHECK(base != 0, StatusCode::invalid_argument, "{}: integer 0 raised to a negative power",
                     ir::node_label(node));
        if (base == 1) return 1;
        if (base == -1) return (exp % 2 == 0) ? 1 : -1;
        return 0;
    }
    uint64_t result = 1, b = static_cast<uint64_t>(base);
    for (uint64_t e = static_cast<uint64_t>(exp); e > 0; e >>= 1, b *= b)  // square and multiply
        if (e & 1) result *= b;
    return wrap<T>(result);
}

template <class T>
T int_div(const ir::Node& node, T a, T b) {
    STRATA_CHECK(b != 0, StatusCode::invalid_argument, "{}: integer division by zero", ir::node_label(node));
    if (b == -1) return wrap<T>(0 - static_cast<uint64_t>(a));  // MIN / -1 wraps like the other integer ops
    return a / b;                                               // C++ integer division truncates toward zero
}

template <class T>
T apply(const ir::Node& node, BinaryKind kind, T a, T b) {
    if constexpr (std::is_floating_point_v<T>) {
        double x = a, y = b;
        switch (kind) {
            case BinaryKind::Add: return static_cast<T>(x + y);
            case BinaryKind::Sub: return static_cast<T>(x - y);
            case BinaryKind::Mul: return static_cast<T>(x * y);
            case BinaryKind::Div: return static_cast<T>(x / y);
            case BinaryKind::Pow: return static_cast<T>(std::pow(x, y));
            case BinaryKind::Max: return std::isnan(a) || std::isnan(b) ? NAN : std::max(a, b);
            case BinaryKind::Min: return std::isnan(a) || std::isnan(b) ? NAN : std::min(a, b);
            case BinaryKind::PRelu: return a < 0 ? static_cast<T>(x * y) : a;
        }
    } else {
        uint64_t x = static_cast<uint64_t>(a), y = static_cast<uint64_t>(b);
        switch (kind) {
            case BinaryKind::Add: return wrap<T>(x + y);
            case BinaryKind::Sub: return wrap<T>(x - y);
            case BinaryKind::Mul: return wrap<T>(x * y);
            case BinaryKind::Div: return int_div(node, a, b);
            case BinaryKind::Pow: return int_pow(node, a, b);
            case BinaryKind::Max: return std::max(a, b);
            case BinaryKind::Min: return std::min(a, b);
            case BinaryKind::PRelu: return a < 0 ? wrap<T>(x * y) : a;
        }
    }
    STRATA_ASSERT(false, "{}: unknown BinaryKind {}", ir::node_label(node), static_cast<int>(kind));
    return T{};
}
}  // namespace

void binary_kernel(const ir::Node& node, Inputs inputs, Outputs outputs, const KernelContext&) {
    require_outputs(node, outputs, 1);
    const Tensor& a = required_input(node, inputs, 0);
    const Tensor& b = required_input(node, inputs, 1);
    Tensor& c = outputs[0];
    STRATA_CHECK(a.dtype() == b.dtype() && c.dtype() == a.dtype(), StatusCode::invalid_argument,
                 "{}: inputs are {} and {} (output {}); they must have one dtype", ir::node_label(node),
                 dtype_name(a.dtype()), dtype_name(b.dtype()), dtype_name(c.dtype()));
    BinaryKind kind = node.attr<ir::BinaryAttrs>().kind;
    std::vector<int64_t> sa = broadcast_strides(node, a.shape(), c.shape());
    std::vector<int64_t> sb = broadcast_strides(node, b.shape(), c.shape());
    dispatch_arithmetic(node, a, [&](auto zero) {
        using T = decltype(zero);
        const T* pa = a.data<T>();
        const T* pb = b.data<T>();
        T* pc = c.data<T>();
        for_each_broadcast(c.shape(), sa, sb,
                           [&](int64_t i, int64_t ia, int64_t ib) { pc[i] = apply<T>(node, kind, pa[ia], pb[ib]); });
    });
}

}  // namespace strata::backends::reference
