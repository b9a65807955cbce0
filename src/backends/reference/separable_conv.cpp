// separable_conv.cpp: SeparableConv as what it stands for, the depthwise Conv then the 1x1 Conv, both on the
// reference Conv kernel (the oracle for the fused GPU kernel). The intermediate is a float32 tensor, as between the
// two Convs of the graph it replaces, so the fused op and the unfused pair agree exactly here.
#include "backends/reference/common.h"
#include "backends/reference/kernels.h"

namespace strata::backends::reference {

void separable_conv_kernel(const ir::Node& node, Inputs inputs, Outputs outputs, const KernelContext& ctx) {
    require_outputs(node, outputs, 1);
    const Tensor& x = required_input(node, inputs, 0);
    const Tensor& wd = required_input(node, inputs, 1);
    const Tensor& wp = required_input(node, inputs, 3);
    auto optional = [&](size_t i) { return i < inputs.size() ? inputs[i] : Tensor(); };
    const Tensor& y = outputs[0];
    STRATA_CHECK(x.rank() == 4 && wd.rank() == 4 && wp.rank() == 4 && y.rank() == 4, StatusCode::invalid_argument,
                 "{}: X {}, Wd {}, Wp {} and Y {} must all be 4-D", ir::node_label(node), shape_str(x.shape()),
                 shape_str(wd.shape()), shape_str(wp.shape()), shape_str(y.shape()));
    const auto& a = node.attr<ir::SeparableConvAttrs>();
    // The pointwise half is 1x1 with stride 1 and no pads: the intermediate has Y's spatial size and Wd's channels.
    Tensor mid = Tensor::empty(DType::f32, {x.dim(0), wd.dim(0), y.dim(2), y.dim(3)});

    ir::Node dw{node.name + "/depthwise", ir::OpKind::Conv, {}, {}, a.depthwise};
    const Tensor dw_in[] = {x, wd, optional(2)};
    conv_kernel(dw, dw_in, std::span<Tensor>(&mid, 1), ctx);

    ir::Node pw{node.name + "/pointwise", ir::OpKind::Conv, {}, {}, a.pointwise};
    const Tensor pw_in[] = {mid, wp, optional(4), optional(5)};
    conv_kernel(pw, pw_in, outputs, ctx);
}

}  // namespace strata::backends::reference
