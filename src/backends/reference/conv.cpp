// conv.cpp: Conv (1-D and 2-D, groups incl. depthwise with a channel multiplier, strides, dilations, explicit pads,
// optional bias, then the optional fused activation). The oracle for every fast convolution, so it is the ONNX
// definition written as loops: Y[n,m,oh,ow] = B[m] + sum_{c,kh,kw} X[n, g*Cg+c, oh*s-p+kh*d, ...] * W[m,c,kh,kw],
// accumulated in double. The loops run per (tap, output row) over a precomputed valid range, so no index is tested
// per element and ResNet-50 runs in seconds.
#include <vector>

#include "backends/reference/common.h"
#include "backends/reference/kernels.h"
#include "backends/reference/unary.h"

namespace strata::backends::reference {

namespace {
struct ConvProblem {
    int64_t batch, in_c, out_c, group;
    Window2d win;
};

ConvProblem conv_problem(const ir::Node& node, const Tensor& x, const Tensor& w, const Tensor& y) {
    const auto& a = node.attr<ir::ConvAttrs>();
    STRATA_ASSERT(a.auto_pad == ir::AutoPad::explicit_pads, "{}: auto_pad must be resolved by shape inference",
                  ir::node_label(node));
    STRATA_CHECK(x.rank() >= 3 && w.rank() == x.rank(), StatusCode::invalid_argument,
                 "{}: X {} and W {} must both be [N,C,spatial...] / [M,C/group,kernel...]", ir::node_label(node),
                 shape_str(x.shape()), shape_str(w.shape()));
    ConvProblem p{x.dim(0), x.dim(1), w.dim(0), a.group, {}};
    STRATA_CHECK(p.group > 0 && p.in_c % p.group == 0 && p.out_c % p.group == 0 && w.dim(1) == p.in_c / p.group,
                 StatusCode::invalid_argument, "{}: X has {} channels and W is {}, which does not fit group {}",
                 ir::node_label(node), p.in_c, shape_str(w.shape()), p.group);
    std::vector<int64_t> kernel(w.shape().begin() + 2, w.shape().end());
    STRATA_CHECK(a.kernel.empty() || a.kernel == kernel, StatusCode::invalid_argument,
                 "{}: kernel_shape attribute differs from W {}", ir::node_label(node), shape_str(w.shape()));
    p.win = make_window_2d(node, x.shape(), y.shape(), kernel, a.strides, a.dilations, a.pads_begin, a.pads_end);
    STRATA_ASSERT(y.dim(0) == p.batch && y.dim(1) == p.out_c, "{}: output shape {} does not fit", ir::node_label(node),
                  shape_str(y.shape()));
    return p;
}

// acc[oh*out_w + ow] += wv * X-plane value under tap (kh, kw), over the outputs whose tap lands inside the input.
void accumulate_tap(const Window2d& s, const float* plane, float wv, int64_t kh, int64_t kw, double* acc) {
    Range rows = valid_outputs(kh * s.dil_h, s.pad_top, s.stride_h, s.in_h, s.out_h);
    Range cols = valid_outputs(kw * s.dil_w, s.pad_left, s.stride_w, s.in_w, s.out_w);
    for (int64_t oh = rows.lo; oh < rows.hi; ++oh) {
        const float* row = plane + (oh * s.stride_h - s.pad_top + kh * s.dil_h) * s.in_w;
        double* out = acc + oh * s.out_w;
        int64_t iw = cols.lo * s.stride_w - s.pad_left + kw * s.dil_w;
        for (int64_t ow = cols.lo; ow < cols.hi; ++ow, iw += s.stride_w) out[ow] += static_cast<double>(wv) * row[iw];
    }
}
}  // namespace

void conv_kernel(const ir::Node& node, Inputs inputs, Outputs outputs, const KernelContext&) {
    require_outputs(node, outputs, 1);
    const Tensor& x = required_input(node, inputs, 0);
    const Tensor& w = required_input(node, inputs, 1);
    const Tensor* b = inputs.size() > 2 && inputs[2].defined() ? &inputs[2] : nullptr;
    const Tensor* z = inputs.size() > 3 && inputs[3].defined() ? &inputs[3] : nullptr;
    for (const Tensor* t : {&x, &w, b, z})
        if (t) require_dtype(node, *t, {DType::f32});
    Tensor& y = outputs[0];
    ConvProblem p = conv_problem(node, x, w, y);
    STRATA_CHECK(!b || b->numel() == p.out_c, StatusCode::invalid_argument, "{}: bias has {} values for {} channels",
                 ir::node_label(node), b ? b->numel() : 0, p.out_c);
    const auto& activation = node.attr<ir::ConvAttrs>().activation;
    const Window2d& s = p.win;
    int64_t in_plane = s.in_h * s.in_w, out_plane = s.out_h * s.out_w, taps = s.k_h * s.k_w;
    int64_t cg = p.in_c / p.group, mg = p.out_c / p.group;
    std::vector<double> acc(static_cast<size_t>(out_plane));
    for (int64_t n = 0; n < p.batch; ++n) {
        for (int64_t m = 0; m < p.out_c; ++m) {
            std::fill(acc.begin(), acc.end(), b ? static_cast<double>(b->data<float>()[m]) : 0.0);
            int64_t first_c = (m / mg) * cg;
            for (int64_t c = 0; c < cg; ++c) {
                const float* plane = x.data<float>() + (n * p.in_c + first_c + c) * in_plane;
                const float* wk = w.data<float>() + (m * cg + c) * taps;
                for (int64_t kh = 0; kh < s.k_h; ++kh)
                    for (int64_t kw = 0; kw < s.k_w; ++kw)
                        accumulate_tap(s, plane, wk[kh * s.k_w + kw], kh, kw, acc.data());
            }
            float* out = y.data<float>() + (n * p.out_c + m) * out_plane;
            const float* residual = z ? z->data<float>() + (n * p.out_c + m) * out_plane : nullptr;
            for (int64_t i = 0; i < out_plane; ++i) {
                float v = static_cast<float>(residual ? acc[i] + residual[i] : acc[i]);
                out[i] = activation ? apply_unary(*activation, v) : v;
            }
        }
    }
}

}  // namespace strata::backends::reference
