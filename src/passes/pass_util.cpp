// pass_util.cpp: helpers shared by the passes (see pass_util.h).
#include "passes/pass_util.h"

#include "core/check.h"
#include "ir/shape_inference.h"

namespace strata::passes {

std::optional<size_t> sole_reader(const ir::Graph& graph, ir::ValueId v) {
    if (graph.is_graph_output(v)) return std::nullopt;
    std::vector<size_t> readers = graph.consumers(v);
    if (readers.size() != 1) return std::nullopt;
    return readers[0];
}

bool is_unary(const ir::Node& node, ir::UnaryKind kind) {
    return node.op == ir::OpKind::Unary && node.inputs.size() == 1 && node.outputs.size() == 1 &&
           node.attr<ir::UnaryAttrs>().kind == kind;
}

bool is_binary(const ir::Node& node, ir::BinaryKind kind) {
    return node.op == ir::OpKind::Binary && node.inputs.size() == 2 && node.outputs.size() == 1 &&
           node.attr<ir::BinaryAttrs>().kind == kind;
}

std::optional<float> scalar_constant(const ir::Graph& graph, ir::ValueId v) {
    if (!graph.is_constant(v)) return std::nullopt;
    const Tensor& t = *graph.value(v).constant;
    if (t.dtype() != DType::f32 || t.numel() != 1) return std::nullopt;
    return t.data<float>()[0];
}

bool is_f32_constant(const ir::Graph& graph, ir::ValueId v, const Shape& shape) {
    if (!graph.is_constant(v)) return false;
    const Tensor& t = *graph.value(v).constant;
    return t.dtype() == DType::f32 && t.shape() == shape;
}

bool infer_node_shapes_if_static(ir::Graph& graph, ir::Node& node) {
    bool inputs_known = true;
    for (ir::ValueId in : node.inputs)
        if (in != ir::kNoValue && !graph.value(in).has_shape) inputs_known = false;
    if (inputs_known && !node.outputs.empty()) {
        try {
            ir::infer_node_shapes(graph, node);
            return true;
        } catch (const Error& e) {
            if (e.code() != StatusCode::unsupported) throw;
        }
    }
    for (ir::ValueId out : node.outputs)
        if (out != ir::kNoValue) graph.value(out).has_shape = false;
    return false;
}

void NodeEraser::kill(size_t index) {
    STRATA_ASSERT(index < dead_.size(), "node {} killed but the eraser was made for {} nodes", index, dead_.size());
    dead_[index] = true;
    graph_.nodes()[index].inputs.clear();
    graph_.nodes()[index].outputs.clear();
}

size_t NodeEraser::erase() {
    std::vector<ir::Node>& nodes = graph_.nodes();
    STRATA_ASSERT(nodes.size() == dead_.size(), "nodes were added or removed while an eraser was live");
    std::vector<ir::Node> kept;
    kept.reserve(nodes.size());
    for (size_t i = 0; i < nodes.size(); ++i)
        if (!dead_[i]) kept.push_back(std::move(nodes[i]));
    size_t erased = nodes.size() - kept.size();
    nodes = std::move(kept);
    dead_.assign(nodes.size(), false);
    return erased;
}

}  // namespace strata::passes
