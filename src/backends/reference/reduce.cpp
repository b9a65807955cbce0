// reduce.cpp: ReduceMean / ReduceSum / ReduceMax / ReduceMin over a set of axes (empty = all, unless
// noop_with_empty_axes), keepdims or not. f32 accumulates in double; i64/i32 (shape arithmetic) in int64.
#include <algorithm>
#include <cstring>
#include <limits>
#include <type_traits>
#include <vector>

#include "backends/reference/common.h"
#include "backends/reference/kernels.h"

namespace strata::backends::reference {

namespace {
using ir::ReduceKind;

// Which dims are reduced; an empty axes list means all of them.
std::vector<bool> reduced_dims(const ir::Node& node, const ir::ReduceAttrs& a, int64_t rank) {
    std::vector<bool> reduced(static_cast<size_t>(rank), a.axes.empty());
    for (int64_t axis : a.axes) {
        int64_t d = normalize_axis(node, axis, rank);
        STRATA_CHECK(!reduced[d], StatusCode::invalid_argument, "{}: axis {} is listed twice", ir::node_label(node), d);
        reduced[d] = true;
    }
    return reduced;
}

template <class T>
void reduce(const ir::Node& node, const Tensor& x, Tensor& y, const std::vector<bool>& reduced, ReduceKind kind) {
    using Acc = std::conditional_t<std::is_floating_point_v<T>, double, int64_t>;
    // Output strides in the keepdims shape, 0 along reduced dims: walking X with them lands on each element's slot.
    Shape kept = x.shape();
    for (size_t d = 0; d < kept.size(); ++d)
        if (reduced[d]) kept[d] = 1;
    STRATA_ASSERT(y.numel() == shape_numel(kept), "{}: output {} does not fit", ir::node_label(node),
                  shape_str(y.shape()));
    std::vector<int64_t> slot = broadcast_strides(node, kept, x.shape());
    std::vector<int64_t> unused(x.shape().size(), 0);
    Acc init = 0;
    if (kind == ReduceKind::Max)
        init = std::is_floating_point_v<T> ? -std::numeric_limits<Acc>::infinity() : std::numeric_limits<Acc>::lowest();
    if (kind == ReduceKind::Min)
        init = std::is_floating_point_v<T> ? std::numeric_limits<Acc>::infinity() : std::numeric_limits<Acc>::max();
    std::vector<Acc> acc(static_cast<size_t>(y.numel()), init);
    const T* in = x.data<T>();
    for_each_broadcast(x.shape(), slot, unused, [&](int64_t i, int64_t o, int64_t) {
        Acc v = static_cast<Acc>(in[i]);
        switch (kind) {
            case ReduceKind::Max: acc[o] = v > acc[o] || v != v ? v : acc[o]; break;
            case ReduceKind::Min: acc[o] = v < acc[o] || v != v ? v : acc[o]; break;
            default:
                if constexpr (std::is_floating_point_v<T>)
                    acc[o] += v;
                else
                    acc[o] = static_cast<Acc>(static_cast<uint64_t>(acc[o]) + static_cast<uint64_t>(v));  // wraps
        }
    });
    int64_t count = shape_numel(x.shape()) / std::max<int64_t>(1, y.numel());
    T* out = y.data<T>();
    for (size_t o = 0; o < acc.size(); ++o) {
        Acc v = acc[o];
        if (kind == ReduceKind::Mean && count > 0) v = v / static_cast<Acc>(count);
        out[o] = static_cast<T>(v);
    }
}
}  // namespace

void reduce_kernel(const ir::Node& node, Inputs inputs, Outputs outputs, const KernelContext&) {
    require_outputs(node, outputs, 1);
    const Tensor& x = required_input(node, inputs, 0);
    const auto& a = node.attr<ir::ReduceAttrs>();
    if (a.axes.empty() && a.noop_with_empty_axes) {
        STRATA_ASSERT(outputs[0].nbytes() == x.nbytes(), "{}: a no-op reduce changes the size", ir::node_label(node));
        std::memcpy(outputs[0].raw(), x.raw(), x.nbytes());
        return;
    }
    std::vector<bool> reduced = reduced_dims(node, a, x.rank());
    dispatch_arithmetic(node, x, [&](auto zero) { reduce<decltype(zero)>(node, x, outputs[0], reduced, a.kind); });
}

}  // namespace strata::backends::reference
