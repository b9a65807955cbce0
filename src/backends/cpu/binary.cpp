// binary.cpp: elementwise functions of two tensors (cpu.binary) for the broadcasts CNNs use: same shape, a scalar,
// and an operand that varies along one run of middle dims only (a per-channel [1,C,1,1] bias or scale, a
// squeeze-excitation [N,C,1,1] gate, a [C] row bias). The output is viewed as [outer, mid, inner] and the small
// operand as [mid]. Anything else (both operands broadcast) is left to the reference kernel.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <optional>

#include "backends/cpu/cpu_common.h"
#include "backends/cpu/simd.h"
#include "core/check.h"

namespace strata::backends::cpu {

namespace {

constexpr const char* kTactic = "cpu.binary";
constexpr int64_t kGrain = 16384;

// out = big viewed as [outer, mid, inner]; the small operand has `mid` elements.
struct BroadcastView {
    int64_t outer = 1, mid = 1, inner = 1;
};

// The view when `small` (right-aligned against `out`) is 1 on a leading run of dims, equal to `out` on a middle run
// and 1 on a trailing run; nullopt otherwise.
std::optional<BroadcastView> broadcast_view(const Shape& small, const Shape& out) {
    if (small.size() > out.size()) return std::nullopt;
    Shape s(out.size() - small.size(), 1);
    s.insert(s.end(), small.begin(), small.end());
    size_t i = 0, n = out.size();
    BroadcastView v;
    for (; i < n && s[i] == 1; ++i) v.outer *= out[i];
    for (; i < n && s[i] == out[i] && (s[i] != 1 || v.mid > 1); ++i) v.mid *= out[i];
    for (; i < n && s[i] == 1; ++i) v.inner *= out[i];
    if (i != n) return std::nullopt;
    return v;
}

// The arithmetic kinds are generic lambdas (float or Vec4, see simd.h); Pow runs one float at a time.
template <class Body>
void with_binary_fn(ir::BinaryKind kind, Body&& body) {
    using K = ir::BinaryKind;
    switch (kind) {
        case K::Add:
            return body([](auto a, auto b) { return a + b; });
        case K::Sub:
            return body([](auto a, auto b) { return a - b; });
        case K::Mul:
            return body([](auto a, auto b) { return a * b; });
        case K::Div:
            return body([](auto a, auto b) { return a / b; });
        case K::Pow:
            return body([](float a, float b) { return static_cast<float>(std::pow(double{a}, double{b})); });
        case K::Max:
            return body([](auto a, auto b) { return max_nan(a, b); });
        case K::Min:
            return body([](auto a, auto b) { return min_nan(a, b); });
        case K::PRelu:
            return body([](auto a, auto b) { return select_negative(a, a * b, a); });
    }
    STRATA_ASSERT(false, "binary kind {} has no CPU definition", static_cast<int>(kind));
}

}  // namespace

std::string binary_can_implement(const ir::Graph& graph, const ir::Node& node) {
    if (std::string r = require_f32(graph, node, kTactic); !r.empty()) return r;
    if (std::string r = require_static_shapes(graph, node, kTactic); !r.empty()) return r;
    const Shape& a = graph.value(node.input(0)).shape;
    const Shape& b = graph.value(node.input(1)).shape;
    const Shape& out = graph.value(node.outputs[0]).shape;
    if (a == out && broadcast_view(b, out)) return {};
    if (b == out && broadcast_view(a, out)) return {};
    return fmt::format("{}: broadcast of {} and {} not covered (same shape, scalar or one-axis-run broadcast only)",
                       kTactic, shape_str(a), shape_str(b));
}

void binary(const ir::Node& node, std::span<const Tensor> inputs, std::span<Tensor> outputs, const KernelContext& ctx) {
    const Tensor& a = inputs[0];
    const Tensor& b = inputs[1];
    float* y = outputs[0].data<float>();
    const Shape& out = outputs[0].shape();
    const int64_t n = outputs[0].numel();
    // big: the operand with the output's shape; small: the other, broadcast over the [outer, mid, inner] view.
    const bool a_is_big = a.shape() == out && broadcast_view(b.shape(), out).has_value();
    const float* big = (a_is_big ? a : b).data<float>();
    const float* small = (a_is_big ? b : a).data<float>();
    const BroadcastView v = *broadcast_view((a_is_big ? b : a).shape(), out);
    with_binary_fn(node.attr<ir::BinaryAttrs>().kind, [&](auto f) {
        // g(big, small) restores the operands' order; the trailing return types keep Vec4 overloads SFINAE-visible.
        auto g = [&](auto big_value, auto small_value) -> decltype(f(big_value, small_value)) {
            return a_is_big ? f(big_value, small_value) : f(small_value, big_value);
        };
        // Rows of `count` big values against one small value s.
        auto run_row = [&](const float* in, float* o, int64_t count, float s) {
            map(in, o, count, [&](auto p) -> decltype(g(p, p)) { return g(p, splat<decltype(p)>(s)); });
        };
        if (v.mid == n || v.mid == 1) {  // same shape, or a scalar: flat chunks
            const bool scalar = v.mid == 1 && n > 1;
            parallel_for(ctx, (n + kGrain - 1) / kGrain, [&](int64_t begin, int64_t end) {
                const int64_t first = begin * kGrain, count = std::min(n, end * kGrain) - first;
                if (scalar)
                    run_row(big + first, y + first, count, small[0]);
                else
                    map2(big + first, small + first, y + first, count, g);
            });
            return;
        }
        parallel_for(ctx, v.outer * v.mid, [&](int64_t begin, int64_t end) {
            for (int64_t row = begin; row < end; ++row)
                run_row(big + row * v.inner, y + row * v.inner, v.inner, small[row % v.mid]);
        });
    });
}

}  // namespace strata::backends::cpu
