// slice.cpp: Slice, any dtype, as the ONNX spec clamps it: negative starts/ends count from the end, then starts and
// ends are clamped to [0, dim] for positive steps and to [0, dim-1] / [-1, dim-1] for negative ones; a dim not
// listed in axes is taken whole. Output dim d reads source coordinates start, start+step, ... (index_map.h).
#include <algorithm>
#include <vector>

#include "backends/reference/common.h"
#include "backends/reference/index_map.h"
#include "backends/reference/kernels.h"

namespace strata::backends::reference {

namespace {
struct DimSlice {
    int64_t start = 0, step = 1;
};

DimSlice clamp_slice(int64_t dim, int64_t start, int64_t end, int64_t step, int64_t* count) {
    if (dim == 0) {  // nothing to take (and the clamp ranges below would be empty)
        *count = 0;
        return {0, step};
    }
    if (start < 0) start += dim;
    if (end < 0) end += dim;
    if (step > 0) {
        start = std::clamp<int64_t>(start, 0, dim);
        end = std::clamp<int64_t>(end, 0, dim);
        *count = end > start ? (end - start + step - 1) / step : 0;
    } else {
        start = std::clamp<int64_t>(start, 0, dim - 1);
        end = std::clamp<int64_t>(end, -1, dim - 1);
        *count = start > end ? (start - end + (-step) - 1) / (-step) : 0;
    }
    return {start, step};
}
}  // namespace

void slice_kernel(const ir::Node& node, Inputs inputs, Outputs outputs, const KernelContext&) {
    require_outputs(node, outputs, 1);
    const Tensor& x = required_input(node, inputs, 0);
    Tensor& y = outputs[0];
    const auto& a = node.attr<ir::SliceAttrs>();
    if (!a.starts || !a.ends) STRATA_UNSUPPORTED("dynamic Slice starts/ends (node '{}')", node.name);
    const std::vector<int64_t>& starts = *a.starts;
    const std::vector<int64_t>& ends = *a.ends;
    int64_t rank = x.rank();
    STRATA_CHECK(ends.size() == starts.size() && (a.axes.empty() || a.axes.size() == starts.size()) &&
                     (a.steps.empty() || a.steps.size() == starts.size()) && y.rank() == rank,
                 StatusCode::invalid_argument, "{}: starts, ends, axes and steps must have one length",
                 ir::node_label(node));
    std::vector<DimSlice> dims(static_cast<size_t>(rank));
    std::vector<int64_t> counts(x.shape());
    std::vector<bool> seen(static_cast<size_t>(rank), false);
    for (size_t i = 0; i < starts.size(); ++i) {
        int64_t d = normalize_axis(node, a.axes.empty() ? static_cast<int64_t>(i) : a.axes[i], rank);
        int64_t step = a.steps.empty() ? 1 : a.steps[i];
        STRATA_CHECK(step != 0 && !seen[d], StatusCode::invalid_argument, "{}: a step is 0 or dim {} is sliced twice",
                     ir::node_label(node), d);
        seen[d] = true;
        dims[d] = clamp_slice(x.dim(static_cast<int>(d)), starts[i], ends[i], step, &counts[d]);
    }
    STRATA_ASSERT(Shape(counts) == y.shape(), "{}: output {} is not {}", ir::node_label(node), shape_str(y.shape()),
                  shape_str(counts));
    std::vector<int64_t> strides = row_major_strides(x.shape());
    std::vector<AxisMap> maps(static_cast<size_t>(rank));
    for (int64_t d = 0; d < rank; ++d)
        for (int64_t o = 0; o < counts[d]; ++o) maps[d].push_back((dims[d].start + o * dims[d].step) * strides[d]);
    dispatch_bytes(x, [&](auto zero) {
        using T = decltype(zero);
        copy_mapped<T>(x.data<T>(), 0, maps, T{}, y.data<T>());
    });
}

}  // namespace strata::backends::reference
