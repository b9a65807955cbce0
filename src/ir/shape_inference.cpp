// shape_inference.cpp: the driver (node by node, dispatch on the op), the shared helpers of NodeContext, and the
// ops whose output simply follows their input. The op families live in shape_inference_<family>.cpp.
#include "ir/shape_inference.h"

#include <algorithm>

#include <fmt/ranges.h>

#include "ir/shape_inference_internal.h"

namespace strata::ir {
namespace shapes {

const Shape& NodeContext::shape(size_t i) const {
    ValueId id = node_.input(i);
    STRATA_CHECK(id != kNoValue, StatusCode::invalid_argument, "{}: input {} is missing", label(), i);
    const Value& v = graph_.value(id);
    STRATA_CHECK(v.has_shape, StatusCode::invalid_argument, "{}: input {} ('{}') has no inferred shape", label(), i,
                 v.name);
    return v.shape;
}

DType NodeContext::dtype(size_t i) const {
    shape(i);  // the same presence checks
    return graph_.value(node_.input(i)).dtype;
}

void NodeContext::set_output(size_t i, DType dtype, Shape shape) {
    STRATA_CHECK(i < node_.outputs.size() && node_.outputs[i] != kNoValue, StatusCode::invalid_argument,
                 "{}: output {} is missing", label(), i);
    Value& v = graph_.value(node_.outputs[i]);
    v.dtype = dtype;
    v.shape = std::move(shape);
    v.has_shape = true;
}

void NodeContext::require_same_dtype(size_t first) const {
    DType want = dtype(first);
    for (size_t i = first + 1; i < node_.inputs.size(); ++i) {
        if (!has_input(i)) continue;
        STRATA_CHECK(dtype(i) == want, StatusCode::invalid_argument, "{}: input {} is {} but input {} is {}", label(),
                     i, dtype_name(dtype(i)), first, dtype_name(want));
    }
}

void NodeContext::check_magnitude(const std::vector<int64_t>& v, const char* what) const {
    for (int64_t x : v)
        STRATA_CHECK(x >= -kMaxDim && x <= kMaxDim, StatusCode::invalid_argument,
                     "{}: {} entry {} is out of range (at most {} in magnitude)", label(), what, x, kMaxDim);
}

static std::vector<int64_t> read_int_constant(const Tensor& t, const std::string& label, const char* what) {
    std::vector<int64_t> r(static_cast<size_t>(t.numel()));
    if (t.dtype() == DType::i64) {
        std::copy_n(t.data<int64_t>(), r.size(), r.begin());
    } else {
        STRATA_CHECK(t.dtype() == DType::i32, StatusCode::invalid_argument, "{}: {} must be int64 or int32, not {}",
                     label, what, dtype_name(t.dtype()));
        std::copy_n(t.data<int32_t>(), r.size(), r.begin());
    }
    return r;
}

std::optional<std::vector<int64_t>> NodeContext::param(const std::optional<std::vector<int64_t>>& attr, size_t input,
                                                       const char* what) const {
    if (attr) return attr;
    ValueId id = node_.input(input);
    if (id == kNoValue) return std::nullopt;
    const Value& v = graph_.value(id);
    if (!v.constant)
        STRATA_UNSUPPORTED("dynamic {} of {} (input '{}' is computed, not a constant; fix the batch size and fold "
                           "constants first)",
                           what, label(), v.name);
    return read_int_constant(*v.constant, label(), what);
}

std::vector<int64_t> NodeContext::required_param(const std::optional<std::vector<int64_t>>& attr, size_t input,
                                                 const char* what) const {
    auto p = param(attr, input, what);
    STRATA_CHECK(p.has_value(), StatusCode::invalid_argument, "{}: the {} parameter is missing", label(), what);
    return *p;
}

int64_t NodeContext::axis(int64_t axis, int64_t rank, const char* what) const {
    STRATA_CHECK(axis >= -rank && axis < rank, StatusCode::invalid_argument,
                 "{}: {} {} is out of range for an input of rank {} (expected [{}, {}])", label(), what, axis, rank,
                 -rank, rank - 1);
    return axis < 0 ? axis + rank : axis;
}

int64_t product(const Shape& s, size_t begin, size_t end) {
    int64_t p = 1;
    for (size_t i = begin; i < end; ++i) p = mul_dims(p, s[i]);
    return p;
}

std::string list_str(const std::vector<int64_t>& v) { return fmt::format("[{}]", fmt::join(v, ",")); }

std::optional<Shape> broadcast(const Shape& a, const Shape& b) {
    size_t rank = std::max(a.size(), b.size());
    Shape out(rank);
    for (size_t i = 0; i < rank; ++i) {
        // Aligned from the right; a missing dim acts as 1.
        int64_t da = i < rank - a.size() ? 1 : a[i - (rank - a.size())];
        int64_t db = i < rank - b.size() ? 1 : b[i - (rank - b.size())];
        if (da == 1) out[i] = db;
        else if (db == 1) out[i] = da;
        else if (da < 0) out[i] = db;  // an unknown dim against n > 1 must be n (or 1) for the model to run
        else if (db < 0 || da == db) out[i] = da;
        else return std::nullopt;
    }
    return out;
}

// Unary, Identity, Dropout, Cast: the output is the input, in the input's dtype or Cast's target.
static void infer_same(NodeContext& ctx) {
    DType dtype = ctx.dtype(0);
    if (ctx.node().op == OpKind::Cast) dtype = ctx.node().attr<CastAttrs>().to;
    ctx.set_output(0, dtype, ctx.shape(0));
}

static void infer_dispatch(NodeContext& ctx) {
    switch (ctx.node().op) {
        case OpKind::Conv: return infer_conv(ctx);
        case OpKind::ConvTranspose: return infer_conv_transpose(ctx);
        case OpKind::SeparableConv: return infer_separable_conv(ctx);
        case OpKind::BatchNorm:
        case OpKind::InstanceNorm: return infer_norm(ctx);
        case OpKind::Unary:
        case OpKind::Cast:
        case OpKind::Identity:
        case OpKind::Dropout: return infer_same(ctx);
        case OpKind::Binary: return infer_binary(ctx);
        case OpKind::MaxPool:
        case OpKind::AveragePool: return infer_pool(ctx);
        case OpKind::GlobalAveragePool:
        case OpKind::GlobalMaxPool: return infer_global_pool(ctx);
        case OpKind::Gemm: return infer_gemm(ctx);
        case OpKind::MatMul: return infer_matmul(ctx);
        case OpKind::FullyConnected: return infer_fully_connected(ctx);
        case OpKind::Softmax:
        case OpKind::LogSoftmax: return infer_softmax(ctx);
        case OpKind::Reduce: return infer_reduce(ctx);
        case OpKind::Flatten: return infer_flatten(ctx);
        case OpKind::Reshape: return infer_reshape(ctx);
        case OpKind::Transpose: return infer_transpose(ctx);
        case OpKind::Concat: return infer_concat(ctx);
        case OpKind::Split: return infer_split(ctx);
        case OpKind::Slice: return infer_slice(ctx);
        case OpKind::Pad: return infer_pad(ctx);
        case OpKind::Squeeze: return infer_squeeze(ctx);
        case OpKind::Unsqueeze: return infer_unsqueeze(ctx);
        case OpKind::Tile: return infer_tile(ctx);
        case OpKind::Expand: return infer_expand(ctx);
        case OpKind::Shape: return infer_shape_op(ctx);
        case OpKind::Gather: return infer_gather(ctx);
        case OpKind::ConstantOfShape: return infer_constant_of_shape(ctx);
    }
    STRATA_ASSERT(false, "shape inference has no rule for {}", ctx.label());
}

}  // namespace shapes

void infer_node_shapes(Graph& graph, Node& node) {
    STRATA_CHECK(!node.outputs.empty(), StatusCode::invalid_argument, "{} has no outputs", node_label(node));
    try {
        shapes::NodeContext ctx(graph, node);
        shapes::infer_dispatch(ctx);
    } catch (const std::bad_variant_access&) {
        STRATA_ASSERT(false, "{} carries the attrs struct of another op", node_label(node));
    }
}

void infer_shapes(Graph& graph) {
    for (ValueId id : graph.inputs())
        STRATA_CHECK(graph.value(id).has_shape, StatusCode::invalid_argument, "graph '{}': input '{}' has no shape",
                     graph.name, graph.value(id).name);
    for (Node& node : graph.nodes()) infer_node_shapes(graph, node);
}

}  // namespace strata::ir
