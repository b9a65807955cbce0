// separable_conv.cpp: SeparableConv on the CPU (cpu.separable_conv) as its two Convs on the CPU's own Conv kernels:
// the depthwise kernel into a float32 intermediate, then the im2col+GEMM kernel (a plain GEMM for 1x1). The fused
// op exists for GPU plans; this keeps a CPU plan of such a graph fast. A residual input runs on the reference kernel,
// as a Conv's does (the CPU Conv kernels have none).
#include <fmt/format.h>

#include "backends/cpu/conv_params.h"
#include "backends/cpu/cpu_common.h"

namespace strata::backends::cpu {
namespace {
constexpr const char* kTactic = "cpu.separable_conv";

bool attrs_complete(const ir::ConvAttrs& a) {
    return a.kernel.size() == 2 && a.strides.size() == 2 && a.dilations.size() == 2 && a.pads_begin.size() == 2 &&
           a.pads_end.size() == 2 && a.auto_pad == ir::AutoPad::explicit_pads;
}
}  // namespace

std::string separable_conv_can_implement(const ir::Graph& graph, const ir::Node& node) {
    if (std::string r = require_f32(graph, node, kTactic); !r.empty()) return r;
    if (std::string r = require_static_shapes(graph, node, kTactic); !r.empty()) return r;
    if (node.input(5) != ir::kNoValue) return fmt::format("{}: no fused residual input (GPU plans only)", kTactic);
    const auto& a = node.attr<ir::SeparableConvAttrs>();
    if (graph.value(node.input(0)).shape.size() != 4 || !attrs_complete(a.depthwise) || !attrs_complete(a.pointwise))
        return fmt::format("{}: not a 2-D SeparableConv with attrs completed by shape inference", kTactic);
    return {};
}

void separable_conv(const ir::Node& node, std::span<const Tensor> inputs, std::span<Tensor> outputs,
                    const KernelContext& ctx) {
    const auto& a = node.attr<ir::SeparableConvAttrs>();
    auto optional = [&](size_t i) { return i < inputs.size() ? inputs[i] : Tensor(); };
    const Tensor& x = inputs[0];
    const Tensor& wd = inputs[1];
    const Shape& y = outputs[0].shape();
    Tensor mid = Tensor::empty(DType::f32, {x.dim(0), wd.dim(0), y[2], y[3]});  // 1x1, stride 1: Y's spatial size

    ir::Node dw{node.name + "/depthwise", ir::OpKind::Conv, {}, {}, a.depthwise};
    const Tensor dw_in[] = {x, wd, optional(2)};
    conv_depthwise(dw, dw_in, std::span<Tensor>(&mid, 1), ctx);

    ir::Node pw{node.name + "/pointwise", ir::OpKind::Conv, {}, {}, a.pointwise};
    const Tensor pw_in[] = {mid, inputs[3], optional(4)};
    conv_gemm(pw, pw_in, outputs, ctx);
}

}  // namespace strata::backends::cpu
