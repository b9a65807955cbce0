// shape_inference_internal.h: what the per-family shape inference files share: a view of one node's inputs with
// checked accessors, the arithmetic on possibly-unknown (-1) dims, and one entry point per op family.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/check.h"
#include "ir/graph.h"

namespace strata::ir::shapes {

inline constexpr int64_t kUnknown = -1;
/// No dim, pad, stride or repeat count may exceed this: it keeps every size computed from them free of overflow.
inline constexpr int64_t kMaxDim = int64_t{1} << 40;

/// One node being inferred: its graph, the node itself, and the output setter. Accessors throw Errors that name
/// the node and op.
class NodeContext {
public:
    NodeContext(Graph& graph, Node& node) : graph_(graph), node_(node) {}

    Graph& graph() { return graph_; }
    Node& node() { return node_; }
    std::string label() const { return node_label(node_); }
    size_t num_inputs() const { return node_.inputs.size(); }
    bool has_input(size_t i) const { return node_.input(i) != kNoValue; }
    /// Shape of input i; throws when the input is absent or has no inferred shape.
    const Shape& shape(size_t i) const;
    DType dtype(size_t i) const;
    int64_t rank(size_t i) const { return static_cast<int64_t>(shape(i).size()); }
    /// Sets output i's dtype and shape.
    void set_output(size_t i, DType dtype, Shape shape);

    /// A parameter kept in attrs (NOTE [constant parameters]); when attrs lack it, a constant input at position
    /// `input` is read directly, a computed input throws "unsupported: dynamic <param>", and no input gives nullopt.
    std::optional<std::vector<int64_t>> param(const std::optional<std::vector<int64_t>>& attr, size_t input,
                                              const char* what) const;
    /// Like param(), but the parameter must be present.
    std::vector<int64_t> required_param(const std::optional<std::vector<int64_t>>& attr, size_t input,
                                        const char* what) const;

    /// Checks that every present input from `first` on has input `first`'s dtype (ONNX's single type T).
    void require_same_dtype(size_t first = 0) const;

    /// Checks that every entry of a parameter list is within +-kMaxDim (a corrupt file must not overflow sizes).
    void check_magnitude(const std::vector<int64_t>& v, const char* what) const;

    /// Normalises a possibly negative axis into [0, rank); throws naming the op and the attribute.
    int64_t axis(int64_t axis, int64_t rank, const char* what) const;

private:
    Graph& graph_;
    Node& node_;
};

/// a*b where either may be unknown.
inline int64_t mul_dims(int64_t a, int64_t b) { return a < 0 || b < 0 ? kUnknown : a * b; }
/// Product of dims [begin, end), unknown if any is.
int64_t product(const Shape& s, size_t begin, size_t end);
/// Two dims are compatible when equal or when either is unknown.
inline bool dims_match(int64_t a, int64_t b) { return a < 0 || b < 0 || a == b; }
/// A parameter list as written ("[1,-1]"); shape_str would print its negative entries as unknown dims.
std::string list_str(const std::vector<int64_t>& v);
/// numpy (multidirectional) broadcast of two shapes; nullopt when they do not broadcast.
std::optional<Shape> broadcast(const Shape& a, const Shape& b);

// One entry per op family; each checks its inputs and sets the node's outputs (and may complete its attrs).
void infer_conv(NodeContext& ctx);
void infer_conv_transpose(NodeContext& ctx);
void infer_separable_conv(NodeContext& ctx);
void infer_pool(NodeContext& ctx);
void infer_global_pool(NodeContext& ctx);
void infer_norm(NodeContext& ctx);
void infer_binary(NodeContext& ctx);
void infer_gemm(NodeContext& ctx);
void infer_matmul(NodeContext& ctx);
void infer_fully_connected(NodeContext& ctx);
void infer_softmax(NodeContext& ctx);
void infer_reduce(NodeContext& ctx);
void infer_flatten(NodeContext& ctx);
void infer_reshape(NodeContext& ctx);
void infer_transpose(NodeContext& ctx);
void infer_concat(NodeContext& ctx);
void infer_split(NodeContext& ctx);
void infer_slice(NodeContext& ctx);
void infer_pad(NodeContext& ctx);
void infer_squeeze(NodeContext& ctx);
void infer_unsqueeze(NodeContext& ctx);
void infer_tile(NodeContext& ctx);
void infer_expand(NodeContext& ctx);
void infer_shape_op(NodeContext& ctx);
void infer_gather(NodeContext& ctx);
void infer_constant_of_shape(NodeContext& ctx);

}  // namespace strata::ir::shapes
