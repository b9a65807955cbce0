// conv_transpose.cpp: ConvTranspose's geometry from a StepDesc, and the direct kernel's tactic.
#include "backends/cuda/kernels/conv_transpose/conv_transpose.h"

#include <fmt/format.h>

#include <limits>

#include "core/check.h"

namespace strata::cuda {

namespace {
int64_t at_or(const std::vector<int64_t>& v, size_t i, int64_t fallback) {
    return i < v.size() ? v[i] : fallback;
}

// The leading pad of spatial dim i (as the reference): pads_begin, or derived from output_shape's total padding.
int64_t leading_pad(const ir::ConvTransposeAttrs& a, size_t i, int64_t in, int64_t out, int64_t kernel) {
    if (a.output_shape.empty()) return at_or(a.pads_begin, i, 0);
    int64_t total = at_or(a.strides, i, 1) * (in - 1) + at_or(a.output_padding, i, 0) +
                    (kernel - 1) * at_or(a.dilations, i, 1) + 1 - out;
    return a.auto_pad == ir::AutoPad::same_upper ? total / 2 : total - total / 2;
}
}  // namespace

std::string conv_transpose_unsupported(const StepDesc& desc) {
    if (desc.inputs.size() < 2 || desc.outputs.size() != 1) return "needs X, W and one output";
    const TensorDesc &x = desc.inputs[0], &w = desc.inputs[1], &y = desc.outputs[0];
    if (x.rank() != 3 && x.rank() != 4) return fmt::format("{}-D input (1-D and 2-D only)", x.rank() - 2);
    if (w.rank() != x.rank() || y.rank() != x.rank()) return "W or Y rank differs from X";
    if (!is_float_dtype(x.dtype) || w.dtype != x.dtype || y.dtype != x.dtype)
        return fmt::format("dtypes {}/{}/{} (float dtypes, all the same)", dtype_name(x.dtype), dtype_name(w.dtype),
                           dtype_name(y.dtype));
    if (w.channels_last() != x.channels_last() || y.channels_last() != x.channels_last()) return "layouts differ";
    if (desc.inputs.size() > 2 && desc.inputs[2].present && desc.inputs[2].dtype != DType::f32)
        return "bias is not float32";
    const auto& a = desc.attr<ir::ConvTransposeAttrs>();
    int64_t group = a.group;
    if (group <= 0 || x.shape[1] % group != 0 || w.shape[0] != x.shape[1] || w.shape[1] * group != y.shape[1])
        return fmt::format("X {} W {} Y {} do not fit group {}", shape_str(x.shape), shape_str(w.shape),
                           shape_str(y.shape), group);
    int64_t lim = std::numeric_limits<int32_t>::max();
    if (x.numel() > lim || y.numel() > lim || w.numel() > lim) return "more than 2^31 elements";
    return {};
}

ConvTransposeParams conv_transpose_params(const StepDesc& desc) {
    const TensorDesc &x = desc.inputs[0], &w = desc.inputs[1], &y = desc.outputs[0];
    const auto& a = desc.attr<ir::ConvTransposeAttrs>();
    bool two_d = x.rank() == 4;
    ConvTransposeParams p;
    p.n = x.shape[0];
    p.c = x.shape[1];
    p.h = two_d ? x.shape[2] : 1;
    p.w = x.shape.back();
    p.m = y.shape[1];
    p.p = two_d ? y.shape[2] : 1;
    p.q = y.shape.back();
    p.group = a.group;
    p.cg = p.c / a.group;
    p.mg = p.m / a.group;
    p.r = two_d ? w.shape[2] : 1;
    p.s = w.shape.back();
    size_t wi = two_d ? 1 : 0;  // index of the width dim in the attribute vectors
    if (two_d) {
        p.stride_h = at_or(a.strides, 0, 1);
        p.dil_h = at_or(a.dilations, 0, 1);
        p.pad_h = leading_pad(a, 0, p.h, p.p, p.r);
    }
    p.stride_w = at_or(a.strides, wi, 1);
    p.dil_w = at_or(a.dilations, wi, 1);
    p.pad_w = leading_pad(a, wi, p.w, p.q, p.s);
    p.nhwc = x.channels_last();
    return p;
}

namespace {
void direct_launch(const StepDesc& desc, const StepBuffers& b, cudaStream_t stream) {
    const float* bias = b.inputs.size() > 2 ? static_cast<const float*>(b.inputs[2]) : nullptr;
    conv_transpose_direct_launch(desc.outputs[0].dtype, conv_transpose_params(desc), b.inputs[0], b.inputs[1], bias,
                                 b.outputs[0], stream);
}

std::string direct_can_implement(const StepDesc& desc, int /*config*/) {
    return conv_transpose_unsupported(desc);
}
}  // namespace

void register_conv_transpose_tactics(CudaTacticRegistry& registry) {
    registry.add(CudaTactic{.name = "cuda.conv_transpose.direct",
                            .op = ir::OpKind::ConvTranspose,
                            .can_implement = direct_can_implement,
                            .make = make_function_kernel<direct_launch>});
}

}  // namespace strata::cuda
