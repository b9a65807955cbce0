// conv_depthwise.cpp: depthwise convolution (cpu.conv2d_depthwise): group == C_in, C_out = multiplier * C_in, so
// each output plane reads one input plane. GEMM would be a K=KH*KW matrix-vector product per channel, all overhead;
// direct loops threaded over N*C_out planes do better. Rows are built one kernel row at a time; for 3x3 and 5x5
// (stride 1 or 2, no dilation) the columns whose taps are all inside the image run a fixed-size loop the compiler
// unrolls and vectorises, and only the border columns take the bounds-checked path.
#include <algorithm>

#include "backends/cpu/conv_params.h"
#include "backends/cpu/cpu_common.h"
#include "backends/cpu/simd.h"
#include "backends/cpu/unary_fn.h"

namespace strata::backends::cpu {

namespace {

constexpr const char* kTactic = "cpu.conv2d_depthwise";

// out[ow] += sum_kx w[kx] * row[ow * stride - pad_left + kx * dilation] for ow in [first, last), with bounds checks.
void accumulate_row_checked(const float* row, const float* w, const Conv2dParams& p, int64_t first, int64_t last,
                            float* out) {
    for (int64_t ow = first; ow < last; ++ow) {
        float sum = 0.0f;
        for (int64_t kx = 0; kx < p.kernel_w; ++kx) {
            const int64_t iw = ow * p.stride_w - p.pad_left + kx * p.dilation_w;
            if (iw >= 0 && iw < p.in_w) sum += w[kx] * row[iw];
        }
        out[ow] += sum;
    }
}

// The interior: every tap in range, K and S known at compile time, four output columns per step. Stride 2 gathers
// the even inputs from two overlapping loads that stay inside the taps' span (no read past the row's last tap).
template <int K, int S>
void accumulate_row_interior(const float* row, const float* w, int64_t pad_left, int64_t first, int64_t last,
                             float* out) {
    static_assert(S == 1 || S == 2);
    float wk[K];
    for (int k = 0; k < K; ++k) wk[k] = w[k];
    const float* base = row - pad_left;
    int64_t ow = first;
    for (; ow + 4 <= last; ow += 4) {
        Vec4 acc = load4(out + ow);
        for (int k = 0; k < K; ++k) {
            const float* p = base + ow * S + k;
            Vec4 x;
            if constexpr (S == 1) {
                x = load4(p);
            } else {
                const Vec4 lo = load4(p), hi = load4(p + 3);  // p[0..3], p[3..6] -> p[0], p[2], p[4], p[6]
                x = __builtin_shufflevector(lo, hi, 0, 2, 5, 7);
            }
            acc += wk[k] * x;
        }
        store4(out + ow, acc);
    }
    for (; ow < last; ++ow) {
        float sum = 0.0f;
        for (int k = 0; k < K; ++k) sum += wk[k] * base[ow * S + k];
        out[ow] += sum;
    }
}

using InteriorFn = void (*)(const float*, const float*, int64_t, int64_t, int64_t, float*);

InteriorFn interior_fn(const Conv2dParams& p) {
    if (p.dilation_w != 1 || p.kernel_w != p.kernel_h) return nullptr;
    if (p.kernel_w == 3 && p.stride_w == 1) return accumulate_row_interior<3, 1>;
    if (p.kernel_w == 3 && p.stride_w == 2) return accumulate_row_interior<3, 2>;
    if (p.kernel_w == 5 && p.stride_w == 1) return accumulate_row_interior<5, 1>;
    if (p.kernel_w == 5 && p.stride_w == 2) return accumulate_row_interior<5, 2>;
    return nullptr;
}

// One output plane from one input plane.
template <class Act>
void depthwise_plane(const float* in, const float* w, float bias, float* out, const Conv2dParams& p,
                     InteriorFn interior, Act act) {
    // Output columns whose taps all lie inside the row: lo <= ow < hi.
    const int64_t span = (p.kernel_w - 1) * p.dilation_w;
    int64_t lo = (p.pad_left + p.stride_w - 1) / p.stride_w;
    int64_t hi = p.in_w + p.pad_left - span <= 0 ? 0 : (p.in_w + p.pad_left - span - 1) / p.stride_w + 1;
    hi = std::clamp<int64_t>(hi, 0, p.out_w);
    lo = std::min(lo, hi);
    if (!interior) lo = hi = 0;
    for (int64_t oh = 0; oh < p.out_h; ++oh) {
        float* o = out + oh * p.out_w;
        std::fill(o, o + p.out_w, bias);
        for (int64_t ky = 0; ky < p.kernel_h; ++ky) {
            const int64_t ih = oh * p.stride_h - p.pad_top + ky * p.dilation_h;
            if (ih < 0 || ih >= p.in_h) continue;
            const float* row = in + ih * p.in_w;
            const float* wk = w + ky * p.kernel_w;
            accumulate_row_checked(row, wk, p, 0, lo, o);
            if (interior) interior(row, wk, p.pad_left, lo, hi, o);
            accumulate_row_checked(row, wk, p, hi, p.out_w, o);
        }
        map_inplace(o, p.out_w, 0.0f, act);
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
    const InteriorFn interior = interior_fn(p);

    with_activation_fn(attrs.activation, [&](auto act) {
        parallel_for(ctx, p.batch * p.out_channels, [&](int64_t begin, int64_t end) {
            for (int64_t plane = begin; plane < end; ++plane) {
                const int64_t n = plane / p.out_channels, oc = plane % p.out_channels;
                const float* in = x + (n * p.in_channels + oc / multiplier) * in_plane;
                depthwise_plane(in, w + oc * taps, bias ? bias[oc] : 0.0f, y + plane * out_plane, p, interior, act);
            }
        });
    });
}

}  // namespace strata::backends::cpu
