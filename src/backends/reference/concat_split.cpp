// concat_split.cpp: Concat and Split along one axis, any dtype. Seen as [outer, axis * inner] rows, both are block
// copies: each input (output) owns a contiguous run of every row.
#include <cstring>
#include <vector>

#include "backends/reference/common.h"
#include "backends/reference/kernels.h"

namespace strata::backends::reference {

namespace {
// Checks that `part` equals `whole` in every dim but `axis`.
void check_same_but_axis(const ir::Node& node, const Shape& part, const Shape& whole, int64_t axis) {
    bool ok = part.size() == whole.size();
    for (size_t d = 0; ok && d < part.size(); ++d) ok = static_cast<int64_t>(d) == axis || part[d] == whole[d];
    STRATA_CHECK(ok, StatusCode::invalid_argument, "{}: {} and {} differ outside axis {}", ir::node_label(node),
                 shape_str(part), shape_str(whole), axis);
}
}  // namespace

void concat_kernel(const ir::Node& node, Inputs inputs, Outputs outputs, const KernelContext&) {
    require_outputs(node, outputs, 1);
    Tensor& y = outputs[0];
    int64_t axis = normalize_axis(node, node.attr<ir::AxisAttrs>().axis, y.rank());
    int64_t outer = dims_product(y.shape(), 0, axis), inner = dims_product(y.shape(), axis + 1, y.rank());
    size_t elem = dtype_size(y.dtype());
    int64_t row_bytes = y.dim(static_cast<int>(axis)) * inner * static_cast<int64_t>(elem), offset = 0;
    for (size_t i = 0; i < inputs.size(); ++i) {
        const Tensor& x = required_input(node, inputs, i);
        STRATA_CHECK(x.dtype() == y.dtype(), StatusCode::invalid_argument, "{}: input {} is {}, the output {}",
                     ir::node_label(node), i, dtype_name(x.dtype()), dtype_name(y.dtype()));
        check_same_but_axis(node, x.shape(), y.shape(), axis);
        int64_t bytes = x.dim(static_cast<int>(axis)) * inner * static_cast<int64_t>(elem);
        STRATA_ASSERT(offset + bytes <= row_bytes, "{}: inputs overrun the output", ir::node_label(node));
        for (int64_t o = 0; bytes > 0 && o < outer; ++o)
            std::memcpy(static_cast<char*>(y.raw()) + o * row_bytes + offset,
                        static_cast<const char*>(x.raw()) + o * bytes, static_cast<size_t>(bytes));
        offset += bytes;
    }
    STRATA_ASSERT(offset == row_bytes, "{}: inputs do not fill the output", ir::node_label(node));
}

void split_kernel(const ir::Node& node, Inputs inputs, Outputs outputs, const KernelContext&) {
    const Tensor& x = required_input(node, inputs, 0);
    int64_t axis = normalize_axis(node, node.attr<ir::SplitAttrs>().axis, x.rank());
    int64_t outer = dims_product(x.shape(), 0, axis), inner = dims_product(x.shape(), axis + 1, x.rank());
    size_t elem = dtype_size(x.dtype());
    int64_t row_bytes = x.dim(static_cast<int>(axis)) * inner * static_cast<int64_t>(elem), offset = 0;
    for (Tensor& y : outputs) {
        STRATA_ASSERT(y.dtype() == x.dtype(), "{}: output dtype differs", ir::node_label(node));
        check_same_but_axis(node, y.shape(), x.shape(), axis);
        int64_t bytes = y.dim(static_cast<int>(axis)) * inner * static_cast<int64_t>(elem);
        STRATA_ASSERT(offset + bytes <= row_bytes, "{}: outputs overrun the input", ir::node_label(node));
        for (int64_t o = 0; bytes > 0 && o < outer; ++o)
            std::memcpy(static_cast<char*>(y.raw()) + o * bytes,
                        static_cast<const char*>(x.raw()) + o * row_bytes + offset, static_cast<size_t>(bytes));
        offset += bytes;
    }
    STRATA_ASSERT(offset == row_bytes, "{}: outputs do not cover the input", ir::node_label(node));
}

}  // namespace strata::backends::reference
