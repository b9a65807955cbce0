// gather.cpp: Gather along one axis, any data dtype, i64 or i32 indices; negative indices count from the end.
// Y[outer, idx..., inner] = X[outer, indices[idx...], inner]: one contiguous block per (outer, index).
#include <cstring>

#include "backends/reference/common.h"
#include "backends/reference/kernels.h"

namespace strata::backends::reference {

namespace {
int64_t index_at(const Tensor& indices, int64_t i) {
    return indices.dtype() == DType::i64 ? indices.data<int64_t>()[i] : indices.data<int32_t>()[i];
}
}  // namespace

void gather_kernel(const ir::Node& node, Inputs inputs, Outputs outputs, const KernelContext&) {
    require_outputs(node, outputs, 1);
    const Tensor& x = required_input(node, inputs, 0);
    const Tensor& indices = required_input(node, inputs, 1);
    require_dtype(node, indices, {DType::i64, DType::i32});
    Tensor& y = outputs[0];
    STRATA_CHECK(x.rank() >= 1, StatusCode::invalid_argument, "{}: data must have rank >= 1", ir::node_label(node));
    int64_t axis = normalize_axis(node, node.attr<ir::AxisAttrs>().axis, x.rank());
    int64_t outer = dims_product(x.shape(), 0, axis), inner = dims_product(x.shape(), axis + 1, x.rank());
    int64_t size = x.dim(static_cast<int>(axis)), count = indices.numel();
    STRATA_ASSERT(y.numel() == outer * count * inner && y.dtype() == x.dtype(), "{}: output {} does not fit",
                  ir::node_label(node), shape_str(y.shape()));
    size_t block = static_cast<size_t>(inner) * dtype_size(x.dtype());
    for (int64_t j = 0; j < count; ++j) {
        int64_t idx = index_at(indices, j);
        STRATA_CHECK(idx >= -size && idx < size, StatusCode::invalid_argument,
                     "{}: index {} is out of range for axis {} of size {}", ir::node_label(node), idx, axis, size);
        if (idx < 0) idx += size;
        for (int64_t o = 0; block > 0 && o < outer; ++o)
            std::memcpy(static_cast<char*>(y.raw()) + ((o * count + j) * block),
                        static_cast<const char*>(x.raw()) + ((o * size + idx) * block), block);
    }
}

}  // namespace strata::backends::reference
