// shape_inference_layout.cpp: the ops that rearrange a tensor without computing on it: Flatten, Reshape (0 copies a
// dim unless allowzero, -1 infers), Transpose, Squeeze, Unsqueeze, Tile and Expand (bidirectional broadcast).
#include <algorithm>

#include "ir/shape_inference_internal.h"

namespace strata::ir::shapes {

void infer_flatten(NodeContext& ctx) {
    const Shape& x = ctx.shape(0);
    int64_t rank = static_cast<int64_t>(x.size());
    int64_t axis = ctx.node().attr<FlattenAttrs>().axis;
    // Flatten's axis may equal the rank (everything goes to the first dim).
    axis = axis == rank ? rank : ctx.axis(axis, rank, "axis");
    auto cut = static_cast<size_t>(axis);
    ctx.set_output(0, ctx.dtype(0), {product(x, 0, cut), product(x, cut, x.size())});
}

namespace {

// The size Reshape's -1 stands for. With unknown input dims it is known only when each of them is copied by a 0 at
// its own position (Reshape [?,1280,1,1] by [0,-1]): those factors then cancel.
int64_t reshape_inferred(NodeContext& ctx, const Shape& x, const Shape& out, size_t infer_at, bool allowzero) {
    const auto& spec = *ctx.node().attr<ReshapeAttrs>().shape;
    auto copied = [&](size_t i) { return !allowzero && i < spec.size() && spec[i] == 0; };
    int64_t in = 1, rest = 1;
    for (size_t i = 0; i < x.size(); ++i) {
        if (x[i] < 0 && !copied(i)) return kUnknown;
        if (x[i] >= 0) in *= x[i];
    }
    for (size_t i = 0; i < out.size(); ++i)
        if (i != infer_at && out[i] >= 0) rest *= out[i];
    STRATA_CHECK(rest != 0 && in % rest == 0, StatusCode::invalid_argument,
                 "{}: cannot reshape {} into {}: {} elements do not divide into parts of {}", ctx.label(), shape_str(x),
                 list_str(spec), in, rest);
    return in / rest;
}

}  // namespace

void infer_reshape(NodeContext& ctx) {
    const Shape& x = ctx.shape(0);
    auto& a = ctx.node().attr<ReshapeAttrs>();
    a.shape = ctx.required_param(a.shape, 1, "shape");
    const auto& spec = *a.shape;
    ctx.check_magnitude(spec, "shape");
    Shape out(spec.size());
    std::optional<size_t> infer_at;
    for (size_t i = 0; i < spec.size(); ++i) {
        if (spec[i] == -1) {
            STRATA_CHECK(!infer_at, StatusCode::invalid_argument, "{}: shape {} has more than one -1", ctx.label(),
                         list_str(spec));
            infer_at = i;
        } else if (spec[i] == 0 && !a.allowzero) {
            STRATA_CHECK(i < x.size(), StatusCode::invalid_argument,
                         "{}: shape {} copies dim {} (0) but the input {} has rank {}", ctx.label(), list_str(spec), i,
                         shape_str(x), x.size());
            out[i] = x[i];
        } else {
            STRATA_CHECK(spec[i] >= 0, StatusCode::invalid_argument, "{}: shape {} has a negative dim", ctx.label(),
                         list_str(spec));
            out[i] = spec[i];
        }
    }
    if (infer_at) {
        out[*infer_at] = reshape_inferred(ctx, x, out, *infer_at, a.allowzero);
    } else if (shape_numel(x) >= 0 && std::all_of(x.begin(), x.end(), [](int64_t d) { return d >= 0; })) {
        STRATA_CHECK(shape_numel(x) == shape_numel(out), StatusCode::invalid_argument,
                     "{}: cannot reshape {} into {}: the element counts differ", ctx.label(), shape_str(x),
                     shape_str(out));
    }
    ctx.set_output(0, ctx.dtype(0), out);
}

void infer_transpose(NodeContext& ctx) {
    const Shape& x = ctx.shape(0);
    auto& perm = ctx.node().attr<TransposeAttrs>().perm;
    if (perm.empty())
        for (size_t i = x.size(); i-- > 0;) perm.push_back(static_cast<int64_t>(i));
    std::vector<int64_t> sorted = perm;
    std::sort(sorted.begin(), sorted.end());
    bool is_perm = sorted.size() == x.size();
    for (size_t i = 0; is_perm && i < sorted.size(); ++i) is_perm = sorted[i] == static_cast<int64_t>(i);
    STRATA_CHECK(is_perm, StatusCode::invalid_argument, "{}: perm {} is not a permutation of the dims of {}",
                 ctx.label(), list_str(perm), shape_str(x));
    Shape out;
    for (int64_t p : perm) out.push_back(x[static_cast<size_t>(p)]);
    ctx.set_output(0, ctx.dtype(0), out);
}

void infer_squeeze(NodeContext& ctx) {
    const Shape& x = ctx.shape(0);
    auto axes = ctx.param(ctx.node().attr<AxesAttrs>().axes, 1, "axes");
    std::vector<bool> drop(x.size(), false);
    if (!axes) {
        for (size_t i = 0; i < x.size(); ++i) drop[i] = x[i] == 1;
    } else {
        for (int64_t ax : *axes) {
            auto i = static_cast<size_t>(ctx.axis(ax, static_cast<int64_t>(x.size()), "axes entry"));
            STRATA_CHECK(dims_match(x[i], 1), StatusCode::invalid_argument,
                         "{}: cannot squeeze dim {} of {}: its size is not 1", ctx.label(), ax, shape_str(x));
            drop[i] = true;
        }
    }
    Shape out;
    for (size_t i = 0; i < x.size(); ++i)
        if (!drop[i]) out.push_back(x[i]);
    ctx.set_output(0, ctx.dtype(0), out);
}

void infer_unsqueeze(NodeContext& ctx) {
    const Shape& x = ctx.shape(0);
    auto axes = ctx.required_param(ctx.node().attr<AxesAttrs>().axes, 1, "axes");
    auto rank = static_cast<int64_t>(x.size() + axes.size());
    std::vector<bool> inserted(static_cast<size_t>(rank), false);
    for (int64_t ax : axes) {
        auto i = static_cast<size_t>(ctx.axis(ax, rank, "axes entry"));
        STRATA_CHECK(!inserted[i], StatusCode::invalid_argument, "{}: axis {} appears twice", ctx.label(), ax);
        inserted[i] = true;
    }
    Shape out;
    size_t next = 0;
    for (size_t i = 0; i < inserted.size(); ++i) out.push_back(inserted[i] ? 1 : x[next++]);
    ctx.set_output(0, ctx.dtype(0), out);
}

void infer_tile(NodeContext& ctx) {
    const Shape& x = ctx.shape(0);
    auto repeats = ctx.required_param(ctx.node().attr<TileAttrs>().repeats, 1, "repeats");
    ctx.check_magnitude(repeats, "repeats");
    STRATA_CHECK(repeats.size() == x.size(), StatusCode::invalid_argument,
                 "{}: repeats {} must have one entry per dim of the input {}", ctx.label(), list_str(repeats),
                 shape_str(x));
    Shape out;
    for (size_t i = 0; i < x.size(); ++i) {
        STRATA_CHECK(repeats[i] >= 0, StatusCode::invalid_argument, "{}: repeats {} has a negative entry", ctx.label(),
                     list_str(repeats));
        out.push_back(mul_dims(x[i], repeats[i]));
    }
    ctx.set_output(0, ctx.dtype(0), out);
}

void infer_expand(NodeContext& ctx) {
    const Shape& x = ctx.shape(0);
    auto shape = ctx.required_param(ctx.node().attr<ExpandAttrs>().shape, 1, "shape");
    ctx.check_magnitude(shape, "shape");
    auto out = broadcast(x, shape);
    STRATA_CHECK(out.has_value(), StatusCode::invalid_argument, "{}: the input {} does not broadcast with shape {}",
                 ctx.label(), shape_str(x), list_str(shape));
    ctx.set_output(0, ctx.dtype(0), *out);
}

}  // namespace strata::ir::shapes
