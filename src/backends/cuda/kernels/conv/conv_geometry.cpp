// conv_geometry.cpp: see conv_geometry.h.
#include "backends/cuda/kernels/conv/conv_geometry.h"

#include <fmt/format.h>

#include "core/check.h"

namespace strata::cuda {

namespace {
int attr_or(const std::vector<int64_t>& v, size_t i, int fallback) {
    return i < v.size() ? static_cast<int>(v[i]) : fallback;
}
}  // namespace

std::string ConvGeometry::str() const {
    return fmt::format("N{} C{} H{} W{} K{} P{} Q{} R{} S{} s{}x{} d{}x{} p{}x{} g{}", n, c, h, w, k, p, q, r, s,
                       stride_h, stride_w, dil_h, dil_w, pad_h, pad_w, group);
}

ConvGeometry conv_geometry(const StepDesc& desc) {
    STRATA_ASSERT(desc.inputs.size() >= 2 && desc.outputs.size() == 1, "{}: Conv needs X, W and one output", desc.name);
    const Shape& x = desc.inputs[0].shape;
    const Shape& wt = desc.inputs[1].shape;
    const Shape& y = desc.outputs[0].shape;
    if (x.size() != 3 && x.size() != 4)
        STRATA_UNSUPPORTED("Conv '{}' with {} spatial dims (1-D and 2-D are supported)", desc.name, x.size() - 2);
    STRATA_ASSERT(wt.size() == x.size() && y.size() == x.size(), "{}: X, W and Y ranks differ", desc.name);
    const auto& a = desc.attr<ir::ConvAttrs>();
    ConvGeometry g;
    g.one_d = x.size() == 3;
    size_t wi = g.one_d ? 0 : 1;  // index of the width among the spatial dims
    g.n = static_cast<int>(x[0]);
    g.c = static_cast<int>(x[1]);
    g.k = static_cast<int>(y[1]);
    g.w = static_cast<int>(x[2 + wi]);
    g.q = static_cast<int>(y[2 + wi]);
    g.s = static_cast<int>(wt[2 + wi]);
    g.stride_w = attr_or(a.strides, wi, 1);
    g.dil_w = attr_or(a.dilations, wi, 1);
    g.pad_w = attr_or(a.pads_begin, wi, 0);
    if (!g.one_d) {
        g.h = static_cast<int>(x[2]);
        g.p = static_cast<int>(y[2]);
        g.r = static_cast<int>(wt[2]);
        g.stride_h = attr_or(a.strides, 0, 1);
        g.dil_h = attr_or(a.dilations, 0, 1);
        g.pad_h = attr_or(a.pads_begin, 0, 0);
    }
    g.group = static_cast<int>(a.group);
    STRATA_ASSERT(g.group > 0 && g.c % g.group == 0 && g.k % g.group == 0 && wt[1] * g.group == g.c,
                  "{}: W {} does not fit C {} in {} groups", desc.name, shape_str(wt), g.c, g.group);
    return g;
}

ConvGeometry fc_geometry(const StepDesc& desc) {
    STRATA_ASSERT(desc.inputs.size() >= 2 && desc.outputs.size() == 1, "{}: FullyConnected needs X, W, one output",
                  desc.name);
    const Shape& x = desc.inputs[0].shape;
    const Shape& wt = desc.inputs[1].shape;
    STRATA_ASSERT(x.size() == 2 && wt.size() == 2 && x[1] == wt[1], "{}: X {} and W {} must be [N,K] and [M,K]",
                  desc.name, shape_str(x), shape_str(wt));
    ConvGeometry g;
    g.n = static_cast<int>(x[0]);
    g.c = static_cast<int>(x[1]);
    g.k = static_cast<int>(wt[0]);
    return g;
}

void conv_strides(const TensorDesc& t, int64_t out[4]) {
    auto st = t.logical_strides();
    out[0] = st[0], out[1] = st[1];
    if (t.rank() == 3)
        out[2] = 0, out[3] = st[2];
    else
        out[2] = st[2], out[3] = st[3];
}

EpilogueParams conv_epilogue(const StepDesc& desc, const StepBuffers& buffers) {
    EpilogueParams e;
    if (desc.inputs.size() > 2 && desc.inputs[2].present) e.bias = static_cast<const float*>(buffers.inputs[2]);
    if (desc.inputs.size() > 3 && desc.inputs[3].present) e.residual = buffers.inputs[3];
    if (desc.node->op == ir::OpKind::Conv)
        e.act = activation_params(desc.attr<ir::ConvAttrs>().activation);
    else if (desc.node->op == ir::OpKind::FullyConnected)
        e.act = activation_params(desc.attr<ir::FullyConnectedAttrs>().activation);
    return e;
}

std::string conv_dtype_problem(const StepDesc& desc) {
    DType dt = desc.outputs.at(0).dtype;
    if (dt != DType::f32 && dt != DType::f16 && dt != DType::bf16) return fmt::format("dtype {}", dtype_name(dt));
    for (size_t i = 0; i < desc.inputs.size(); ++i) {
        const TensorDesc& t = desc.inputs[i];
        if (!t.present) continue;
        DType want = i == 2 ? DType::f32 : dt;
        if (t.dtype != want)
            return fmt::format("input {} is {}, expected {}", i, dtype_name(t.dtype), dtype_name(want));
        if (i == 3 && (t.shape != desc.outputs[0].shape || t.layout != desc.outputs[0].layout))
            return "residual differs from the output in shape or layout";
    }
    return {};
}

}  // namespace strata::cuda
