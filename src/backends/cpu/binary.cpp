// binary.cpp: elementwise functions of two tensors (cpu.binary) for the broadcasts CNNs use: same shape, a scalar,
// and an operand that varies along one run of middle dims only (a per-channel [1,C,1,1] bias or scale, a
// squeeze-excitation [N,C,1,1] gate, a [C] row bias). The output is viewed as [outer, mid, inner] and the small
// operand as [mid]. Anything else (both operands broadcast) is left to the reference kernel.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <optional>

#include "backends/cpu/cpu_common.h"
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

template <class Body> void with_binary_fn(ir::BinaryKind kind, Body&& body) {
    using K = ir::BinaryKind;
    switch (kind) {
        case K::Add: return body([](float a, float b) { return a + b; });
        case K::Sub: return body([](float a, float b) { return a - b; });
        case K::Mul: return body([](float a, float b) { return a * b; });
        case K::Div: return body([](float a, float b) { return a / b; });
        case K::Pow: return body([](float a, float b) { return std::pow(a, b); });
        case K::Max: return body([](float a, float b) { return std::max(a, b); });
        case K::Min: return body([](float a, float b) { return std::min(a, b); });
        case K::PRelu: return body([](float a, float b) { return a >= 0.0f ? a : a * b; });
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

void binary(const ir::Node& node, std::span<const Tensor> inputs, std::span<Tensor> outputs,
            const KernelContext& ctx) {
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
        auto g = [&](float big_value, float small_value) {
            return a_is_big ? f(big_value, small_value) : f(small_value, big_value);
        };
        if (v.mid == n || v.mid == 1) {  // same shape, or a scalar: flat chunks
            const bool scalar = v.mid == 1 && n > 1;
            parallel_for(ctx, (n + kGrain - 1) / kGrain, [&](int64_t begin, int64_t end) {
                const int64_t last = std::min(n, end * kGrain);
                if (scalar) {
                    const float s = small[0];
                    for (int64_t i = begin * kGrain; i < last; ++i) y[i] = g(big[i], s);
                } else {
                    for (int64_t i = begin * kGrain; i < last; ++i) y[i] = g(big[i], small[i]);
                }
            });
            return;
        }
        parallel_for(ctx, v.outer * v.mid, [&](int64_t begin, int64_t end) {
            for (int64_t row = begin; row < end; ++row) {
                const float s = small[row % v.mid];
                const float* in = big + row * v.inner;
                float* o = y + row * v.inner;
                for (int64_t i = 0; i < v.inner; ++i) o[i] = g(in[i], s);
            }
        });
    });
}

}  // namespace strata::backends::cpu
