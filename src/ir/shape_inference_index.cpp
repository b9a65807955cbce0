// shape_inference_index.cpp: the ops that select, join or pad along axes: Concat, Split, Slice (negative and
// clamped bounds, negative steps), Pad (negative pads crop), Shape, Gather and ConstantOfShape.
#include <algorithm>
#include <limits>

#include "ir/shape_inference_internal.h"

namespace strata::ir::shapes {

void infer_concat(NodeContext& ctx) {
    const Shape& first = ctx.shape(0);
    ctx.require_same_dtype();
    auto axis = static_cast<size_t>(ctx.axis(ctx.node().attr<AxisAttrs>().axis, ctx.rank(0), "axis"));
    Shape out = first;
    for (size_t i = 1; i < ctx.num_inputs(); ++i) {
        const Shape& s = ctx.shape(i);
        bool fits = s.size() == first.size();
        for (size_t d = 0; fits && d < s.size(); ++d) fits = d == axis || dims_match(s[d], out[d]);
        STRATA_CHECK(fits, StatusCode::invalid_argument, "{}: input {} {} does not fit input 0 {} outside axis {}",
                     ctx.label(), i, shape_str(s), shape_str(first), axis);
        for (size_t d = 0; d < s.size(); ++d)
            if (d != axis && out[d] < 0) out[d] = s[d];
        out[axis] = out[axis] < 0 || s[axis] < 0 ? kUnknown : out[axis] + s[axis];
    }
    ctx.set_output(0, ctx.dtype(0), out);
}

void infer_split(NodeContext& ctx) {
    const Shape& x = ctx.shape(0);
    auto& a = ctx.node().attr<SplitAttrs>();
    auto axis = static_cast<size_t>(ctx.axis(a.axis, ctx.rank(0), "axis"));
    size_t parts = ctx.node().outputs.size();
    auto sizes = ctx.param(a.split, 1, "split");
    int64_t dim = x[axis];
    if (sizes) {
        STRATA_CHECK(sizes->size() == parts, StatusCode::invalid_argument, "{}: split {} has {} sizes for {} outputs",
                     ctx.label(), list_str(*sizes), sizes->size(), parts);
        int64_t sum = 0;
        ctx.check_magnitude(*sizes, "split");
        for (int64_t s : *sizes) {
            STRATA_CHECK(s >= 0, StatusCode::invalid_argument, "{}: split {} has a negative size", ctx.label(),
                         list_str(*sizes));
            sum += s;
        }
        STRATA_CHECK(dims_match(dim, sum), StatusCode::invalid_argument,
                     "{}: split {} sums to {} but dim {} of the input {} is {}", ctx.label(), list_str(*sizes), sum,
                     axis, shape_str(x), dim);
    }
    for (size_t i = 0; i < parts; ++i) {
        Shape out = x;
        if (sizes) {
            out[axis] = (*sizes)[i];
        } else if (dim >= 0) {
            // Equal parts; when the dim does not divide evenly the last part is smaller (ONNX opset 18).
            int64_t chunk = (dim + static_cast<int64_t>(parts) - 1) / static_cast<int64_t>(parts);
            out[axis] = std::max<int64_t>(0, std::min(chunk, dim - chunk * static_cast<int64_t>(i)));
        }
        ctx.set_output(i, ctx.dtype(0), out);
    }
}

namespace {

// The number of elements Slice takes from a dim of size `dim` (ONNX: clamp start and end, then count steps).
int64_t slice_count(int64_t dim, int64_t start, int64_t end, int64_t step) {
    if (start < 0) start += dim;
    if (end < 0) end += dim;
    if (step > 0) {
        start = std::clamp<int64_t>(start, 0, dim);
        end = std::clamp<int64_t>(end, 0, dim);
        return std::max<int64_t>(0, (end - start + step - 1) / step);
    }
    start = std::clamp<int64_t>(start, 0, dim - 1);
    end = std::clamp<int64_t>(end, -1, dim - 1);
    return std::max<int64_t>(0, (start - end + (-step) - 1) / (-step));
}

// INT64 bounds mean "to the end"; adding a dim to them must not overflow.
int64_t saturate(int64_t v) {
    constexpr int64_t kBig = std::numeric_limits<int64_t>::max() / 4;
    return std::clamp(v, -kBig, kBig);
}

}  // namespace

void infer_slice(NodeContext& ctx) {
    const Shape& x = ctx.shape(0);
    auto& a = ctx.node().attr<SliceAttrs>();
    a.starts = ctx.required_param(a.starts, 1, "starts");
    a.ends = ctx.required_param(a.ends, 2, "ends");
    size_t n = a.starts->size();
    if (a.axes.empty() && ctx.has_input(3)) a.axes = ctx.required_param(std::nullopt, 3, "axes");
    if (a.steps.empty() && ctx.has_input(4)) a.steps = ctx.required_param(std::nullopt, 4, "steps");
    if (a.axes.empty())
        for (size_t i = 0; i < n; ++i) a.axes.push_back(static_cast<int64_t>(i));
    if (a.steps.empty()) a.steps.assign(n, 1);
    STRATA_CHECK(a.ends->size() == n && a.axes.size() == n && a.steps.size() == n, StatusCode::invalid_argument,
                 "{}: starts {}, ends {}, axes {} and steps {} must have the same length", ctx.label(),
                 list_str(*a.starts), list_str(*a.ends), list_str(a.axes), list_str(a.steps));
    Shape out = x;
    std::vector<bool> seen(x.size(), false);
    for (size_t i = 0; i < n; ++i) {
        auto axis = static_cast<size_t>(ctx.axis(a.axes[i], ctx.rank(0), "axes entry"));
        a.axes[i] = static_cast<int64_t>(axis);
        STRATA_CHECK(!seen[axis], StatusCode::invalid_argument, "{}: axis {} appears twice", ctx.label(), axis);
        seen[axis] = true;
        STRATA_CHECK(a.steps[i] != 0, StatusCode::invalid_argument, "{}: steps {} has a 0", ctx.label(),
                     list_str(a.steps));
        if (x[axis] >= 0)
            out[axis] = slice_count(x[axis], saturate((*a.starts)[i]), saturate((*a.ends)[i]), saturate(a.steps[i]));
    }
    ctx.set_output(0, ctx.dtype(0), out);
}

void infer_pad(NodeContext& ctx) {
    const Shape& x = ctx.shape(0);
    auto& a = ctx.node().attr<PadAttrs>();
    a.pads = ctx.required_param(a.pads, 1, "pads");
    const auto& pads = *a.pads;
    ctx.check_magnitude(pads, "pads");
    STRATA_CHECK(pads.size() == 2 * x.size(), StatusCode::invalid_argument,
                 "{}: pads {} must have 2 entries per dim of the input {} (all begins, then all ends)", ctx.label(),
                 list_str(pads), shape_str(x));
    Shape out = x;
    for (size_t i = 0; i < x.size(); ++i) {
        if (x[i] < 0) continue;
        out[i] = x[i] + pads[i] + pads[i + x.size()];
        STRATA_CHECK(out[i] >= 0, StatusCode::invalid_argument, "{}: pads {} crop dim {} of the input {} below 0",
                     ctx.label(), list_str(pads), i, shape_str(x));
    }
    ctx.set_output(0, ctx.dtype(0), out);
}

void infer_shape_op(NodeContext& ctx) {
    auto rank = ctx.rank(0);
    const auto& a = ctx.node().attr<ShapeAttrs>();
    auto clamp_bound = [&](int64_t v) { return std::clamp<int64_t>(v < 0 ? v + rank : v, 0, rank); };
    int64_t start = clamp_bound(a.start);
    int64_t end = clamp_bound(a.end.value_or(rank));
    ctx.set_output(0, DType::i64, {std::max<int64_t>(0, end - start)});
}

// Constant indices (the common case: Shape -> Gather picks a dim) are checked now rather than when running.
static void check_constant_indices(NodeContext& ctx, int64_t dim) {
    const Value& v = ctx.graph().value(ctx.node().input(1));
    if (!v.constant || dim < 0) return;
    for (int64_t i = 0; i < v.constant->numel(); ++i) {
        int64_t index = v.dtype == DType::i64 ? v.constant->data<int64_t>()[i] : v.constant->data<int32_t>()[i];
        STRATA_CHECK(index >= -dim && index < dim, StatusCode::invalid_argument,
                     "{}: index {} is out of range for a dim of size {} (expected [{}, {}])", ctx.label(), index, dim,
                     -dim, dim - 1);
    }
}

void infer_gather(NodeContext& ctx) {
    const Shape& data = ctx.shape(0);
    const Shape& indices = ctx.shape(1);
    DType index_type = ctx.dtype(1);
    STRATA_CHECK(index_type == DType::i64 || index_type == DType::i32, StatusCode::invalid_argument,
                 "{}: indices must be int64 or int32, not {}", ctx.label(), dtype_name(index_type));
    STRATA_CHECK(!data.empty(), StatusCode::invalid_argument, "{}: data must have rank >= 1", ctx.label());
    auto axis = static_cast<size_t>(ctx.axis(ctx.node().attr<AxisAttrs>().axis, ctx.rank(0), "axis"));
    check_constant_indices(ctx, data[axis]);
    Shape out(data.begin(), data.begin() + static_cast<std::ptrdiff_t>(axis));
    out.insert(out.end(), indices.begin(), indices.end());
    out.insert(out.end(), data.begin() + static_cast<std::ptrdiff_t>(axis) + 1, data.end());
    ctx.set_output(0, ctx.dtype(0), out);
}

void infer_constant_of_shape(NodeContext& ctx) {
    auto& a = ctx.node().attr<ConstantOfShapeAttrs>();
    a.shape = ctx.required_param(a.shape, 0, "shape");
    ctx.check_magnitude(*a.shape, "shape");
    for (int64_t d : *a.shape)
        STRATA_CHECK(d >= 0, StatusCode::invalid_argument, "{}: shape {} has a negative dim", ctx.label(),
                     list_str(*a.shape));
    ctx.set_output(0, a.dtype, *a.shape);
}

}  // namespace strata::ir::shapes
