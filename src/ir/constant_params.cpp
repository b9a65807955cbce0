// constant_params.cpp: ir::absorb_constant_params, NOTE [constant parameters] in graph.h. ONNX passes some
// parameters as inputs; once such an input is a constant, its values move into the node's attrs and the input is
// dropped (set to kNoValue, trailing ones truncated) so that shape inference and kernels read attrs only.
#include <cmath>

#include "core/check.h"
#include "core/half.h"
#include "ir/graph.h"

namespace strata::ir {
namespace {

// Integer parameters (shapes, axes, pads, ...) are int64 in ONNX; int32 is accepted too.
std::vector<int64_t> read_ints(const Graph& g, const Node& node, size_t i, const char* what) {
    const Tensor& t = *g.value(node.inputs[i]).constant;
    STRATA_CHECK(t.dtype() == DType::i64 || t.dtype() == DType::i32, StatusCode::invalid_argument,
                 "{}: input {} ({}) must be int64, got {}", node_label(node), i, what, dtype_name(t.dtype()));
    STRATA_CHECK(t.rank() <= 1, StatusCode::invalid_argument, "{}: input {} ({}) must be 1-D, got shape {}",
                 node_label(node), i, what, shape_str(t.shape()));
    std::vector<int64_t> v(static_cast<size_t>(t.numel()));
    for (size_t k = 0; k < v.size(); ++k) v[k] = t.dtype() == DType::i64 ? t.data<int64_t>()[k] : t.data<int32_t>()[k];
    return v;
}

// A one-element numeric constant (Pad's value, Clip's bounds) as float.
float read_scalar(const Graph& g, const Node& node, size_t i, const char* what) {
    const Tensor& t = *g.value(node.inputs[i]).constant;
    STRATA_CHECK(t.numel() == 1, StatusCode::invalid_argument, "{}: input {} ({}) must hold one value, got shape {}",
                 node_label(node), i, what, shape_str(t.shape()));
    switch (t.dtype()) {
        case DType::f32:
            return t.data<float>()[0];
        case DType::f16:
            return fp16_to_float(t.data<uint16_t>()[0]);
        case DType::bf16:
            return bf16_to_float(t.data<uint16_t>()[0]);
        case DType::i8:
            return t.data<int8_t>()[0];
        case DType::u8:
        case DType::boolean:
            return t.data<uint8_t>()[0];
        case DType::i32:
            return static_cast<float>(t.data<int32_t>()[0]);
        case DType::i64:
            return static_cast<float>(t.data<int64_t>()[0]);
    }
    return NAN;
}

// Walks the parameter inputs of one node: take(i) says whether input i is a constant to absorb, and drop()
// removes every absorbed input at the end.
class Absorber {
public:
    Absorber(Graph& g, Node& n) : g_(g), n_(n) {}
    bool take(size_t i) {
        if (i >= n_.inputs.size() || !g_.is_constant(n_.inputs[i])) return false;
        taken_.push_back(i);
        return true;
    }
    std::vector<int64_t> ints(size_t i, const char* what) const { return read_ints(g_, n_, i, what); }
    float scalar(size_t i, const char* what) const { return read_scalar(g_, n_, i, what); }
    bool finish() {
        for (size_t i : taken_) n_.inputs[i] = kNoValue;
        while (!n_.inputs.empty() && n_.inputs.back() == kNoValue) n_.inputs.pop_back();
        return !taken_.empty();
    }

private:
    Graph& g_;
    Node& n_;
    std::vector<size_t> taken_;
};

void absorb_slice(Absorber& a, SliceAttrs& s) {
    if (a.take(1)) s.starts = a.ints(1, "starts");
    if (a.take(2)) s.ends = a.ints(2, "ends");
    if (a.take(3)) s.axes = a.ints(3, "axes");
    if (a.take(4)) s.steps = a.ints(4, "steps");
}

}  // namespace

bool absorb_constant_params(Graph& graph, Node& node) {
    Absorber a(graph, node);
    switch (node.op) {
        case OpKind::Reshape:
            if (a.take(1)) node.attr<ReshapeAttrs>().shape = a.ints(1, "shape");
            break;
        case OpKind::Slice:
            absorb_slice(a, node.attr<SliceAttrs>());
            break;
        case OpKind::Pad:
            if (a.take(1)) node.attr<PadAttrs>().pads = a.ints(1, "pads");
            if (a.take(2)) node.attr<PadAttrs>().value = a.scalar(2, "constant_value");
            break;
        case OpKind::Split:
            if (a.take(1)) node.attr<SplitAttrs>().split = a.ints(1, "split");
            break;
        case OpKind::Squeeze:
        case OpKind::Unsqueeze:
            if (a.take(1)) node.attr<AxesAttrs>().axes = a.ints(1, "axes");
            break;
        case OpKind::Tile:
            if (a.take(1)) node.attr<TileAttrs>().repeats = a.ints(1, "repeats");
            break;
        case OpKind::Expand:
            if (a.take(1)) node.attr<ExpandAttrs>().shape = a.ints(1, "shape");
            break;
        case OpKind::ConstantOfShape:
            if (a.take(0)) node.attr<ConstantOfShapeAttrs>().shape = a.ints(0, "shape");
            break;
        case OpKind::Reduce:
            if (a.take(1)) node.attr<ReduceAttrs>().axes = a.ints(1, "axes");
            break;
        case OpKind::Unary:
            if (node.attr<UnaryAttrs>().kind != UnaryKind::Clip) break;
            if (a.take(1)) node.attr<UnaryAttrs>().alpha = a.scalar(1, "min");
            if (a.take(2)) node.attr<UnaryAttrs>().beta = a.scalar(2, "max");
            break;
        default:
            break;
    }
    return a.finish();
}

}  // namespace strata::ir
