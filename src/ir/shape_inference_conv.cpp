// shape_inference_conv.cpp: Conv, ConvTranspose, SeparableConv and the pools. Fills the default strides/dilations/
// pads, takes Conv's kernel from W, and resolves auto_pad (SAME_UPPER/SAME_LOWER/VALID) into explicit pads,
// following the ONNX operator spec, so that kernels only ever see explicit pads.
#include <algorithm>
#include <string>

#include "ir/shape_inference_internal.h"

namespace strata::ir::shapes {
namespace {

// The windowed ops share these fields; this is a view on them so the rules are written once.
struct Window {
    std::vector<int64_t>& kernel;
    std::vector<int64_t>& strides;
    std::vector<int64_t>& dilations;
    std::vector<int64_t>& pads_begin;
    std::vector<int64_t>& pads_end;
    AutoPad& auto_pad;
};

void fill_default(NodeContext& ctx, std::vector<int64_t>& v, size_t n, int64_t value, const char* what, int64_t min) {
    if (v.empty()) v.assign(n, value);
    STRATA_CHECK(v.size() == n, StatusCode::invalid_argument,
                 "{}: {} has {} entries, expected {} (one per spatial dim)", ctx.label(), what, v.size(), n);
    ctx.check_magnitude(v, what);
    for (int64_t x : v)
        STRATA_CHECK(x >= min, StatusCode::invalid_argument, "{}: {} {} must be >= {}", ctx.label(), what, x, min);
}

void fill_defaults(NodeContext& ctx, Window& w, size_t n) {
    fill_default(ctx, w.kernel, n, 1, "kernel_shape", 1);
    fill_default(ctx, w.strides, n, 1, "strides", 1);
    fill_default(ctx, w.dilations, n, 1, "dilations", 1);
    fill_default(ctx, w.pads_begin, n, 0, "pads (begin)", 0);
    fill_default(ctx, w.pads_end, n, 0, "pads (end)", 0);
}

int64_t dilated(const Window& w, size_t i) { return (w.kernel[i] - 1) * w.dilations[i] + 1; }

// SAME/VALID pads for the forward windowed ops (ONNX: out = ceil(in / stride) for SAME). Leaves auto_pad alone
// when a spatial dim is unknown: the pads cannot be known yet.
void resolve_auto_pad(Window& w, const Shape& x) {
    if (w.auto_pad == AutoPad::explicit_pads) return;
    for (size_t i = 0; i < w.kernel.size(); ++i)
        if (x[i + 2] < 0) return;
    for (size_t i = 0; i < w.kernel.size(); ++i) {
        int64_t total = 0;
        if (w.auto_pad != AutoPad::valid) {
            int64_t out = (x[i + 2] + w.strides[i] - 1) / w.strides[i];
            total = std::max<int64_t>(0, (out - 1) * w.strides[i] + dilated(w, i) - x[i + 2]);
        }
        int64_t smaller = total / 2;
        w.pads_begin[i] = w.auto_pad == AutoPad::same_lower ? total - smaller : smaller;
        w.pads_end[i] = total - w.pads_begin[i];
    }
    w.auto_pad = AutoPad::explicit_pads;
}

// Output spatial dims of a forward windowed op after auto_pad resolution.
Shape window_output(NodeContext& ctx, const Window& w, const Shape& x, int64_t channels, bool ceil_mode) {
    Shape out{x[0], channels};
    for (size_t i = 0; i < w.kernel.size(); ++i) {
        int64_t in = x[i + 2];
        if (in < 0) {
            out.push_back(kUnknown);
            continue;
        }
        if (w.auto_pad == AutoPad::same_upper || w.auto_pad == AutoPad::same_lower) {
            out.push_back((in + w.strides[i] - 1) / w.strides[i]);
            continue;
        }
        int64_t span = in + w.pads_begin[i] + w.pads_end[i] - dilated(w, i);
        STRATA_CHECK(span >= 0, StatusCode::invalid_argument,
                     "{}: the window ({} dilated to {}) is larger than the padded input {} in spatial dim {}",
                     ctx.label(), w.kernel[i], dilated(w, i), shape_str(x), i);
        int64_t n = (ceil_mode ? (span + w.strides[i] - 1) / w.strides[i] : span / w.strides[i]) + 1;
        // ceil_mode: a last window that would start inside the end padding is dropped (as in PyTorch and ONNX).
        if (ceil_mode && (n - 1) * w.strides[i] >= in + w.pads_begin[i]) --n;
        out.push_back(n);
    }
    return out;
}

void check_spatial_rank(NodeContext& ctx, const Shape& x) {
    STRATA_CHECK(x.size() >= 3, StatusCode::invalid_argument, "{}: input {} must be [N, C, spatial...] (rank >= 3)",
                 ctx.label(), shape_str(x));
}

void check_bias(NodeContext& ctx, int64_t channels, size_t index = 2) {
    if (!ctx.has_input(index)) return;
    const Shape& b = ctx.shape(index);
    STRATA_CHECK(b.size() == 1 && dims_match(b[0], channels), StatusCode::invalid_argument,
                 "{}: bias {} does not match the {} output channels", ctx.label(), shape_str(b), channels);
}

// ConvTranspose's pads from the total padding, as the ONNX spec splits it (SAME_UPPER puts the smaller half first).
void split_transpose_pads(ConvTransposeAttrs& a, size_t i, int64_t total) {
    int64_t half = total / 2;
    a.pads_begin[i] = a.auto_pad == AutoPad::same_upper ? half : total - half;
    a.pads_end[i] = total - a.pads_begin[i];
}

// ConvTranspose's spatial output sizes; derives explicit pads when output_shape or SAME fixes the output instead.
Shape transpose_spatial(NodeContext& ctx, ConvTransposeAttrs& a, const Shape& x) {
    size_t n = x.size() - 2;
    ctx.check_magnitude(a.output_shape, "output_shape");
    std::vector<int64_t> target = a.output_shape;
    if (target.size() == n + 2) target.erase(target.begin(), target.begin() + 2);  // some exporters add N and C
    STRATA_CHECK(target.empty() || target.size() == n, StatusCode::invalid_argument,
                 "{}: output_shape {} must have one entry per spatial dim of the input {}", ctx.label(),
                 list_str(a.output_shape), shape_str(x));
    bool same = a.auto_pad == AutoPad::same_upper || a.auto_pad == AutoPad::same_lower;
    bool known = std::all_of(x.begin() + 2, x.end(), [](int64_t d) { return d >= 0; });
    Shape out;
    for (size_t i = 0; i < n; ++i) {
        int64_t in = x[i + 2];
        int64_t dilated_kernel = (a.kernel[i] - 1) * a.dilations[i] + 1;
        int64_t full = in < 0 ? kUnknown : a.strides[i] * (in - 1) + a.output_padding[i] + dilated_kernel;
        int64_t size = kUnknown;
        if (!target.empty()) size = target[i];
        else if (same) size = in < 0 ? kUnknown : in * a.strides[i];
        else if (a.auto_pad == AutoPad::valid) size = full;
        else if (in >= 0) size = full - a.pads_begin[i] - a.pads_end[i];
        if (known && (!target.empty() || a.auto_pad != AutoPad::explicit_pads)) {
            int64_t total = a.auto_pad == AutoPad::valid && target.empty() ? 0 : full - size;
            if (total < 0)
                STRATA_UNSUPPORTED("{}: output size {} beyond the full transposed convolution {}", ctx.label(), size,
                                   full);
            split_transpose_pads(a, i, total);
        }
        STRATA_CHECK(size > 0 || (in < 0 && size == kUnknown), StatusCode::invalid_argument,
                     "{}: output spatial dim {} is empty for input {}", ctx.label(), i, shape_str(x));
        out.push_back(size);
    }
    if (known) {
        a.auto_pad = AutoPad::explicit_pads;
        a.output_shape.clear();  // now encoded in the pads
    }
    return out;
}

// SeparableConv's depthwise half: Wd [C,1,R,S] with group C over X [N,C,H,W]; returns its output [N,C,OH,OW].
Shape separable_depthwise(NodeContext& ctx, ConvAttrs& a, const Shape& x, const Shape& wd) {
    STRATA_CHECK(x.size() == 4, StatusCode::invalid_argument, "{}: input {} must be [N,C,H,W]", ctx.label(),
                 shape_str(x));
    STRATA_CHECK(wd.size() == 4 && wd[1] == 1 && dims_match(x[1], wd[0]), StatusCode::invalid_argument,
                 "{}: depthwise weight {} must be [C,1,R,S] with C = the {} input channels of {}", ctx.label(),
                 shape_str(wd), x[1], shape_str(x));
    Shape kernel(wd.begin() + 2, wd.end());
    if (a.kernel.empty()) a.kernel = kernel;
    STRATA_CHECK(a.kernel == kernel, StatusCode::invalid_argument,
                 "{}: depthwise kernel_shape {} does not match the weight {}", ctx.label(), list_str(a.kernel),
                 shape_str(wd));
    STRATA_CHECK(a.group == wd[0], StatusCode::invalid_argument,
                 "{}: depthwise group {} must equal the {} channels of the weight {}", ctx.label(), a.group, wd[0],
                 shape_str(wd));
    check_bias(ctx, wd[0], 2);
    Window w{a.kernel, a.strides, a.dilations, a.pads_begin, a.pads_end, a.auto_pad};
    fill_defaults(ctx, w, 2);
    resolve_auto_pad(w, x);
    return window_output(ctx, w, x, wd[0], false);
}

// SeparableConv's pointwise half: Wp [K,C,1,1], stride 1, dilation 1, no pads, group 1 over the depthwise output.
Shape separable_pointwise(NodeContext& ctx, ConvAttrs& a, const Shape& mid, const Shape& wp) {
    STRATA_CHECK(wp.size() == 4 && wp[2] == 1 && wp[3] == 1 && dims_match(mid[1], wp[1]),
                 StatusCode::invalid_argument, "{}: pointwise weight {} must be [K,C,1,1] with C = {}", ctx.label(),
                 shape_str(wp), mid[1]);
    if (a.kernel.empty()) a.kernel = {1, 1};
    Window w{a.kernel, a.strides, a.dilations, a.pads_begin, a.pads_end, a.auto_pad};
    fill_defaults(ctx, w, 2);
    resolve_auto_pad(w, mid);
    const std::vector<int64_t> ones{1, 1}, zeros{0, 0};
    bool plain = a.kernel == ones && a.strides == ones && a.dilations == ones && a.pads_begin == zeros &&
                 a.pads_end == zeros && a.group == 1;
    STRATA_CHECK(plain, StatusCode::invalid_argument,
                 "{}: the pointwise half must be 1x1, stride 1, dilation 1, no pads, group 1 (kernel {}, strides {}, "
                 "dilations {}, pads {}+{}, group {})",
                 ctx.label(), list_str(a.kernel), list_str(a.strides), list_str(a.dilations), list_str(a.pads_begin),
                 list_str(a.pads_end), a.group);
    check_bias(ctx, wp[0], 4);
    return Shape{mid[0], wp[0], mid[2], mid[3]};
}

}  // namespace

void infer_separable_conv(NodeContext& ctx) {
    auto& a = ctx.node().attr<SeparableConvAttrs>();
    const Shape& x = ctx.shape(0);
    ctx.require_same_dtype();
    Shape mid = separable_depthwise(ctx, a.depthwise, x, ctx.shape(1));
    Shape y = separable_pointwise(ctx, a.pointwise, mid, ctx.shape(3));
    if (ctx.has_input(5))
        STRATA_CHECK(ctx.shape(5) == y, StatusCode::invalid_argument, "{}: residual {} does not match the output {}",
                     ctx.label(), shape_str(ctx.shape(5)), shape_str(y));
    ctx.set_output(0, ctx.dtype(0), y);
}

void infer_conv(NodeContext& ctx) {
    const Shape& x = ctx.shape(0);
    const Shape& wt = ctx.shape(1);
    auto& a = ctx.node().attr<ConvAttrs>();
    check_spatial_rank(ctx, x);
    ctx.require_same_dtype();
    STRATA_CHECK(wt.size() == x.size(), StatusCode::invalid_argument,
                 "{}: weight {} must have the rank of the input {}", ctx.label(), shape_str(wt), shape_str(x));
    size_t n = x.size() - 2;
    Shape w_kernel(wt.begin() + 2, wt.end());
    if (a.kernel.empty()) a.kernel = w_kernel;
    STRATA_CHECK(a.kernel == w_kernel, StatusCode::invalid_argument,
                 "{}: kernel_shape {} does not match the weight {}", ctx.label(), list_str(a.kernel), shape_str(wt));
    STRATA_CHECK(a.group >= 1, StatusCode::invalid_argument, "{}: group {} must be >= 1", ctx.label(), a.group);
    STRATA_CHECK(x[1] < 0 || x[1] % a.group == 0, StatusCode::invalid_argument,
                 "{}: group {} does not divide the {} input channels of {}", ctx.label(), a.group, x[1], shape_str(x));
    STRATA_CHECK(wt[0] % a.group == 0, StatusCode::invalid_argument,
                 "{}: group {} does not divide the {} output channels of weight {}", ctx.label(), a.group, wt[0],
                 shape_str(wt));
    STRATA_CHECK(dims_match(x[1], mul_dims(wt[1], a.group)), StatusCode::invalid_argument,
                 "{}: input {} has {} channels but weight {} with group {} expects {}", ctx.label(), shape_str(x), x[1],
                 shape_str(wt), a.group, wt[1] * a.group);
    check_bias(ctx, wt[0]);
    Window w{a.kernel, a.strides, a.dilations, a.pads_begin, a.pads_end, a.auto_pad};
    fill_defaults(ctx, w, n);
    resolve_auto_pad(w, x);
    Shape y = window_output(ctx, w, x, wt[0], false);
    if (ctx.has_input(3))
        STRATA_CHECK(ctx.shape(3) == y, StatusCode::invalid_argument, "{}: residual {} does not match the output {}",
                     ctx.label(), shape_str(ctx.shape(3)), shape_str(y));
    ctx.set_output(0, ctx.dtype(0), y);
}

void infer_conv_transpose(NodeContext& ctx) {
    const Shape& x = ctx.shape(0);
    const Shape& wt = ctx.shape(1);
    auto& a = ctx.node().attr<ConvTransposeAttrs>();
    check_spatial_rank(ctx, x);
    ctx.require_same_dtype();
    STRATA_CHECK(wt.size() == x.size(), StatusCode::invalid_argument,
                 "{}: weight {} must have the rank of the input {}", ctx.label(), shape_str(wt), shape_str(x));
    STRATA_CHECK(a.group >= 1, StatusCode::invalid_argument, "{}: group {} must be >= 1", ctx.label(), a.group);
    STRATA_CHECK(dims_match(x[1], wt[0]), StatusCode::invalid_argument,
                 "{}: input {} has {} channels but weight {} expects {}", ctx.label(), shape_str(x), x[1],
                 shape_str(wt), wt[0]);
    STRATA_CHECK(wt[0] % a.group == 0, StatusCode::invalid_argument,
                 "{}: group {} does not divide the {} input channels of weight {}", ctx.label(), a.group, wt[0],
                 shape_str(wt));
    size_t n = x.size() - 2;
    Shape w_kernel(wt.begin() + 2, wt.end());
    if (a.kernel.empty()) a.kernel = w_kernel;
    STRATA_CHECK(a.kernel == w_kernel, StatusCode::invalid_argument,
                 "{}: kernel_shape {} does not match the weight {}", ctx.label(), list_str(a.kernel), shape_str(wt));
    int64_t channels = wt[1] * a.group;
    check_bias(ctx, channels);
    Window w{a.kernel, a.strides, a.dilations, a.pads_begin, a.pads_end, a.auto_pad};
    fill_defaults(ctx, w, n);
    fill_default(ctx, a.output_padding, n, 0, "output_padding", 0);
    Shape out{x[0], channels};
    for (int64_t d : transpose_spatial(ctx, a, x)) out.push_back(d);
    ctx.set_output(0, ctx.dtype(0), out);
}

void infer_pool(NodeContext& ctx) {
    const Shape& x = ctx.shape(0);
    auto& a = ctx.node().attr<PoolAttrs>();
    check_spatial_rank(ctx, x);
    size_t n = x.size() - 2;
    STRATA_CHECK(a.kernel.size() == n, StatusCode::invalid_argument,
                 "{}: kernel_shape {} must have one entry per spatial dim of the input {}", ctx.label(),
                 list_str(a.kernel), shape_str(x));
    Window w{a.kernel, a.strides, a.dilations, a.pads_begin, a.pads_end, a.auto_pad};
    fill_defaults(ctx, w, n);
    resolve_auto_pad(w, x);
    ctx.set_output(0, ctx.dtype(0), window_output(ctx, w, x, x[1], a.ceil_mode));
}

void infer_global_pool(NodeContext& ctx) {
    const Shape& x = ctx.shape(0);
    check_spatial_rank(ctx, x);
    Shape out(x.size(), 1);
    out[0] = x[0];
    out[1] = x[1];
    ctx.set_output(0, ctx.dtype(0), out);
}

}  // namespace strata::ir::shapes
