// conv_depthwise.cpp: depthwise convolution (cpu.conv2d_depthwise): group == C_in, C_out = multiplier * C_in, so
// each output plane reads one input plane. GEMM would be a K=KH*KW matrix-vector product per channel, all overhead;
// direct loops threaded over N*C_out planes do better. Each output row is written once: for 3x3 and 5x5 (stride 1
// or 2, no dilation) the columns whose taps are all inside the image sum their window in registers, four columns at
// a time, with bias and activation applied before the store; border columns and other shapes check every tap.
#include <algorithm>

#include "backends/cpu/conv_params.h"
#include "backends/cpu/cpu_common.h"
#include "backends/cpu/simd.h"
#include "backends/cpu/unary_fn.h"

namespace strata::backends::cpu {

namespace {

constexpr const char* kTactic = "cpu.conv2d_depthwise";

// The rows of one output row's window that lie inside the image: ky in [first, last).
struct TapRows {
    int64_t first, last;
};

TapRows tap_rows(const Conv2dParams& p, int64_t oh) {
    TapRows r{0, p.kernel_h};
    const int64_t top = oh * p.stride_h - p.pad_top;
    while (r.first < r.last && top + r.first * p.dilation_h < 0) ++r.first;
    while (r.last > r.first && top + (r.last - 1) * p.dilation_h >= p.in_h) --r.last;
    return r;
}

// One output value with every tap bounds-checked: the border columns, and every column of the shapes without a
// fast path.
float window_checked(const float* in, const float* w, const Conv2dParams& p, TapRows rows, int64_t oh, int64_t ow) {
    float sum = 0.0f;
    for (int64_t ky = rows.first; ky < rows.last; ++ky) {
        const float* row = in + (oh * p.stride_h - p.pad_top + ky * p.dilation_h) * p.in_w;
        for (int64_t kx = 0; kx < p.kernel_w; ++kx) {
            const int64_t iw = ow * p.stride_w - p.pad_left + kx * p.dilation_w;
            if (iw >= 0 && iw < p.in_w) sum += w[ky * p.kernel_w + kx] * row[iw];
        }
    }
    return sum;
}

// Output columns [first, last) of one output row whose taps all lie inside their rows; K (square kernel, no
// dilation) and S known at compile time, four columns per step, the sum kept in registers and written once with
// bias and activation applied. Stride 2 gathers the even inputs from two overlapping loads that stay inside the
// taps' span (no read past the row's last tap).
template <int K, int S, class Act>
void row_interior(const float* in, const float* w, float bias, const Conv2dParams& p, TapRows rows, int64_t oh,
                  int64_t first, int64_t last, float* out, Act act) {
    static_assert(S == 1 || S == 2);
    const float* base = in + (oh * p.stride_h - p.pad_top) * p.in_w - p.pad_left;
    int64_t ow = first;
    for (; ow + 4 <= last; ow += 4) {
        Vec4 acc = splat<Vec4>(bias);
        for (int64_t ky = rows.first; ky < rows.last; ++ky) {
            const float* src = base + ky * p.in_w + ow * S;
            const float* wk = w + ky * K;
            for (int kx = 0; kx < K; ++kx) {
                Vec4 x;
                if constexpr (S == 1) {
                    x = load4(src + kx);
                } else {  // src[kx + 0..3], src[kx + 3..6] -> src[kx], src[kx + 2], src[kx + 4], src[kx + 6]
                    x = __builtin_shufflevector(load4(src + kx), load4(src + kx + 3), 0, 2, 5, 7);
                }
                acc += wk[kx] * x;
            }
        }
        if constexpr (kVectorisable<Act>) acc = act(acc);
        store4(out + ow, acc);
    }
    for (; ow < last; ++ow) {
        float sum = bias;
        for (int64_t ky = rows.first; ky < rows.last; ++ky)
            for (int kx = 0; kx < K; ++kx) sum += w[ky * K + kx] * base[ky * p.in_w + ow * S + kx];
        out[ow] = kVectorisable<Act> ? act(sum) : sum;
    }
    if constexpr (!kVectorisable<Act>) map_inplace(out + first, last - first, 0.0f, act);
}

// The interior kernel for this shape and activation, or null (every column takes the checked path).
template <class Act>
auto row_interior_fn(const Conv2dParams& p) {
    using Fn = void (*)(const float*, const float*, float, const Conv2dParams&, TapRows, int64_t, int64_t, int64_t,
                        float*, Act);
    if (p.dilation_w != 1 || p.dilation_h != 1 || p.kernel_w != p.kernel_h) return Fn{nullptr};
    if (p.kernel_w == 3 && p.stride_w == 1) return Fn{row_interior<3, 1, Act>};
    if (p.kernel_w == 3 && p.stride_w == 2) return Fn{row_interior<3, 2, Act>};
    if (p.kernel_w == 5 && p.stride_w == 1) return Fn{row_interior<5, 1, Act>};
    if (p.kernel_w == 5 && p.stride_w == 2) return Fn{row_interior<5, 2, Act>};
    return Fn{nullptr};
}

// One output plane from one input plane.
template <class Act>
void depthwise_plane(const float* in, const float* w, float bias, float* out, const Conv2dParams& p, Act act) {
    const auto interior = row_interior_fn<Act>(p);
    // Output columns whose taps all lie inside the row: lo <= ow < hi.
    const int64_t span = (p.kernel_w - 1) * p.dilation_w;
    int64_t lo = (p.pad_left + p.stride_w - 1) / p.stride_w;
    int64_t hi = p.in_w + p.pad_left - span <= 0 ? 0 : (p.in_w + p.pad_left - span - 1) / p.stride_w + 1;
    hi = std::clamp<int64_t>(hi, 0, p.out_w);
    lo = std::min(lo, hi);
    if (!interior) lo = hi = p.out_w;
    for (int64_t oh = 0; oh < p.out_h; ++oh) {
        float* o = out + oh * p.out_w;
        const TapRows rows = tap_rows(p, oh);
        for (int64_t ow = 0; ow < lo; ++ow) o[ow] = act(bias + window_checked(in, w, p, rows, oh, ow));
        if (interior) interior(in, w, bias, p, rows, oh, lo, hi, o, act);
        for (int64_t ow = hi; ow < p.out_w; ++ow) o[ow] = act(bias + window_checked(in, w, p, rows, oh, ow));
    }
}

}  // namespace

std::string conv_depthwise_can_implement(const ir::Graph& graph, const ir::Node& node) {
    if (std::string r = conv2d_reason(graph, node, kTactic); !r.empty()) return r;
    const int64_t group = node.attr<ir::ConvAttrs>().group;
    const int64_t c_in = graph.value(node.input(0)).shape[1];
    const int64_t c_out = graph.value(node.outputs[0]).shape[1];
    if (group == 1 || group != c_in || c_out % c_in != 0)
        return fmt::format("{}: not depthwise (group {}, {} input and {} output channels)", kTactic, group, c_in,
                           c_out);
    return {};
}

void conv_depthwise(const ir::Node& node, std::span<const Tensor> inputs, std::span<Tensor> outputs,
                    const KernelContext& ctx) {
    const auto& attrs = node.attr<ir::ConvAttrs>();
    const Conv2dParams p = conv2d_params(attrs, inputs[0].shape(), inputs[1].shape(), outputs[0].shape());
    const float* x = inputs[0].data<float>();
    const float* w = inputs[1].data<float>();
    const float* bias = conv_bias(inputs);
    float* y = outputs[0].data<float>();
    const int64_t multiplier = p.out_channels / p.in_channels;
    const int64_t in_plane = p.in_h * p.in_w, out_plane = p.out_h * p.out_w, taps = p.kernel_h * p.kernel_w;

    with_activation_fn(attrs.activation, [&](auto act) {
        parallel_for(ctx, p.batch * p.out_channels, [&](int64_t begin, int64_t end) {
            for (int64_t plane = begin; plane < end; ++plane) {
                const int64_t n = plane / p.out_channels, oc = plane % p.out_channels;
                const float* in = x + (n * p.in_channels + oc / multiplier) * in_plane;
                depthwise_plane(in, w + oc * taps, bias ? bias[oc] : 0.0f, y + plane * out_plane, p, act);
            }
        });
    });
}

}  // namespace strata::backends::cpu
