// plan.cpp: build_plan, the builder's whole pipeline from a graph to a Plan (DESIGN.md: "build once, then run").
#include "build/plan.h"

#include <algorithm>

#include "core/check.h"
#include "ir/shape_inference.h"
#include "ir/verify.h"
#include "passes/pass.h"

namespace strata::build {

namespace {

void check_options(const BuildOptions& options) {
    bool gpu = options.device.kind == Device::Kind::cuda;
    if (gpu && options.precision == Precision::int8)
        STRATA_UNSUPPORTED("precision int8 on the GPU (fp32, tf32, fp16 and bf16 are implemented)");
    if (!gpu && options.precision != Precision::fp32)
        STRATA_UNSUPPORTED("precision {} on the CPU (only fp32 is implemented)", precision_name(options.precision));
    STRATA_CHECK(options.batch >= 0, StatusCode::invalid_argument, "batch size {} is negative (0 = the model's own)",
                 options.batch);
    STRATA_CHECK(options.threads >= 0, StatusCode::invalid_argument,
                 "thread count {} is negative (0 = one per core)", options.threads);
}

// The batch asked for, else the model's static batch (the first input with a fixed first dim), else 1.
int64_t resolve_batch(const ir::Graph& graph, const BuildOptions& options) {
    if (options.batch > 0) return options.batch;
    for (ir::ValueId in : graph.inputs()) {
        const ir::Value& v = graph.value(in);
        if (v.has_shape && !v.shape.empty() && v.shape[0] > 0) return v.shape[0];
    }
    return 1;
}

bool has_dynamic_batch(const ir::Graph& graph) {
    return std::any_of(graph.inputs().begin(), graph.inputs().end(), [&](ir::ValueId in) {
        const ir::Value& v = graph.value(in);
        return v.has_shape && !v.shape.empty() && v.shape[0] < 0;
    });
}

// Only the batch may be dynamic, and set_batch has fixed it: any other unknown dim cannot be planned.
void check_static_inputs(const ir::Graph& graph) {
    for (ir::ValueId in : graph.inputs()) {
        const ir::Value& v = graph.value(in);
        bool known = v.has_shape && std::all_of(v.shape.begin(), v.shape.end(), [](int64_t d) { return d >= 0; });
        STRATA_CHECK(known, StatusCode::unsupported,
                     "unsupported: dynamic shape: input '{}' has shape {}; only the batch (first) dimension may be "
                     "dynamic",
                     v.name, v.has_shape ? shape_str(v.shape) : std::string("of unknown rank"));
    }
}

std::vector<Step> choose_tactics(const Plan& plan) {
    const auto& registry = backends::TacticRegistry::global();
    std::vector<Step> steps;
    const auto& nodes = plan.graph.nodes();
    for (size_t i = 0; i < nodes.size(); ++i) {
        Step step;
        step.node = i;
        if (!plan.memory.aliased[i])
            step.tactic = select_tactic(registry, plan.graph, nodes[i], backends::Backend::cpu, step.refused);
        steps.push_back(std::move(step));
    }
    return steps;
}

}  // namespace

Plan build_plan(const ir::Graph& graph, const BuildOptions& options) {
    check_options(options);
    Plan plan;
    plan.options = options;
    plan.graph = graph;
    ir::verify(plan.graph);
    plan.batch = resolve_batch(plan.graph, options);
    // A model whose inputs are all static runs at its own shapes unless a batch was asked for: its inputs need not
    // share a first dimension (MatMul of [2,3] by [3,4]).
    if (options.batch > 0 || has_dynamic_batch(plan.graph)) passes::set_batch(plan.graph, plan.batch);
    check_static_inputs(plan.graph);
    // The pipeline infers shapes itself, tolerating the Reshape/Slice parameters that fold_constants has yet to make
    // constant, and strictly at its end; without it, a parameter computed at run time is unsupported.
    if (options.optimize)
        passes::run_pipeline(plan.graph, passes::default_pipeline());
    else
        ir::infer_shapes(plan.graph);
    ir::verify(plan.graph);
    if (plan.on_gpu()) {
        build_gpu_steps(plan);
        return plan;
    }
    plan.memory = plan_memory(plan.graph);
    plan.steps = choose_tactics(plan);
    return plan;
}

}  // namespace strata::build
