// executor.cpp: binds every value of a Plan to memory once, then runs the steps in order on each call.
#include "runtime/executor.h"

#include <fmt/format.h>

#include <chrono>
#include <cstdlib>

#include "core/check.h"

namespace strata::runtime {

namespace {

// STRATA_DEBUG >= 2 prints each step's wall time (STYLE.md: debug output by level).
bool step_timing_enabled() {
    const char* env = std::getenv("STRATA_DEBUG");
    return env && std::atoi(env) >= 2;
}

}  // namespace

Executor::Executor(std::shared_ptr<const build::Plan> plan) : plan_(std::move(plan)) {
    const ir::Graph& graph = plan_->graph;
    arena_ = Tensor::empty(DType::u8, {static_cast<int64_t>(plan_->memory.arena_bytes)});
    values_.resize(graph.num_values());
    auto* base = static_cast<uint8_t*>(arena_.raw());
    for (size_t v = 0; v < graph.num_values(); ++v) {
        const ir::Value& value = graph.value(static_cast<ir::ValueId>(v));
        if (value.constant) {
            values_[v] = *value.constant;
        } else if (int64_t offset = plan_->memory.offsets[v]; offset != build::MemoryPlan::kNotInArena) {
            values_[v] = Tensor::wrap(base + offset, value.dtype, value.shape);
        }
    }
    if (plan_->options.threads != 1) pool_ = std::make_unique<ThreadPool>(plan_->options.threads);
}

void Executor::run_step(const build::Step& step) {
    const ir::Node& node = plan_->graph.nodes()[step.node];
    std::vector<Tensor> ins, outs;
    ins.reserve(node.inputs.size());
    outs.reserve(node.outputs.size());
    for (ir::ValueId v : node.inputs) ins.push_back(v == ir::kNoValue ? Tensor() : values_[v]);
    for (ir::ValueId v : node.outputs) outs.push_back(v == ir::kNoValue ? Tensor() : values_[v]);
    backends::KernelContext ctx{pool_.get()};
    step.tactic->run(node, ins, outs, ctx);
}

std::map<std::string, Tensor> Executor::run(const std::map<std::string, Tensor>& inputs) {
    const ir::Graph& graph = plan_->graph;
    // Inputs are read in place: kernels never write their inputs and the arena never holds a graph input.
    for (ir::ValueId in : graph.inputs()) values_[in] = inputs.at(graph.value(in).name);
    bool timing = step_timing_enabled();
    for (const build::Step& step : plan_->steps) {
        if (!step.tactic) continue;
        auto start = std::chrono::steady_clock::now();
        run_step(step);
        if (timing) {
            std::chrono::duration<double, std::milli> ms = std::chrono::steady_clock::now() - start;
            fmt::print(stderr, "[strata] step {:4} {:<40} {:<28} {:8.3f} ms\n", step.node,
                       plan_->graph.nodes()[step.node].name, step.tactic->name, ms.count());
        }
    }
    std::map<std::string, Tensor> outputs;
    for (ir::ValueId out : graph.outputs()) outputs[graph.value(out).name] = values_[out].clone();
    for (ir::ValueId in : graph.inputs()) values_[in] = Tensor();
    return outputs;
}

}  // namespace strata::runtime
