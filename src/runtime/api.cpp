// api.cpp: the public Model / Engine / Context (include/strata/engine.h) over the builder and the executor. Every
// function that can fail catches what the library throws and returns it as a Status: no exception escapes.
#include <fmt/format.h>

#include <new>

#include "build/plan.h"
#include "build/plan_serialization.h"
#include "core/check.h"
#include "frontend/onnx/onnx_import.h"
#include "ir/cost.h"
#include "runtime/check_inputs.h"
#include "runtime/executor.h"
#include "runtime/runner.h"
#include "strata/engine.h"
#include "zoo/zoo.h"

namespace strata {

namespace {

// Runs `f`, turning anything it throws into the Status of the Expected it returns.
template <class F>
auto guarded(F&& f) -> decltype(f()) {
    try {
        return f();
    } catch (const Error& e) {
        return e.status();
    } catch (const std::bad_alloc&) {
        return Status(StatusCode::runtime_error, "out of memory");
    } catch (const std::exception& e) {
        return Status(StatusCode::internal, fmt::format("bug in strata, please report: {}", e.what()));
    }
}

std::vector<TensorInfo> infos(const ir::Graph& graph, const std::vector<ir::ValueId>& ids) {
    std::vector<TensorInfo> r;
    for (ir::ValueId id : ids) {
        const ir::Value& v = graph.value(id);
        r.push_back({v.name, v.dtype, v.shape});
    }
    return r;
}

}  // namespace

Model::Model(std::shared_ptr<const ir::Graph> graph) : graph_(std::move(graph)) {}

Expected<Model> Model::from_onnx(const std::string& path) {
    return guarded([&]() -> Expected<Model> { return Model(frontend::import_onnx_file(path)); });
}

Expected<Model> Model::from_onnx_bytes(const void* data, size_t size, const std::string& name) {
    return guarded([&]() -> Expected<Model> { return Model(frontend::import_onnx_bytes(data, size, name, "")); });
}

Expected<Model> Model::from_zoo(const std::string& name) {
    return guarded([&]() -> Expected<Model> { return Model(zoo::build(name)); });
}

std::vector<TensorInfo> Model::inputs() const { return infos(*graph_, graph_->inputs()); }
std::vector<TensorInfo> Model::outputs() const { return infos(*graph_, graph_->outputs()); }

struct Engine::Impl {
    std::shared_ptr<const build::Plan> plan;
    std::shared_ptr<runtime::GpuWeights> gpu_weights;  ///< GPU plans: uploaded once, shared by every Context
};

Engine::Engine(std::shared_ptr<Impl> impl) : impl_(std::move(impl)) {}
Engine::Engine(Engine&&) noexcept = default;
Engine& Engine::operator=(Engine&&) noexcept = default;
Engine::~Engine() = default;

Expected<Engine> Engine::build(const Model& model, const BuildOptions& options) {
    return guarded([&]() -> Expected<Engine> {
        auto plan = std::make_shared<const build::Plan>(build::build_plan(model.graph(), options));
        std::shared_ptr<runtime::GpuWeights> weights;
        if (plan->on_gpu()) weights = runtime::upload_gpu_weights(*plan);
        return Engine(std::make_shared<Impl>(Impl{std::move(plan), std::move(weights)}));
    });
}

Expected<Engine> Engine::load(const std::string& path) {
    return guarded([&]() -> Expected<Engine> {
        build::PlanFile file = build::load_plan_file(path);
        build::PlanFileTarget target = file.target;
        build::Plan loaded = build::from_plan_file(std::move(file), path);
        build::PlanFileTarget here = build::current_target(loaded.options, loaded.batch);
        std::string mismatch = build::target_mismatch(target, here);
        STRATA_CHECK(mismatch.empty(), StatusCode::invalid_argument, "{}: {}; rebuild it here with `strata build`",
                     path, mismatch);
        auto plan = std::make_shared<const build::Plan>(std::move(loaded));
        std::shared_ptr<runtime::GpuWeights> weights;
        if (plan->on_gpu()) weights = runtime::upload_gpu_weights(*plan);
        return Engine(std::make_shared<Impl>(Impl{std::move(plan), std::move(weights)}));
    });
}

Status Engine::save(const std::string& path) const {
    auto r = guarded([&]() -> Expected<bool> {
        build::save_plan_file(build::to_plan_file(*impl_->plan), path);
        return true;
    });
    return r.ok() ? Status() : r.status();
}

std::vector<TensorInfo> Engine::inputs() const { return infos(impl_->plan->graph, impl_->plan->graph.inputs()); }
std::vector<TensorInfo> Engine::outputs() const { return infos(impl_->plan->graph, impl_->plan->graph.outputs()); }
const BuildOptions& Engine::options() const { return impl_->plan->options; }
std::string Engine::describe() const { return build::describe_plan(*impl_->plan); }

struct Context::Impl {
    std::shared_ptr<const build::Plan> plan;
    std::unique_ptr<runtime::Runner> runner;
};

Context::Context(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Context::Context(Context&&) noexcept = default;
Context& Context::operator=(Context&&) noexcept = default;
Context::~Context() = default;

Expected<Context> Engine::make_context() const {
    return guarded([&]() -> Expected<Context> {
        std::unique_ptr<runtime::Runner> runner;
        if (impl_->plan->on_gpu())
            runner = runtime::make_gpu_runner(impl_->plan, impl_->gpu_weights);
        else
            runner = std::make_unique<runtime::Executor>(impl_->plan);
        return Context(std::make_unique<Context::Impl>(Context::Impl{impl_->plan, std::move(runner)}));
    });
}

Expected<TensorMap> Context::run(const TensorMap& inputs) {
    return guarded([&]() -> Expected<TensorMap> {
        runtime::check_inputs(impl_->plan->graph, inputs);
        return impl_->runner->run(inputs);
    });
}

Expected<std::vector<double>> Context::time_device(int warmup, int iterations) {
    return guarded([&]() -> Expected<std::vector<double>> {
        STRATA_CHECK(warmup >= 0 && iterations > 0, StatusCode::invalid_argument,
                     "time_device: warmup {} and iterations {} must be >= 0 and > 0", warmup, iterations);
        return impl_->runner->time_device(warmup, iterations);
    });
}

Expected<std::vector<Context::StepTime>> Context::profile_steps(int iterations) {
    return guarded([&]() -> Expected<std::vector<StepTime>> {
        STRATA_CHECK(iterations > 0, StatusCode::invalid_argument, "profile_steps: iterations {} must be > 0",
                     iterations);
        std::vector<double> ms = impl_->runner->profile_steps(iterations);
        std::vector<std::string> details = impl_->runner->step_details();
        const build::Plan& plan = *impl_->plan;
        std::vector<StepTime> r;
        for (size_t s = 0; s < plan.steps.size(); ++s) {
            const build::Step& step = plan.steps[s];
            if (step.device_tactic.empty() && !step.tactic) continue;
            const ir::Node& node = plan.graph.nodes()[step.node];
            ir::NodeCost cost = ir::node_cost(plan.graph, node);
            std::string kernel = step.tactic ? step.tactic->name : step.device_tactic;
            if (step.config) kernel += fmt::format("#{}", step.config);
            r.push_back({node.name, ir::op_name(node.op), kernel, ms.at(s), cost.flops, cost.bytes,
                         s < details.size() ? details[s] : std::string()});
        }
        return r;
    });
}

const char* version() { return STRATA_VERSION; }

}  // namespace strata
