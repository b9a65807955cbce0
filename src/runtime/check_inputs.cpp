// check_inputs.cpp: the checks Context::run makes before touching anything: every input present, none unknown,
// dtype and shape exactly as built. Each failure names the input and both what was expected and what came.
#include <fmt/format.h>

#include "core/check.h"
#include "runtime/check_inputs.h"

namespace strata::runtime {

namespace {

std::string describe(DType dtype, const Shape& shape) { return fmt::format("{} {}", dtype_name(dtype), shape_str(shape)); }

std::string input_names(const ir::Graph& graph) {
    std::string r;
    for (ir::ValueId in : graph.inputs()) r += (r.empty() ? "'" : ", '") + graph.value(in).name + "'";
    return r.empty() ? "none" : r;
}

}  // namespace

void check_inputs(const ir::Graph& graph, const std::map<std::string, Tensor>& inputs) {
    for (const auto& [name, tensor] : inputs) {
        auto id = graph.find_value(name);
        STRATA_CHECK(id && graph.is_graph_input(*id), StatusCode::invalid_argument,
                     "unknown input '{}' (the engine's inputs: {})", name, input_names(graph));
    }
    for (ir::ValueId in : graph.inputs()) {
        const ir::Value& v = graph.value(in);
        auto it = inputs.find(v.name);
        STRATA_CHECK(it != inputs.end(), StatusCode::invalid_argument, "input '{}' is missing: expected {}", v.name,
                     describe(v.dtype, v.shape));
        const Tensor& t = it->second;
        STRATA_CHECK(t.dtype() == v.dtype && t.shape() == v.shape, StatusCode::invalid_argument,
                     "input '{}': expected {}, got {}", v.name, describe(v.dtype, v.shape),
                     describe(t.dtype(), t.shape()));
        STRATA_CHECK(t.raw() != nullptr || t.numel() == 0, StatusCode::invalid_argument,
                     "input '{}': the tensor has no data (expected {})", v.name, describe(v.dtype, v.shape));
    }
}

}  // namespace strata::runtime
