// interpreter.cpp: the reference backend as an interpreter (reference.h). run_reference walks a private copy of
// the graph node by node: a parameter input computed earlier (a Reshape shape from Shape -> Gather -> Concat) is
// made constant so absorb_constant_params moves it into attrs (NOTE [constant parameters] in graph.h), then the
// node's shapes are inferred from the real input shapes, then its reference kernel runs. No planning, no reuse of
// memory: the oracle should be obviously right, not fast.
#include <map>
#include <unordered_map>

#include "backends/reference/kernels.h"
#include "backends/reference/reference.h"
#include "core/check.h"
#include "ir/shape_inference.h"

namespace strata::backends {

namespace {
// The first input position that carries a parameter (NOTE [constant parameters]); inputs before it are data.
size_t first_parameter_input(ir::OpKind op) {
    switch (op) {
        case ir::OpKind::ConstantOfShape: return 0;
        case ir::OpKind::Reshape:
        case ir::OpKind::Slice:
        case ir::OpKind::Pad:
        case ir::OpKind::Split:
        case ir::OpKind::Squeeze:
        case ir::OpKind::Unsqueeze:
        case ir::OpKind::Tile:
        case ir::OpKind::Expand:
        case ir::OpKind::Reduce:           // axes (opset 18)
        case ir::OpKind::Unary: return 1;  // Clip's min and max
        default: return SIZE_MAX;
    }
}

// Sets each graph input's shape from the tensor given for it, after checking that the tensor fits.
void bind_inputs(ir::Graph& g, const std::map<std::string, Tensor>& inputs) {
    for (ir::ValueId id : g.inputs()) {
        ir::Value& v = g.value(id);
        auto it = inputs.find(v.name);
        STRATA_CHECK(it != inputs.end(), StatusCode::invalid_argument, "graph '{}': input '{}' is not given", g.name,
                     v.name);
        const Tensor& t = it->second;
        STRATA_CHECK(t.dtype() == v.dtype, StatusCode::invalid_argument, "graph '{}': input '{}' is {}, expected {}",
                     g.name, v.name, dtype_name(t.dtype()), dtype_name(v.dtype));
        if (v.has_shape) {
            bool fits = t.rank() == static_cast<int>(v.shape.size());
            for (size_t d = 0; fits && d < v.shape.size(); ++d) fits = v.shape[d] < 0 || v.shape[d] == t.shape()[d];
            STRATA_CHECK(fits, StatusCode::invalid_argument, "graph '{}': input '{}' has shape {}, expected {}", g.name,
                         v.name, shape_str(t.shape()), shape_str(v.shape));
        }
        v.shape = t.shape();
        v.has_shape = true;
    }
    for (const auto& [name, t] : inputs) {
        auto id = g.find_value(name);
        STRATA_CHECK(id && g.is_graph_input(*id), StatusCode::invalid_argument,
                     "graph '{}': '{}' is given but is not a graph input", g.name, name);
    }
}
}  // namespace

std::vector<Tensor> evaluate_node(const ir::Graph& graph, const ir::Node& node, std::span<const Tensor> inputs) {
    std::vector<Tensor> outputs;
    for (ir::ValueId id : node.outputs) {
        const ir::Value& v = graph.value(id);
        bool known = v.has_shape;
        for (int64_t d : v.shape) known = known && d >= 0;
        STRATA_CHECK(known, StatusCode::invalid_argument, "{}: output '{}' has no static shape ({})",
                     ir::node_label(node), v.name, v.has_shape ? shape_str(v.shape) : "unknown rank");
        outputs.push_back(Tensor::empty(v.dtype, v.shape));
    }
    reference::reference_kernel(node.op)(node, inputs, outputs, KernelContext{});
    return outputs;
}

std::map<std::string, Tensor> run_reference(const ir::Graph& graph, const std::map<std::string, Tensor>& inputs) {
    ir::Graph g = graph;
    bind_inputs(g, inputs);
    std::unordered_map<ir::ValueId, Tensor> computed;
    for (ir::ValueId id : g.inputs()) computed[id] = inputs.at(g.value(id).name);
    for (size_t i = 0; i < g.nodes().size(); ++i) {
        ir::Node& node = g.nodes()[i];
        for (size_t j = first_parameter_input(node.op); j < node.inputs.size(); ++j) {
            auto it = computed.find(node.inputs[j]);
            if (it != computed.end() && !g.is_constant(node.inputs[j])) g.value(node.inputs[j]).constant = it->second;
        }
        ir::absorb_constant_params(g, node);
        ir::infer_node_shapes(g, node);
        std::vector<Tensor> args;
        for (ir::ValueId id : node.inputs) {
            auto it = computed.find(id);
            if (id == ir::kNoValue)
                args.emplace_back();
            else if (it != computed.end())
                args.push_back(it->second);
            else if (g.is_constant(id))
                args.push_back(*g.value(id).constant);
            else
                STRATA_ASSERT(false, "{}: input '{}' has not been computed", ir::node_label(node), g.value(id).name);
        }
        std::vector<Tensor> outs = evaluate_node(g, node, args);
        for (size_t k = 0; k < outs.size(); ++k) computed[node.outputs[k]] = outs[k];
    }
    std::map<std::string, Tensor> result;
    for (ir::ValueId id : g.outputs()) {
        auto it = computed.find(id);
        STRATA_ASSERT(it != computed.end() || g.is_constant(id), "graph output '{}' is never computed",
                      g.value(id).name);
        result[g.value(id).name] = it != computed.end() ? it->second : *g.value(id).constant;
    }
    return result;
}

}  // namespace strata::backends
