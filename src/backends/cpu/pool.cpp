// pool.cpp: 2-D (and 1-D) max and average pooling and global average pooling on NCHW (cpu.maxpool2d,
// cpu.avgpool2d, cpu.global_avgpool), threaded over N*C planes. Max pooling sweeps each kernel tap over whole output
// rows (vectorised for strides 1 and 2). Windows clip to the image; average pooling divides
// by the clipped window (count_include_pad=0) or by the window clipped to the padded image (count_include_pad=1),
// which is what ONNX specifies when ceil_mode makes a window run past the end padding.
#include <fmt/format.h>

#include <algorithm>
#include <limits>

#include "backends/cpu/cpu_common.h"
#include "backends/cpu/simd.h"

namespace strata::backends::cpu {

namespace {

struct Pool2dParams {
    int64_t planes = 0, in_h = 0, in_w = 0, out_h = 0, out_w = 0;
    int64_t kernel_h = 1, kernel_w = 1, stride_h = 1, stride_w = 1, dilation_h = 1, dilation_w = 1;
    int64_t pad_top = 0, pad_left = 0, pad_bottom = 0, pad_right = 0;
};

Pool2dParams pool2d_params(const ir::PoolAttrs& a, const Shape& x, const Shape& y) {
    Pool2dParams p;
    const bool two_d = x.size() == 4;
    p.planes = x[0] * x[1];
    p.in_h = two_d ? x[2] : 1;
    p.in_w = x.back();
    p.out_h = two_d ? y[2] : 1;
    p.out_w = y.back();
    p.kernel_h = two_d ? a.kernel[0] : 1;
    p.kernel_w = a.kernel.back();
    p.stride_h = two_d ? a.strides[0] : 1;
    p.stride_w = a.strides.back();
    p.dilation_h = two_d && !a.dilations.empty() ? a.dilations[0] : 1;
    p.dilation_w = a.dilations.empty() ? 1 : a.dilations.back();
    p.pad_top = two_d ? a.pads_begin[0] : 0;
    p.pad_left = a.pads_begin.back();
    p.pad_bottom = two_d ? a.pads_end[0] : 0;
    p.pad_right = a.pads_end.back();
    return p;
}

std::string pool2d_reason(const ir::Graph& graph, const ir::Node& node, const char* tactic) {
    if (std::string r = require_f32(graph, node, tactic); !r.empty()) return r;
    if (std::string r = require_static_shapes(graph, node, tactic); !r.empty()) return r;
    if (node.outputs.size() != 1) return fmt::format("{}: only the pooled output (no indices)", tactic);
    const size_t rank = graph.value(node.input(0)).shape.size();
    if (rank != 3 && rank != 4)
        return fmt::format("{}: {}-D pooling not supported (1-D and 2-D only)", tactic, rank - 2);
    const auto& a = node.attr<ir::PoolAttrs>();
    const size_t spatial = rank - 2;
    if (a.kernel.size() != spatial || a.strides.size() != spatial || a.pads_begin.size() != spatial ||
        a.pads_end.size() != spatial || (!a.dilations.empty() && a.dilations.size() != spatial))
        return fmt::format("{}: attrs not completed by shape inference", tactic);
    if (a.auto_pad != ir::AutoPad::explicit_pads) return fmt::format("{}: auto_pad not resolved", tactic);
    return {};
}

// Calls visit(oh, ow, ih, iw) for every in-image tap of every output position of one plane, in output order;
// done(oh, ow, taps) after each window.
template <class Visit, class Done>
void for_each_window(const Pool2dParams& p, Visit visit, Done done) {
    for (int64_t oh = 0; oh < p.out_h; ++oh)
        for (int64_t ow = 0; ow < p.out_w; ++ow) {
            int64_t taps = 0;
            for (int64_t ky = 0; ky < p.kernel_h; ++ky) {
                const int64_t ih = oh * p.stride_h - p.pad_top + ky * p.dilation_h;
                if (ih < 0 || ih >= p.in_h) continue;
                for (int64_t kx = 0; kx < p.kernel_w; ++kx) {
                    const int64_t iw = ow * p.stride_w - p.pad_left + kx * p.dilation_w;
                    if (iw < 0 || iw >= p.in_w) continue;
                    visit(ih * p.in_w + iw);
                    ++taps;
                }
            }
            done(oh * p.out_w + ow, oh, ow, taps);
        }
}

// The window's size when it is clipped to the padded image (count_include_pad's divisor).
int64_t padded_window(const Pool2dParams& p, int64_t oh, int64_t ow) {
    auto count = [](int64_t start, int64_t kernel, int64_t dilation, int64_t limit) {
        int64_t n = 0;
        for (int64_t k = 0; k < kernel; ++k) n += start + k * dilation < limit;
        return n;
    };
    return count(oh * p.stride_h, p.kernel_h, p.dilation_h, p.in_h + p.pad_top + p.pad_bottom) *
           count(ow * p.stride_w, p.kernel_w, p.dilation_w, p.in_w + p.pad_left + p.pad_right);
}

// out[ow] = max(out[ow], row[ow * S + offset]) for ow in [lo, hi), all reads inside the row; NaN wins, as in the
// reference. Four columns per step for strides 1 and 2 (stride 2 gathers the even inputs from two loads).
template <int S>
void max_row(const float* row, int64_t offset, int64_t lo, int64_t hi, float* out) {
    auto keep = [](auto best, auto v) { return v != v || v > best ? v : best; };
    int64_t ow = lo;
    for (; ow + 4 <= hi; ow += 4) {
        const float* src = row + ow * S + offset;
        Vec4 v;
        if constexpr (S == 1) {
            v = load4(src);
        } else {
            v = __builtin_shufflevector(load4(src), load4(src + 3), 0, 2, 5, 7);
        }
        store4(out + ow, keep(load4(out + ow), v));
    }
    for (; ow < hi; ++ow) out[ow] = keep(out[ow], row[ow * S + offset]);
}

// One plane, one kernel tap at a time over whole output rows: for each tap the in-range columns are one interval,
// so the inner loop has no bounds checks.
void max_pool_plane(const float* in, float* out, const Pool2dParams& p) {
    for (int64_t oh = 0; oh < p.out_h; ++oh) {
        float* o = out + oh * p.out_w;
        std::fill(o, o + p.out_w, -std::numeric_limits<float>::infinity());
        for (int64_t ky = 0; ky < p.kernel_h; ++ky) {
            const int64_t ih = oh * p.stride_h - p.pad_top + ky * p.dilation_h;
            if (ih < 0 || ih >= p.in_h) continue;
            const float* row = in + ih * p.in_w;
            for (int64_t kx = 0; kx < p.kernel_w; ++kx) {
                const int64_t offset = kx * p.dilation_w - p.pad_left;  // iw = ow * stride + offset
                const int64_t lo = offset >= 0 ? 0 : (-offset + p.stride_w - 1) / p.stride_w;
                int64_t hi = p.in_w - offset <= 0 ? 0 : (p.in_w - offset + p.stride_w - 1) / p.stride_w;
                hi = std::min(hi, p.out_w);
                if (lo >= hi) continue;
                if (p.stride_w == 1) {
                    max_row<1>(row, offset, lo, hi, o);
                } else if (p.stride_w == 2) {
                    max_row<2>(row, offset, lo, hi, o);
                } else {
                    for (int64_t ow = lo; ow < hi; ++ow) {
                        const float v = row[ow * p.stride_w + offset];
                        o[ow] = v != v || v > o[ow] ? v : o[ow];
                    }
                }
            }
        }
    }
}

}  // namespace

std::string max_pool_can_implement(const ir::Graph& graph, const ir::Node& node) {
    return pool2d_reason(graph, node, "cpu.maxpool2d");
}

std::string average_pool_can_implement(const ir::Graph& graph, const ir::Node& node) {
    return pool2d_reason(graph, node, "cpu.avgpool2d");
}

void max_pool(const ir::Node& node, std::span<const Tensor> inputs, std::span<Tensor> outputs,
              const KernelContext& ctx) {
    const Pool2dParams p = pool2d_params(node.attr<ir::PoolAttrs>(), inputs[0].shape(), outputs[0].shape());
    const float* x = inputs[0].data<float>();
    float* y = outputs[0].data<float>();
    parallel_for(ctx, p.planes, [&](int64_t begin, int64_t end) {
        for (int64_t plane = begin; plane < end; ++plane)
            max_pool_plane(x + plane * p.in_h * p.in_w, y + plane * p.out_h * p.out_w, p);
    });
}

void average_pool(const ir::Node& node, std::span<const Tensor> inputs, std::span<Tensor> outputs,
                  const KernelContext& ctx) {
    const auto& attrs = node.attr<ir::PoolAttrs>();
    const Pool2dParams p = pool2d_params(attrs, inputs[0].shape(), outputs[0].shape());
    const float* x = inputs[0].data<float>();
    float* y = outputs[0].data<float>();
    parallel_for(ctx, p.planes, [&](int64_t begin, int64_t end) {
        for (int64_t plane = begin; plane < end; ++plane) {
            const float* in = x + plane * p.in_h * p.in_w;
            float* out = y + plane * p.out_h * p.out_w;
            float sum = 0.0f;
            for_each_window(
                p, [&](int64_t i) { sum += in[i]; },
                [&](int64_t o, int64_t oh, int64_t ow, int64_t taps) {
                    const int64_t divisor = attrs.count_include_pad ? padded_window(p, oh, ow) : taps;
                    out[o] = divisor > 0 ? sum / static_cast<float>(divisor) : 0.0f;
                    sum = 0.0f;
                });
        }
    });
}

std::string global_average_pool_can_implement(const ir::Graph& graph, const ir::Node& node) {
    if (std::string r = require_f32(graph, node, "cpu.global_avgpool"); !r.empty()) return r;
    return require_static_shapes(graph, node, "cpu.global_avgpool");
}

void global_average_pool(const ir::Node& node, std::span<const Tensor> inputs, std::span<Tensor> outputs,
                         const KernelContext& ctx) {
    const Shape& s = inputs[0].shape();
    const int64_t planes = s[0] * s[1], size = inputs[0].numel() / std::max<int64_t>(planes, 1);
    const float* x = inputs[0].data<float>();
    float* y = outputs[0].data<float>();
    parallel_for(ctx, planes, [&](int64_t begin, int64_t end) {
        for (int64_t plane = begin; plane < end; ++plane) {
            const float* in = x + plane * size;
            float sum = 0.0f;
            for (int64_t i = 0; i < size; ++i) sum += in[i];
            y[plane] = sum / static_cast<float>(size);
        }
    });
}

}  // namespace strata::backends::cpu
