// conv_params.cpp: Conv attrs and shapes -> Conv2dParams, and the checks every CPU conv tactic starts from.
#include "backends/cpu/conv_params.h"

#include <fmt/format.h>

#include "backends/cpu/cpu_common.h"

namespace strata::backends::cpu {

Conv2dParams conv2d_params(const ir::ConvAttrs& a, const Shape& x, const Shape& w, const Shape& y) {
    Conv2dParams p;
    const bool two_d = x.size() == 4;
    p.batch = x[0];
    p.in_channels = x[1];
    p.in_h = two_d ? x[2] : 1;
    p.in_w = x.back();
    p.out_channels = y[1];
    p.out_h = two_d ? y[2] : 1;
    p.out_w = y.back();
    p.kernel_h = two_d ? w[2] : 1;
    p.kernel_w = w.back();
    p.stride_h = two_d ? a.strides[0] : 1;
    p.stride_w = a.strides.back();
    p.dilation_h = two_d ? a.dilations[0] : 1;
    p.dilation_w = a.dilations.back();
    p.pad_top = two_d ? a.pads_begin[0] : 0;
    p.pad_left = a.pads_begin.back();
    p.group = a.group;
    return p;
}

std::string conv2d_reason(const ir::Graph& graph, const ir::Node& node, const char* tactic) {
    if (std::string r = require_f32(graph, node, tactic); !r.empty()) return r;
    if (std::string r = require_static_shapes(graph, node, tactic); !r.empty()) return r;
    if (node.input(3) != ir::kNoValue) return fmt::format("{}: no fused residual input (GPU plans only)", tactic);
    const Shape& x = graph.value(node.input(0)).shape;
    const Shape& w = graph.value(node.input(1)).shape;
    if (x.size() != 3 && x.size() != 4)
        return fmt::format("{}: {}-D input not supported (1-D and 2-D only)", tactic, static_cast<int>(x.size()) - 2);
    const auto& a = node.attr<ir::ConvAttrs>();
    const size_t spatial = x.size() - 2;
    if (a.strides.size() != spatial || a.dilations.size() != spatial || a.pads_begin.size() != spatial ||
        a.pads_end.size() != spatial || w.size() != x.size())
        return fmt::format("{}: attrs not completed by shape inference", tactic);
    if (a.auto_pad != ir::AutoPad::explicit_pads) return fmt::format("{}: auto_pad not resolved", tactic);
    return {};
}

const float* conv_bias(std::span<const Tensor> inputs) {
    if (inputs.size() < 3 || !inputs[2].defined() || inputs[2].numel() == 0) return nullptr;
    return inputs[2].data<float>();
}

}  // namespace strata::backends::cpu
