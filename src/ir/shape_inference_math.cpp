// shape_inference_math.cpp: the arithmetic families: normalisation, broadcasting binaries (PRelu's slope
// broadcast to X), Gemm, MatMul (numpy semantics), FullyConnected, Softmax and the reductions.
#include <algorithm>

#include "ir/shape_inference_internal.h"

namespace strata::ir::shapes {

void infer_norm(NodeContext& ctx) {
    const Shape& x = ctx.shape(0);
    STRATA_CHECK(x.size() >= 2, StatusCode::invalid_argument, "{}: input {} must be [N, C, ...] (rank >= 2)",
                 ctx.label(), shape_str(x));
    size_t params = ctx.node().op == OpKind::BatchNorm ? 5 : 3;
    static const char* kNames[] = {"", "scale", "bias", "mean", "var"};
    for (size_t i = 1; i < params; ++i) {
        const Shape& p = ctx.shape(i);
        STRATA_CHECK(p.size() == 1 && dims_match(p[0], x[1]), StatusCode::invalid_argument,
                     "{}: {} {} does not match the {} channels of the input {}", ctx.label(), kNames[i], shape_str(p),
                     x[1], shape_str(x));
    }
    ctx.set_output(0, ctx.dtype(0), x);
}

// True when `from` broadcasts to `to` without changing it (PRelu's slope, Gemm's C).
static bool unidirectional(const Shape& from, const Shape& to) {
    if (from.size() > to.size()) return false;
    size_t offset = to.size() - from.size();
    for (size_t i = 0; i < from.size(); ++i)
        if (from[i] != 1 && !dims_match(from[i], to[i + offset])) return false;
    return true;
}

void infer_binary(NodeContext& ctx) {
    const Shape& a = ctx.shape(0);
    const Shape& b = ctx.shape(1);
    if (ctx.node().attr<BinaryAttrs>().kind != BinaryKind::Pow) ctx.require_same_dtype();  // Pow's exponent may differ
    auto out = broadcast(a, b);
    if (ctx.node().attr<BinaryAttrs>().kind == BinaryKind::PRelu) {
        // The slope broadcasts to X (one direction only): the output is X's shape.
        STRATA_CHECK(unidirectional(b, a), StatusCode::invalid_argument,
                     "{}: slope {} does not broadcast to the input {}", ctx.label(), shape_str(b), shape_str(a));
        out = a;
    }
    STRATA_CHECK(out.has_value(), StatusCode::invalid_argument, "{}: shapes {} and {} do not broadcast", ctx.label(),
                 shape_str(a), shape_str(b));
    ctx.set_output(0, ctx.dtype(0), *out);
}

void infer_gemm(NodeContext& ctx) {
    const Shape& a = ctx.shape(0);
    const Shape& b = ctx.shape(1);
    const auto& attrs = ctx.node().attr<GemmAttrs>();
    ctx.require_same_dtype();
    STRATA_CHECK(a.size() == 2 && b.size() == 2, StatusCode::invalid_argument, "{}: A {} and B {} must be 2-D",
                 ctx.label(), shape_str(a), shape_str(b));
    int64_t m = attrs.trans_a ? a[1] : a[0];
    int64_t k = attrs.trans_a ? a[0] : a[1];
    int64_t kb = attrs.trans_b ? b[1] : b[0];
    int64_t n = attrs.trans_b ? b[0] : b[1];
    STRATA_CHECK(dims_match(k, kb), StatusCode::invalid_argument,
                 "{}: inner dims differ: A {} (transA={}) and B {} (transB={})", ctx.label(), shape_str(a),
                 attrs.trans_a, shape_str(b), attrs.trans_b);
    Shape out{m, n};
    if (ctx.has_input(2)) {
        const Shape& c = ctx.shape(2);
        STRATA_CHECK(unidirectional(c, out),
                     StatusCode::invalid_argument, "{}: C {} does not broadcast to the output {}", ctx.label(),
                     shape_str(c), shape_str(out));
    }
    ctx.set_output(0, ctx.dtype(0), out);
}

void infer_matmul(NodeContext& ctx) {
    Shape a = ctx.shape(0);
    Shape b = ctx.shape(1);
    ctx.require_same_dtype();
    STRATA_CHECK(!a.empty() && !b.empty(), StatusCode::invalid_argument, "{}: scalars {} and {} cannot be multiplied",
                 ctx.label(), shape_str(a), shape_str(b));
    bool a_vector = a.size() == 1, b_vector = b.size() == 1;
    if (a_vector) a.insert(a.begin(), 1);  // numpy: a 1-D A is a row, a 1-D B a column; both dims are then dropped
    if (b_vector) b.push_back(1);
    int64_t k = a.back(), kb = b[b.size() - 2];
    STRATA_CHECK(dims_match(k, kb), StatusCode::invalid_argument, "{}: inner dims differ: {} and {}", ctx.label(),
                 shape_str(ctx.shape(0)), shape_str(ctx.shape(1)));
    auto batch = broadcast(Shape(a.begin(), a.end() - 2), Shape(b.begin(), b.end() - 2));
    STRATA_CHECK(batch.has_value(), StatusCode::invalid_argument, "{}: batch dims of {} and {} do not broadcast",
                 ctx.label(), shape_str(ctx.shape(0)), shape_str(ctx.shape(1)));
    Shape out = *batch;
    if (!a_vector) out.push_back(a[a.size() - 2]);
    if (!b_vector) out.push_back(b.back());
    ctx.set_output(0, ctx.dtype(0), out);
}

void infer_fully_connected(NodeContext& ctx) {
    const Shape& x = ctx.shape(0);
    const Shape& w = ctx.shape(1);
    ctx.require_same_dtype();
    STRATA_CHECK(x.size() == 2 && w.size() == 2 && dims_match(x[1], w[1]), StatusCode::invalid_argument,
                 "{}: X {} and W {} must be [N, K] and [M, K]", ctx.label(), shape_str(x), shape_str(w));
    if (ctx.has_input(2)) {
        const Shape& b = ctx.shape(2);
        STRATA_CHECK(b.size() == 1 && dims_match(b[0], w[0]), StatusCode::invalid_argument,
                     "{}: bias {} does not match the weight {}", ctx.label(), shape_str(b), shape_str(w));
    }
    ctx.set_output(0, ctx.dtype(0), {x[0], w[0]});
}

void infer_softmax(NodeContext& ctx) {
    const Shape& x = ctx.shape(0);
    ctx.axis(ctx.node().attr<SoftmaxAttrs>().axis, static_cast<int64_t>(x.size()), "axis");
    ctx.set_output(0, ctx.dtype(0), x);
}

void infer_reduce(NodeContext& ctx) {
    const Shape& x = ctx.shape(0);
    auto& a = ctx.node().attr<ReduceAttrs>();
    int64_t rank = static_cast<int64_t>(x.size());
    if (a.axes.empty() && ctx.has_input(1)) a.axes = ctx.required_param(std::nullopt, 1, "axes");
    if (a.axes.empty() && a.noop_with_empty_axes) {
        ctx.set_output(0, ctx.dtype(0), x);
        return;
    }
    std::vector<bool> reduced(x.size(), a.axes.empty());
    for (int64_t ax : a.axes) {
        int64_t i = ctx.axis(ax, rank, "axes entry");
        STRATA_CHECK(!reduced[static_cast<size_t>(i)], StatusCode::invalid_argument, "{}: axis {} appears twice",
                     ctx.label(), ax);
        reduced[static_cast<size_t>(i)] = true;
    }
    Shape out;
    for (size_t i = 0; i < x.size(); ++i) {
        if (!reduced[i]) out.push_back(x[i]);
        else if (a.keepdims) out.push_back(1);
    }
    ctx.set_output(0, ctx.dtype(0), out);
}

}  // namespace strata::ir::shapes
