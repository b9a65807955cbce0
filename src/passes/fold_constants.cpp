// fold_constants.cpp: evaluates, once while building, what does not depend on the graph inputs.
//
// Matches: a node whose inputs are all constants (or absent), and a Shape node whose input has a fully known shape
// (no -1 dims: the batch has been fixed by set_batch). Nodes are visited in topological order, and each first absorbs
// the parameter inputs that earlier folds made constant (NOTE [constant parameters] in ir/graph.h), so one run folds
// whole chains (Shape -> Gather -> Unsqueeze -> Concat) and the Reshape they fed becomes a plain Reshape. Shapes are
// re-inferred as the walk goes, so a Shape of that Reshape's output folds in the same run.
// Not folded: a node producing a graph output (outputs stay produced by a node), and a node whose results would
// exceed kMaxFoldedBytes (a ConstantOfShape of 100 MB is cheaper to compute than to store in a plan).
// Safe because the reference backend computes the same values the node would compute at run time.
#include <algorithm>

#include "backends/reference/reference.h"
#include "core/check.h"
#include "ir/shape_inference.h"
#include "passes/pass_util.h"
#include "passes/passes.h"

namespace strata::passes {
namespace {

constexpr size_t kMaxFoldedBytes = size_t{16} << 20;

bool fully_known(const ir::Value& v) {
    return v.has_shape && std::none_of(v.shape.begin(), v.shape.end(), [](int64_t d) { return d < 0; });
}

bool inputs_constant(const ir::Graph& graph, const ir::Node& node) {
    return std::all_of(node.inputs.begin(), node.inputs.end(),
                       [&](ir::ValueId v) { return v == ir::kNoValue || graph.is_constant(v); });
}

bool outputs_present(const ir::Node& node) {
    return std::none_of(node.outputs.begin(), node.outputs.end(), [](ir::ValueId v) { return v == ir::kNoValue; });
}

bool feeds_graph_output(const ir::Graph& graph, const ir::Node& node) {
    return std::any_of(node.outputs.begin(), node.outputs.end(),
                       [&](ir::ValueId v) { return graph.is_graph_output(v); });
}

// Shape of a static input: the dims [start, end) with ONNX's rules (negative counts from the back, then clamped).
Tensor static_shape_of(const ir::Graph& graph, const ir::Node& node) {
    const Shape& dims = graph.value(node.inputs[0]).shape;
    const auto& attrs = node.attr<ir::ShapeAttrs>();
    int64_t rank = static_cast<int64_t>(dims.size());
    auto clamp = [&](int64_t i) { return std::clamp(i < 0 ? i + rank : i, int64_t{0}, rank); };
    int64_t start = clamp(attrs.start), end = clamp(attrs.end.value_or(rank));
    int64_t n = std::max(end - start, int64_t{0});
    Tensor t = Tensor::empty(DType::i64, {n});
    for (int64_t i = 0; i < n; ++i) t.data<int64_t>()[i] = dims[static_cast<size_t>(start + i)];
    return t;
}

// Evaluates the node if its results are small enough; empty when it is left in place.
std::vector<Tensor> evaluate(ir::Graph& graph, ir::Node& node) {
    ir::infer_node_shapes(graph, node);  // the reference kernels and the size cap need the output shapes
    size_t bytes = 0;
    for (ir::ValueId out : node.outputs) {
        const ir::Value& v = graph.value(out);
        if (!fully_known(v)) return {};
        bytes += static_cast<size_t>(shape_numel(v.shape)) * dtype_size(v.dtype);
    }
    if (bytes > kMaxFoldedBytes) return {};
    std::vector<Tensor> inputs;
    for (ir::ValueId in : node.inputs) inputs.push_back(in == ir::kNoValue ? Tensor{} : *graph.value(in).constant);
    return backends::evaluate_node(graph, node, inputs);
}

// The node's results as constants, or empty when it does not fold.
std::vector<Tensor> try_fold(ir::Graph& graph, ir::Node& node) {
    if (node.outputs.empty() || !outputs_present(node) || feeds_graph_output(graph, node)) return {};
    if (node.op == ir::OpKind::Shape && !node.inputs.empty() && node.inputs[0] != ir::kNoValue &&
        fully_known(graph.value(node.inputs[0])))
        return {static_shape_of(graph, node)};
    if (!inputs_constant(graph, node)) return {};
    try {
        return evaluate(graph, node);
    } catch (const Error& e) {
        // A node strata cannot evaluate yet is left for the runtime, which reports it if it cannot run it either.
        if (e.code() == StatusCode::unsupported) return {};
        throw;
    }
}

}  // namespace

bool fold_constants(ir::Graph& graph) {
    NodeEraser eraser(graph);
    bool changed = false;
    for (size_t i = 0; i < graph.nodes().size(); ++i) {
        ir::Node& node = graph.nodes()[i];
        changed |= ir::absorb_constant_params(graph, node);
        std::vector<Tensor> results = try_fold(graph, node);
        if (results.empty()) {
            // A node that just absorbed a parameter may now have static shapes, which a later Shape node needs.
            infer_node_shapes_if_static(graph, node);
            continue;
        }
        STRATA_ASSERT(results.size() == node.outputs.size(), "{}: folding gave {} results for {} outputs",
                      ir::node_label(node), results.size(), node.outputs.size());
        for (size_t k = 0; k < results.size(); ++k) {
            ir::Value& v = graph.value(node.outputs[k]);
            v.dtype = results[k].dtype();
            v.shape = results[k].shape();
            v.has_shape = true;
            v.constant = std::move(results[k]);
        }
        eraser.kill(i);
    }
    return eraser.erase() > 0 || changed;
}

}  // namespace strata::passes
