// conv_transpose.cpp: ConvTranspose (1-D and 2-D, groups, strides, dilations, pads, output_padding/output_shape).
// Written as the scatter the ONNX spec describes: each input pixel adds W * x to the output window it spreads over,
// Y[n, g*Mg+m, ih*s - pad + kh*d, ...] += X[n, g*Cg+c, ih, ...] * W[g*Cg+c, m, kh, ...], accumulated in double.
// The output size comes from shape inference; only the leading pads decide where the windows land.
#include <vector>

#include "backends/reference/common.h"
#include "backends/reference/kernels.h"

namespace strata::backends::reference {

namespace {
// Leading pads. With output_shape given, the spec derives them from the total padding the output size implies:
// SAME_UPPER puts the smaller half first, otherwise the larger half goes first.
std::vector<int64_t> leading_pads(const ir::ConvTransposeAttrs& a, const Shape& x, const Shape& y,
                                  const std::vector<int64_t>& kernel) {
    if (a.output_shape.empty()) return a.pads_begin;
    size_t spatial = kernel.size();
    std::vector<int64_t> pads(spatial);
    for (size_t i = 0; i < spatial; ++i) {
        int64_t stride = a.strides.empty() ? 1 : a.strides[i];
        int64_t dil = a.dilations.empty() ? 1 : a.dilations[i];
        int64_t out_pad = a.output_padding.empty() ? 0 : a.output_padding[i];
        int64_t total = stride * (x[2 + i] - 1) + out_pad + (kernel[i] - 1) * dil + 1 - y[2 + i];
        pads[i] = a.auto_pad == ir::AutoPad::same_upper ? total / 2 : total - total / 2;
    }
    return pads;
}

// Scatters one input plane through tap (kh, kw) of weight value wv into the output accumulator.
void scatter_tap(const Window2d& s, const float* plane, float wv, int64_t kh, int64_t kw, double* acc) {
    // The input positions whose output lands inside: 0 <= ih*s - pad + kh*d < out_h (the conv bound, mirrored).
    Range rows = valid_outputs(kh * s.dil_h, s.pad_top, s.stride_h, s.out_h, s.in_h);
    Range cols = valid_outputs(kw * s.dil_w, s.pad_left, s.stride_w, s.out_w, s.in_w);
    for (int64_t ih = rows.lo; ih < rows.hi; ++ih) {
        double* row = acc + (ih * s.stride_h - s.pad_top + kh * s.dil_h) * s.out_w;
        const float* in = plane + ih * s.in_w;
        int64_t ow = cols.lo * s.stride_w - s.pad_left + kw * s.dil_w;
        for (int64_t iw = cols.lo; iw < cols.hi; ++iw, ow += s.stride_w) row[ow] += static_cast<double>(wv) * in[iw];
    }
}
}  // namespace

void conv_transpose_kernel(const ir::Node& node, Inputs inputs, Outputs outputs, const KernelContext&) {
    require_outputs(node, outputs, 1);
    const Tensor& x = required_input(node, inputs, 0);
    const Tensor& w = required_input(node, inputs, 1);
    const Tensor* b = inputs.size() > 2 && inputs[2].defined() ? &inputs[2] : nullptr;
    for (const Tensor* t : {&x, &w, b})
        if (t) require_dtype(node, *t, {DType::f32});
    Tensor& y = outputs[0];
    const auto& a = node.attr<ir::ConvTransposeAttrs>();
    STRATA_CHECK(
        x.rank() >= 3 && w.rank() == x.rank() && a.group > 0 && x.dim(1) == w.dim(0) && x.dim(1) % a.group == 0,
        StatusCode::invalid_argument, "{}: X {} and W {} do not fit group {} (W is [C, M/group, kernel...])",
        ir::node_label(node), shape_str(x.shape()), shape_str(w.shape()), a.group);
    int64_t batch = x.dim(0), in_c = x.dim(1), cg = in_c / a.group, mg = w.dim(1), out_c = mg * a.group;
    STRATA_ASSERT(y.dim(1) == out_c, "{}: output has {} channels, expected {}", ir::node_label(node), y.dim(1), out_c);
    STRATA_CHECK(!b || b->numel() == out_c, StatusCode::invalid_argument, "{}: bias has {} values for {} channels",
                 ir::node_label(node), b ? b->numel() : 0, out_c);
    std::vector<int64_t> kernel(w.shape().begin() + 2, w.shape().end());
    Window2d s = make_window_2d(node, x.shape(), y.shape(), kernel, a.strides, a.dilations,
                                leading_pads(a, x.shape(), y.shape(), kernel), {});
    int64_t in_plane = s.in_h * s.in_w, out_plane = s.out_h * s.out_w, taps = s.k_h * s.k_w;
    std::vector<double> acc(static_cast<size_t>(out_plane));
    for (int64_t n = 0; n < batch; ++n) {
        for (int64_t om = 0; om < out_c; ++om) {
            std::fill(acc.begin(), acc.end(), b ? static_cast<double>(b->data<float>()[om]) : 0.0);
            int64_t g = om / mg, m = om % mg;
            for (int64_t c = g * cg; c < (g + 1) * cg; ++c) {
                const float* plane = x.data<float>() + (n * in_c + c) * in_plane;
                const float* wk = w.data<float>() + (c * mg + m) * taps;
                for (int64_t kh = 0; kh < s.k_h; ++kh)
                    for (int64_t kw = 0; kw < s.k_w; ++kw)
                        scatter_tap(s, plane, wk[kh * s.k_w + kw], kh, kw, acc.data());
            }
            float* out = y.data<float>() + (n * out_c + om) * out_plane;
            for (int64_t i = 0; i < out_plane; ++i) out[i] = static_cast<float>(acc[i]);
        }
    }
}

}  // namespace strata::backends::reference
