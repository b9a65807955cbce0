// common.cpp: the helpers every reference kernel shares (see common.h).
#include "backends/reference/common.h"

#include <algorithm>

namespace strata::backends::reference {

std::vector<int64_t> row_major_strides(const Shape& shape) {
    std::vector<int64_t> strides(shape.size(), 1);
    for (int64_t i = static_cast<int64_t>(shape.size()) - 2; i >= 0; --i) strides[i] = strides[i + 1] * shape[i + 1];
    return strides;
}

int64_t dims_product(const Shape& shape, int64_t from, int64_t to) {
    int64_t p = 1;
    for (int64_t i = from; i < to; ++i) p *= shape[i];
    return p;
}

int64_t normalize_axis(const ir::Node& node, int64_t axis, int64_t rank) {
    STRATA_CHECK(axis >= -rank && axis < rank, StatusCode::invalid_argument,
                 "{}: axis {} is out of range for a rank-{} input (expected [{}, {}))", ir::node_label(node), axis,
                 rank, -rank, rank);
    return axis < 0 ? axis + rank : axis;
}

const Tensor& required_input(const ir::Node& node, Inputs inputs, size_t i) {
    STRATA_CHECK(i < inputs.size() && inputs[i].defined(), StatusCode::invalid_argument,
                 "{}: input {} is missing (the reference kernel needs it)", ir::node_label(node), i);
    return inputs[i];
}

void require_dtype(const ir::Node& node, const Tensor& t, std::initializer_list<DType> allowed) {
    if (std::find(allowed.begin(), allowed.end(), t.dtype()) == allowed.end())
        STRATA_UNSUPPORTED("{} on {} (node '{}')", ir::op_name(node.op), dtype_name(t.dtype()), node.name);
}

void require_outputs(const ir::Node& node, Outputs outputs, size_t count) {
    STRATA_ASSERT(outputs.size() == count, "{}: the reference kernel writes {} output(s), got {}",
                  ir::node_label(node), count, outputs.size());
}

namespace {
// Attribute value at spatial index i of a (possibly empty) per-spatial-dim vector.
int64_t attr_at(const std::vector<int64_t>& v, size_t i, size_t spatial, int64_t fallback) {
    if (v.empty()) return fallback;
    STRATA_ASSERT(v.size() == spatial, "attribute has {} entries for {} spatial dims", v.size(), spatial);
    return v[i];
}
}  // namespace

Window2d make_window_2d(const ir::Node& node, const Shape& in, const Shape& out, const std::vector<int64_t>& kernel,
                        const std::vector<int64_t>& strides, const std::vector<int64_t>& dilations,
                        const std::vector<int64_t>& pads_begin, const std::vector<int64_t>& pads_end) {
    size_t spatial = in.size() - 2;
    if (spatial < 1 || spatial > 2 || out.size() != in.size())
        STRATA_UNSUPPORTED("{} with {} spatial dims (node '{}'; 1-D and 2-D are supported)", ir::op_name(node.op),
                           static_cast<int64_t>(in.size()) - 2, node.name);
    STRATA_ASSERT(kernel.size() == spatial, "{}: kernel has {} dims for {} spatial dims", ir::node_label(node),
                  kernel.size(), spatial);
    Window2d w;
    // 1-D is the 2-D case with a height of one: the spatial dim maps to the width.
    size_t wi = spatial - 1;
    w.in_w = in[2 + wi];
    w.out_w = out[2 + wi];
    w.k_w = kernel[wi];
    w.stride_w = attr_at(strides, wi, spatial, 1);
    w.dil_w = attr_at(dilations, wi, spatial, 1);
    w.pad_left = attr_at(pads_begin, wi, spatial, 0);
    w.pad_right = attr_at(pads_end, wi, spatial, 0);
    if (spatial == 2) {
        w.in_h = in[2];
        w.out_h = out[2];
        w.k_h = kernel[0];
        w.stride_h = attr_at(strides, 0, spatial, 1);
        w.dil_h = attr_at(dilations, 0, spatial, 1);
        w.pad_top = attr_at(pads_begin, 0, spatial, 0);
        w.pad_bottom = attr_at(pads_end, 0, spatial, 0);
    }
    STRATA_CHECK(w.stride_h > 0 && w.stride_w > 0 && w.dil_h > 0 && w.dil_w > 0, StatusCode::invalid_argument,
                 "{}: strides and dilations must be positive", ir::node_label(node));
    return w;
}

int64_t ceil_div(int64_t a, int64_t b) { return a >= 0 ? (a + b - 1) / b : -((-a) / b); }

Range valid_outputs(int64_t tap, int64_t pad, int64_t stride, int64_t in, int64_t out) {
    // 0 <= o*stride - pad + tap < in  <=>  (pad - tap) / stride <= o < (in + pad - tap) / stride
    int64_t lo = std::max<int64_t>(0, ceil_div(pad - tap, stride));
    int64_t hi = std::min<int64_t>(out, ceil_div(in + pad - tap, stride));
    return {lo, std::max(lo, hi)};
}

std::vector<int64_t> broadcast_strides(const ir::Node& node, const Shape& in, const Shape& out) {
    STRATA_CHECK(in.size() <= out.size(), StatusCode::invalid_argument, "{}: {} does not broadcast to {}",
                 ir::node_label(node), shape_str(in), shape_str(out));
    std::vector<int64_t> strides(out.size(), 0);
    std::vector<int64_t> own = row_major_strides(in);
    size_t lead = out.size() - in.size();
    for (size_t i = 0; i < in.size(); ++i) {
        STRATA_CHECK(in[i] == out[lead + i] || in[i] == 1, StatusCode::invalid_argument,
                     "{}: {} does not broadcast to {}", ir::node_label(node), shape_str(in), shape_str(out));
        strides[lead + i] = in[i] == 1 ? 0 : own[i];
    }
    return strides;
}

}  // namespace strata::backends::reference
