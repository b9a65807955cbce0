// pool.cpp: MaxPool and AveragePool (1-D and 2-D, pads, strides, dilations, ceil_mode, count_include_pad) and the
// global poolings over every spatial dim of any rank. The output size (ceil_mode included) comes from shape
// inference; here each output reads the taps of its window that fall inside the input.
// AveragePool divides by the taps inside the input, or with count_include_pad by the taps inside the padded input
// [-pad_begin, size + pad_end) (a ceil_mode window reaching past the end padding does not count the overhang).
// A window with no tap inside the input gives -inf (max) or 0 (average: nothing was summed).
#include <algorithm>
#include <cmath>
#include <limits>

#include "backends/reference/common.h"
#include "backends/reference/kernels.h"

namespace strata::backends::reference {

namespace {
// The taps t in [0, k) of output o whose position o*stride - pad + t*dil lies in [lo, hi).
Range taps_within(int64_t o, int64_t stride, int64_t pad, int64_t dil, int64_t k, int64_t lo, int64_t hi) {
    int64_t start = o * stride - pad;
    int64_t first = std::max<int64_t>(0, ceil_div(lo - start, dil));
    int64_t last = std::min<int64_t>(k, ceil_div(hi - start, dil));
    return {first, std::max(first, last)};
}

enum class PoolKind { max, average };

void pool_2d(const ir::Node& node, Inputs inputs, Outputs outputs, PoolKind kind) {
    require_outputs(node, outputs, 1);
    const Tensor& x = required_input(node, inputs, 0);
    require_dtype(node, x, {DType::f32});
    const auto& a = node.attr<ir::PoolAttrs>();
    STRATA_ASSERT(a.auto_pad == ir::AutoPad::explicit_pads, "{}: auto_pad must be resolved by shape inference",
                  ir::node_label(node));
    Tensor& y = outputs[0];
    Window2d s = make_window_2d(node, x.shape(), y.shape(), a.kernel, a.strides, a.dilations, a.pads_begin,
                                a.pads_end);
    int64_t planes = x.dim(0) * x.dim(1);
    for (int64_t p = 0; p < planes; ++p) {
        const float* in = x.data<float>() + p * s.in_h * s.in_w;
        float* out = y.data<float>() + p * s.out_h * s.out_w;
        for (int64_t oh = 0; oh < s.out_h; ++oh) {
            Range rows = taps_within(oh, s.stride_h, s.pad_top, s.dil_h, s.k_h, 0, s.in_h);
            Range padded_rows = taps_within(oh, s.stride_h, s.pad_top, s.dil_h, s.k_h, -s.pad_top, s.in_h + s.pad_bottom);
            for (int64_t ow = 0; ow < s.out_w; ++ow) {
                Range cols = taps_within(ow, s.stride_w, s.pad_left, s.dil_w, s.k_w, 0, s.in_w);
                double best = -std::numeric_limits<double>::infinity(), sum = 0.0;
                for (int64_t kh = rows.lo; kh < rows.hi; ++kh) {
                    const float* row = in + (oh * s.stride_h - s.pad_top + kh * s.dil_h) * s.in_w;
                    for (int64_t kw = cols.lo; kw < cols.hi; ++kw) {
                        double v = row[ow * s.stride_w - s.pad_left + kw * s.dil_w];
                        best = std::isnan(v) || v > best ? v : best;
                        sum += v;
                    }
                }
                if (kind == PoolKind::max) {
                    out[oh * s.out_w + ow] = static_cast<float>(best);
                    continue;
                }
                int64_t count = (rows.hi - rows.lo) * (cols.hi - cols.lo);
                if (a.count_include_pad) {
                    Range padded_cols =
                        taps_within(ow, s.stride_w, s.pad_left, s.dil_w, s.k_w, -s.pad_left, s.in_w + s.pad_right);
                    count = (padded_rows.hi - padded_rows.lo) * (padded_cols.hi - padded_cols.lo);
                }
                out[oh * s.out_w + ow] = count > 0 ? static_cast<float>(sum / static_cast<double>(count)) : 0.0f;
            }
        }
    }
}

void global_pool(const ir::Node& node, Inputs inputs, Outputs outputs, PoolKind kind) {
    require_outputs(node, outputs, 1);
    const Tensor& x = required_input(node, inputs, 0);
    require_dtype(node, x, {DType::f32});
    STRATA_CHECK(x.rank() >= 2, StatusCode::invalid_argument, "{}: X {} must be [N, C, ...]", ir::node_label(node),
                 shape_str(x.shape()));
    int64_t planes = x.dim(0) * x.dim(1), inner = dims_product(x.shape(), 2, x.rank());
    STRATA_ASSERT(outputs[0].numel() == planes, "{}: output {} is not [N, C, 1...]", ir::node_label(node),
                  shape_str(outputs[0].shape()));
    for (int64_t p = 0; p < planes; ++p) {
        const float* in = x.data<float>() + p * inner;
        double best = -std::numeric_limits<double>::infinity(), sum = 0.0;
        for (int64_t i = 0; i < inner; ++i) {
            best = std::isnan(in[i]) || in[i] > best ? in[i] : best;
            sum += in[i];
        }
        double v = kind == PoolKind::max ? best : (inner > 0 ? sum / static_cast<double>(inner) : 0.0);
        outputs[0].data<float>()[p] = static_cast<float>(v);
    }
}
}  // namespace

void max_pool_kernel(const ir::Node& node, Inputs inputs, Outputs outputs, const KernelContext&) {
    pool_2d(node, inputs, outputs, PoolKind::max);
}

void average_pool_kernel(const ir::Node& node, Inputs inputs, Outputs outputs, const KernelContext&) {
    pool_2d(node, inputs, outputs, PoolKind::average);
}

void global_average_pool_kernel(const ir::Node& node, Inputs inputs, Outputs outputs, const KernelContext&) {
    global_pool(node, inputs, outputs, PoolKind::average);
}

void global_max_pool_kernel(const ir::Node& node, Inputs inputs, Outputs outputs, const KernelContext&) {
    global_pool(node, inputs, outputs, PoolKind::max);
}

}  // namespace strata::backends::reference
