// pad.cpp: Pad in constant, reflect and edge modes, any rank; negative pads crop. ONNX pads list all begins, then
// all ends. Each output coordinate maps to a source coordinate (constant: kFill outside; edge: clamped; reflect:
// mirrored about the first and last element, without repeating them).
#include <cstring>
#include <vector>

#include "backends/reference/common.h"
#include "backends/reference/index_map.h"
#include "backends/reference/kernels.h"

namespace strata::backends::reference {

namespace {
// The source coordinate for output coordinate o of a dim of `size` padded by `begin` in front, or -1 for the fill.
int64_t source_coord(ir::PadMode mode, int64_t o, int64_t begin, int64_t size) {
    int64_t i = o - begin;
    if (i >= 0 && i < size) return i;
    switch (mode) {
        case ir::PadMode::constant: return -1;
        case ir::PadMode::edge: return i < 0 ? 0 : size - 1;
        case ir::PadMode::reflect: {
            if (size == 1) return 0;
            int64_t period = 2 * (size - 1);
            i %= period;
            if (i < 0) i += period;
            return i < size ? i : period - i;
        }
    }
    return -1;
}
}  // namespace

void pad_kernel(const ir::Node& node, Inputs inputs, Outputs outputs, const KernelContext&) {
    require_outputs(node, outputs, 1);
    const Tensor& x = required_input(node, inputs, 0);
    Tensor& y = outputs[0];
    const auto& a = node.attr<ir::PadAttrs>();
    if (!a.pads) STRATA_UNSUPPORTED("dynamic Pad pads (node '{}')", node.name);
    const std::vector<int64_t>& pads = *a.pads;
    int64_t rank = x.rank();
    STRATA_CHECK(static_cast<int64_t>(pads.size()) == 2 * rank && y.rank() == rank, StatusCode::invalid_argument,
                 "{}: pads has {} entries for a rank-{} input (expected {})", ir::node_label(node), pads.size(), rank,
                 2 * rank);
    std::vector<int64_t> strides = row_major_strides(x.shape());
    std::vector<AxisMap> maps(static_cast<size_t>(rank));
    for (int64_t d = 0; d < rank; ++d) {
        int64_t size = x.dim(static_cast<int>(d)), begin = pads[d], out = size + begin + pads[rank + d];
        STRATA_ASSERT(y.dim(static_cast<int>(d)) == out, "{}: output {} does not fit", ir::node_label(node),
                      shape_str(y.shape()));
        STRATA_CHECK(a.mode == ir::PadMode::constant || size > 0 || out == 0, StatusCode::invalid_argument,
                     "{}: {} padding of an empty dim {}", ir::node_label(node),
                     a.mode == ir::PadMode::edge ? "edge" : "reflect", d);
        for (int64_t o = 0; o < out; ++o) {
            int64_t i = source_coord(a.mode, o, begin, size);
            maps[d].push_back(i < 0 ? kFill : i * strides[d]);
        }
    }
    Tensor fill = Tensor::empty(x.dtype(), {});
    write_scalar(x.dtype(), a.value, fill.raw());
    dispatch_bytes(x, [&](auto zero) {
        using T = decltype(zero);
        copy_mapped<T>(x.data<T>(), 0, maps, *fill.data<T>(), y.data<T>());
    });
}

}  // namespace strata::backends::reference
