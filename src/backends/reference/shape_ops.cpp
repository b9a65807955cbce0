// shape_ops.cpp: the ops that only relabel or describe data. Reshape, Flatten, Squeeze, Unsqueeze, Identity and
// Dropout (inference) copy the bytes unchanged; Shape writes the input's dims (a [start, end) slice of them) as
// int64; ConstantOfShape fills its output with one value.
#include <algorithm>
#include <cstring>

#include "backends/reference/common.h"
#include "backends/reference/kernels.h"

namespace strata::backends::reference {

void copy_kernel(const ir::Node& node, Inputs inputs, Outputs outputs, const KernelContext&) {
    if (node.op == ir::OpKind::Dropout && outputs.size() > 1)
        STRATA_UNSUPPORTED("Dropout mask output (node '{}')", node.name);
    require_outputs(node, outputs, 1);
    const Tensor& x = required_input(node, inputs, 0);
    STRATA_ASSERT(outputs[0].nbytes() == x.nbytes() && outputs[0].dtype() == x.dtype(),
                  "{}: output {} {} cannot hold input {} {}", ir::node_label(node), dtype_name(outputs[0].dtype()),
                  shape_str(outputs[0].shape()), dtype_name(x.dtype()), shape_str(x.shape()));
    if (x.nbytes() > 0 && outputs[0].raw() != x.raw()) std::memcpy(outputs[0].raw(), x.raw(), x.nbytes());
}

void shape_kernel(const ir::Node& node, Inputs inputs, Outputs outputs, const KernelContext&) {
    require_outputs(node, outputs, 1);
    const Tensor& x = required_input(node, inputs, 0);
    const auto& a = node.attr<ir::ShapeAttrs>();
    int64_t rank = x.rank();
    auto clamp_dim = [rank](int64_t i) { return std::clamp<int64_t>(i < 0 ? i + rank : i, 0, rank); };
    int64_t start = clamp_dim(a.start), end = clamp_dim(a.end.value_or(rank));
    int64_t count = std::max<int64_t>(0, end - start);
    STRATA_ASSERT(outputs[0].dtype() == DType::i64 && outputs[0].numel() == count, "{}: output must be int64 [{}]",
                  ir::node_label(node), count);
    for (int64_t i = 0; i < count; ++i) outputs[0].data<int64_t>()[i] = x.dim(static_cast<int>(start + i));
}

void constant_of_shape_kernel(const ir::Node& node, Inputs, Outputs outputs, const KernelContext&) {
    require_outputs(node, outputs, 1);
    Tensor& y = outputs[0];
    size_t elem = dtype_size(y.dtype());
    char* out = static_cast<char*>(y.raw());
    for (int64_t i = 0; i < y.numel(); ++i)
        write_scalar(y.dtype(), node.attr<ir::ConstantOfShapeAttrs>().value, out + static_cast<size_t>(i) * elem);
}

}  // namespace strata::backends::reference
