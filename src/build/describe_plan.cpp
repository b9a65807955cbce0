// describe_plan.cpp: the human-readable summary of a Plan (Engine::describe, `strata inspect`).
#include <fmt/format.h>

#include "build/plan.h"

namespace strata::build {

namespace {

std::string output_shapes(const ir::Graph& graph, const ir::Node& node) {
    std::string r;
    for (ir::ValueId out : node.outputs) {
        if (out == ir::kNoValue) continue;
        if (!r.empty()) r += ' ';
        r += shape_str(graph.value(out).shape);
    }
    return r;
}

std::string megabytes(size_t bytes) { return fmt::format("{:.2f} MB", static_cast<double>(bytes) / (1 << 20)); }

}  // namespace

std::string describe_plan(const Plan& plan) {
    std::string r = fmt::format("plan for {} on {}, {}, batch {}: {} steps\n", plan.graph.name,
                                plan.options.device.str(), precision_name(plan.options.precision), plan.batch,
                                plan.steps.size());
    if (plan.on_gpu())
        r += fmt::format("device: {}; activations {} in {}\n", plan.device_name, dtype_name(plan.storage.compute),
                         layout_name(plan.storage.layout));
    for (size_t i = 0; i < plan.steps.size(); ++i) {
        const Step& s = plan.steps[i];
        const ir::Node& node = plan.graph.nodes()[s.node];
        std::string tactic = "(view: aliases its input)";
        if (s.tactic) tactic = s.tactic->name;
        if (!s.device_tactic.empty()) {
            tactic = s.device_tactic + (s.config ? fmt::format("#{}", s.config) : "");
            if (s.measured_ms > 0) tactic += fmt::format(" {:.4f} ms", s.measured_ms);
        }
        r += fmt::format("{:4}  {:<32} {:<18} {:<28} {}\n", i, node.name, ir::op_name(node.op), tactic,
                         output_shapes(plan.graph, node));
        if (!s.refused.empty()) r += fmt::format("      refused: {}\n", s.refused);
    }
    const MemoryPlan& m = plan.memory;
    double ratio = m.activation_bytes ? 100.0 * static_cast<double>(m.arena_bytes) / m.activation_bytes : 0.0;
    r += fmt::format("memory: arena {} for activations totalling {} ({:.0f}%)\n", megabytes(m.arena_bytes),
                     megabytes(m.activation_bytes), ratio);
    return r;
}

}  // namespace strata::build
