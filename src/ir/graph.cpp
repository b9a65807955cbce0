// graph.cpp: Graph construction, queries and the few structural edits passes share.
#include "ir/graph.h"

#include <algorithm>
#include <unordered_set>

#include "core/check.h"

namespace strata::ir {

const char* op_name(OpKind op) {
    switch (op) {
#define STRATA_OP(name, attrs) \
    case OpKind::name: return #name;
#include "ir/ops.def"
#undef STRATA_OP
    }
    return "?";
}

std::string node_label(const Node& node) { return fmt::format("{} '{}'", op_name(node.op), node.name); }

ValueId Graph::add_value(std::string name, DType dtype, Shape shape, bool has_shape) {
    Value v;
    v.name = std::move(name);
    v.dtype = dtype;
    v.shape = std::move(shape);
    v.has_shape = has_shape;
    values_.push_back(std::move(v));
    return static_cast<ValueId>(values_.size() - 1);
}

ValueId Graph::add_constant(std::string name, Tensor data) {
    ValueId id = add_value(std::move(name), data.dtype(), data.shape());
    values_.back().constant = std::move(data);
    return id;
}

size_t Graph::add_node(OpKind op, std::string name, std::vector<ValueId> inputs, std::vector<ValueId> outputs,
                       Attrs attrs) {
    Node n;
    n.op = op;
    n.name = std::move(name);
    n.inputs = std::move(inputs);
    n.outputs = std::move(outputs);
    n.attrs = std::move(attrs);
    nodes_.push_back(std::move(n));
    return nodes_.size() - 1;
}

std::string Graph::unique_name(const std::string& base) {
    if (!find_value(base)) return base;
    for (int i = 1;; ++i) {
        std::string candidate = fmt::format("{}_{}", base, i);
        if (!find_value(candidate)) return candidate;
    }
}

std::optional<ValueId> Graph::find_value(const std::string& name) const {
    for (size_t i = 0; i < values_.size(); ++i)
        if (values_[i].name == name) return static_cast<ValueId>(i);
    return std::nullopt;
}

std::optional<size_t> Graph::producer(ValueId id) const {
    for (size_t i = 0; i < nodes_.size(); ++i)
        for (ValueId out : nodes_[i].outputs)
            if (out == id) return i;
    return std::nullopt;
}

std::vector<size_t> Graph::consumers(ValueId id) const {
    std::vector<size_t> result;
    for (size_t i = 0; i < nodes_.size(); ++i)
        if (std::find(nodes_[i].inputs.begin(), nodes_[i].inputs.end(), id) != nodes_[i].inputs.end())
            result.push_back(i);
    return result;
}

bool Graph::is_graph_output(ValueId id) const {
    return std::find(outputs_.begin(), outputs_.end(), id) != outputs_.end();
}

bool Graph::is_graph_input(ValueId id) const {
    return std::find(inputs_.begin(), inputs_.end(), id) != inputs_.end();
}

void Graph::replace_uses(ValueId from, ValueId to) {
    for (Node& n : nodes_)
        std::replace(n.inputs.begin(), n.inputs.end(), from, to);
    std::replace(outputs_.begin(), outputs_.end(), from, to);
}

void Graph::remove_nodes(const std::function<bool(const Node&)>& pred) {
    nodes_.erase(std::remove_if(nodes_.begin(), nodes_.end(), pred), nodes_.end());
}

size_t Graph::remove_unused_nodes() {
    size_t removed_total = 0;
    for (;;) {
        std::unordered_set<ValueId> read(outputs_.begin(), outputs_.end());
        for (const Node& n : nodes_) read.insert(n.inputs.begin(), n.inputs.end());
        size_t before = nodes_.size();
        remove_nodes([&](const Node& n) {
            return std::none_of(n.outputs.begin(), n.outputs.end(), [&](ValueId v) { return read.count(v) > 0; });
        });
        size_t removed = before - nodes_.size();
        if (removed == 0) return removed_total;
        removed_total += removed;
    }
}

void Graph::topo_sort() {
    // Kahn's algorithm, always taking the earliest ready node so that an ordered graph stays as it is.
    std::unordered_set<ValueId> available(inputs_.begin(), inputs_.end());
    for (size_t i = 0; i < values_.size(); ++i)
        if (values_[i].constant) available.insert(static_cast<ValueId>(i));
    // Values no node produces (e.g. unlisted inputs) count as available too: the verifier reports those.
    std::unordered_set<ValueId> produced;
    for (const Node& n : nodes_) produced.insert(n.outputs.begin(), n.outputs.end());
    for (size_t i = 0; i < values_.size(); ++i)
        if (!produced.count(static_cast<ValueId>(i))) available.insert(static_cast<ValueId>(i));

    std::vector<Node> sorted;
    std::vector<bool> done(nodes_.size(), false);
    sorted.reserve(nodes_.size());
    while (sorted.size() < nodes_.size()) {
        bool progressed = false;
        for (size_t i = 0; i < nodes_.size(); ++i) {
            if (done[i]) continue;
            const Node& n = nodes_[i];
            bool ready = std::all_of(n.inputs.begin(), n.inputs.end(),
                                     [&](ValueId v) { return v == kNoValue || available.count(v); });
            if (!ready) continue;
            available.insert(n.outputs.begin(), n.outputs.end());
            sorted.push_back(n);
            done[i] = true;
            progressed = true;
            break;
        }
        STRATA_CHECK(progressed, StatusCode::invalid_argument, "graph '{}' has a cycle", name);
    }
    nodes_ = std::move(sorted);
}

}  // namespace strata::ir
