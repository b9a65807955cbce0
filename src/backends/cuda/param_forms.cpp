// param_forms.cpp: see param_forms.h.
#include "backends/cuda/param_forms.h"

namespace strata::cuda {

bool keeps_float32(const ir::Node& node, size_t index) {
    switch (node.op) {
        case ir::OpKind::Conv:
        case ir::OpKind::ConvTranspose:
        case ir::OpKind::FullyConnected: return index == 2;
        case ir::OpKind::SeparableConv: return index == 2 || index == 4;  // Bd, Bp
        case ir::OpKind::BatchNorm:
        case ir::OpKind::InstanceNorm: return index >= 1;
        default: return false;
    }
}

TensorDesc value_desc(const ir::Value& v, DType compute, Layout layout, bool fp32_param) {
    TensorDesc d;
    d.shape = v.shape;
    bool is_float = is_float_dtype(v.dtype);
    d.dtype = is_float ? (fp32_param ? DType::f32 : compute) : v.dtype;
    d.layout = v.shape.size() == 4 ? layout : Layout::rowmajor;
    return d;
}

}  // namespace strata::cuda
