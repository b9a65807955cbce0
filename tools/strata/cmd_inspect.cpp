// cmd_inspect.cpp: `strata inspect MODEL`: what the builder made of a model, step by step: name, op, output shape,
// FLOPs, bytes moved, parameters and the chosen kernel, then totals and the memory plan (arena against the sum of
// all activations). It reads the build::Plan directly, so what it shows is exactly what `strata run` executes.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "build/plan.h"
#include "commands.h"
#include "core/check.h"
#include "ir/cost.h"
#include "model_loading.h"

namespace strata::cli {
namespace {

struct InspectFlags {
    std::string model;
    int batch = 0;  ///< 0: the model's own (1 where it is dynamic)
    BuildFlags build;
};

std::string output_shapes(const ir::Graph& graph, const ir::Node& node) {
    std::string r;
    for (ir::ValueId out : node.outputs)
        if (out != ir::kNoValue) r += (r.empty() ? "" : " ") + shape_str(graph.value(out).shape);
    return r;
}

// 1234567 -> "1.23M": short columns that still show the order of magnitude.
std::string si(double v) {
    const char* units[] = {"", "K", "M", "G", "T"};
    int u = 0;
    while (std::abs(v) >= 1000 && u < 4) v /= 1000, ++u;
    return u == 0 ? fmt::format("{:.0f}", v) : fmt::format("{:.2f}{}", v, units[u]);
}

std::string kernel_name(const build::Step& s) {
    if (s.tactic) return s.tactic->name;
    if (!s.device_tactic.empty()) return s.config ? fmt::format("{}#{}", s.device_tactic, s.config) : s.device_tactic;
    return "(view, aliased)";
}

std::string megabytes(double bytes) { return fmt::format("{:.2f} MB", bytes / (1 << 20)); }

void inspect(const InspectFlags& f) {
    LoadedModel model = load_model(f.model);
    STRATA_CHECK(model.model.has_value(), StatusCode::invalid_argument,
                 "{}: inspect reads models (.onnx or zoo names); `strata profile {}` times a saved plan's steps",
                 f.model, f.model);
    const build::Plan plan = build::build_plan(model.model->graph(), build_options(f.build, f.batch));
    const ir::Graph& g = plan.graph;
    size_t name_width = 4;
    for (const build::Step& s : plan.steps) name_width = std::max(name_width, g.nodes()[s.node].name.size());
    name_width = std::min<size_t>(name_width, 40);

    std::printf("%s on %s, %s, batch %lld: %zu steps\n", model.name.c_str(), plan.options.device.str().c_str(),
                precision_name(plan.options.precision), static_cast<long long>(plan.batch), plan.steps.size());
    std::printf("%4s  %-*s  %-18s %-20s %9s %9s %9s  %s\n", "#", static_cast<int>(name_width), "name", "op",
                "output shape", "FLOPs", "bytes", "params", "kernel");
    ir::NodeCost total;
    for (size_t i = 0; i < plan.steps.size(); ++i) {
        const build::Step& s = plan.steps[i];
        const ir::Node& node = g.nodes()[s.node];
        const ir::NodeCost c = ir::node_cost(g, node);
        total.flops += c.flops;
        total.bytes += c.bytes;
        total.params += c.params;
        std::printf("%4zu  %-*s  %-18s %-20s %9s %9s %9s  %s\n", i, static_cast<int>(name_width), node.name.c_str(),
                    ir::op_name(node.op), output_shapes(g, node).c_str(), si(c.flops).c_str(), si(c.bytes).c_str(),
                    si(static_cast<double>(c.params)).c_str(), kernel_name(s).c_str());
    }
    std::printf("total: %s FLOPs, %s moved, %s params\n", si(total.flops).c_str(), megabytes(total.bytes).c_str(),
                si(static_cast<double>(total.params)).c_str());
    const build::MemoryPlan& m = plan.memory;
    std::printf("memory plan: arena %s for activations totalling %s (%.0f%%)\n",
                megabytes(static_cast<double>(m.arena_bytes)).c_str(),
                megabytes(static_cast<double>(m.activation_bytes)).c_str(),
                m.activation_bytes ? 100.0 * static_cast<double>(m.arena_bytes) / m.activation_bytes : 0.0);
}

}  // namespace

Subcommand add_inspect_command(CLI::App& app) {
    auto flags = std::make_shared<InspectFlags>();
    CLI::App* cmd = app.add_subcommand("inspect", "per step: name, op, output shape, FLOPs, bytes, params, kernel");
    add_model_argument(*cmd, flags->model);
    cmd->add_option("--batch", flags->batch, "batch size the plan is built for (default: the model's own, 1 where "
                                             "it is dynamic)")
        ->check(at_least(1));
    add_build_flags(*cmd, flags->build);
    cmd->footer("FLOPs count a multiply-add as two; bytes are the fewest a step must move (inputs, outputs and\n"
                "weights once each).\n\nExample:\n  strata inspect mobilenet_v2 --batch 8");
    return {cmd, [flags] { inspect(*flags); }};
}

}  // namespace strata::cli
