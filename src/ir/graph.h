// graph.h: strata's IR. A Graph owns Values (tensors flowing between nodes, with dtype, shape and, for weights and
// folded results, constant data) and Nodes (one op each, from the closed list in ops.def, with a typed attrs struct).
// Nodes are kept in topological order. Producer/consumer queries scan the node list: graphs hold hundreds of nodes,
// and derived indices that every pass must keep in step are a source of bugs we do not need.
//
// NOTE [constant parameters]
// ONNX passes some parameters as inputs (Reshape's shape, Slice's starts/ends/axes/steps, Pad's pads and value,
// Split's sizes, Squeeze/Unsqueeze's axes, Tile's repeats, Expand's shape, Clip's min/max, ConstantOfShape's shape).
// strata keeps them in the attrs struct. absorb_constant_params() moves a parameter input into attrs when it is a
// constant and drops the input; the frontend calls it on import and fold_constants calls it after folding
// (a Shape->Gather->Concat chain becomes constant once the batch size is fixed). Shape inference and kernels read
// attrs only; a parameter still fed by a computed value when shapes are inferred is "unsupported: dynamic ...".
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ir/attrs.h"
#include "strata/tensor.h"

namespace strata::ir {

enum class OpKind : uint8_t {
#define STRATA_OP(name, attrs) name,
#include "ir/ops.def"
#undef STRATA_OP
};
inline constexpr int kOpCount = 0
#define STRATA_OP(name, attrs) +1
#include "ir/ops.def"
#undef STRATA_OP
    ;
static_assert(kOpCount == 34, "ops.def changed: update shape inference, the reference backend and this count");

const char* op_name(OpKind op);

using ValueId = int32_t;
inline constexpr ValueId kNoValue = -1;

struct Value {
    std::string name;
    DType dtype = DType::f32;
    Shape shape;             ///< dims of -1 are unknown (the dynamic batch before building)
    bool has_shape = false;  ///< false until the rank is known
    std::optional<Tensor> constant;  ///< weights and folded constants; such a value has no producer
};

struct Node {
    std::string name;
    OpKind op = OpKind::Identity;
    std::vector<ValueId> inputs;  ///< kNoValue marks an omitted optional input
    std::vector<ValueId> outputs;
    Attrs attrs;

    template <class A> A& attr() { return std::get<A>(attrs); }
    template <class A> const A& attr() const { return std::get<A>(attrs); }
    /// The input at position i, or kNoValue when absent.
    ValueId input(size_t i) const { return i < inputs.size() ? inputs[i] : kNoValue; }
};

class Graph {
public:
    std::string name;

    ValueId add_value(std::string name, DType dtype, Shape shape, bool has_shape = true);
    /// A value holding constant data (a weight or a folded result).
    ValueId add_constant(std::string name, Tensor data);
    /// Appends a node (callers append in topological order or call topo_sort()). Returns its index.
    size_t add_node(OpKind op, std::string name, std::vector<ValueId> inputs, std::vector<ValueId> outputs,
                    Attrs attrs);
    /// A value name not yet used, built from `base`.
    std::string unique_name(const std::string& base);

    Value& value(ValueId id) { return values_.at(static_cast<size_t>(id)); }
    const Value& value(ValueId id) const { return values_.at(static_cast<size_t>(id)); }
    size_t num_values() const { return values_.size(); }
    std::optional<ValueId> find_value(const std::string& name) const;
    bool is_constant(ValueId id) const { return id != kNoValue && value(id).constant.has_value(); }

    std::vector<Node>& nodes() { return nodes_; }
    const std::vector<Node>& nodes() const { return nodes_; }
    std::vector<ValueId>& inputs() { return inputs_; }
    const std::vector<ValueId>& inputs() const { return inputs_; }
    std::vector<ValueId>& outputs() { return outputs_; }
    const std::vector<ValueId>& outputs() const { return outputs_; }

    /// Index of the node producing `id`, or nullopt (graph inputs, constants).
    std::optional<size_t> producer(ValueId id) const;
    /// Indices of nodes reading `id`, in node order (a node reading it twice appears once).
    std::vector<size_t> consumers(ValueId id) const;
    bool is_graph_output(ValueId id) const;
    bool is_graph_input(ValueId id) const;

    /// Makes every reader of `from` (nodes and graph outputs) read `to` instead.
    void replace_uses(ValueId from, ValueId to);
    /// Removes the nodes for which `pred` is true.
    void remove_nodes(const std::function<bool(const Node&)>& pred);
    /// Removes nodes none of whose outputs are read (by a node or as a graph output), repeatedly. Returns the count.
    size_t remove_unused_nodes();
    /// Reorders nodes topologically (stable where already ordered). Throws on a cycle.
    void topo_sort();

private:
    std::vector<Value> values_;
    std::vector<Node> nodes_;
    std::vector<ValueId> inputs_;
    std::vector<ValueId> outputs_;
};

/// Moves constant parameter inputs into the node's attrs (NOTE [constant parameters]). Returns true if it changed.
bool absorb_constant_params(Graph& graph, Node& node);

/// "Conv 'name'" for error messages.
std::string node_label(const Node& node);

}  // namespace strata::ir
