// api.cpp: the public Model / Engine / Context (include/strata/engine.h) over the builder and the executor. Every
// function that can fail catches what the library throws and returns it as a Status: no exception escapes.
#include <fmt/format.h>

#include <new>

#include "build/plan.h"
#include "core/check.h"
#include "frontend/onnx/onnx_import.h"
#include "runtime/check_inputs.h"
#include "runtime/executor.h"
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
};

Engine::Engine(std::shared_ptr<Impl> impl) : impl_(std::move(impl)) {}
Engine::Engine(Engine&&) noexcept = default;
Engine& Engine::operator=(Engine&&) noexcept = default;
Engine::~Engine() = default;

Expected<Engine> Engine::build(const Model& model, const BuildOptions& options) {
    return guarded([&]() -> Expected<Engine> {
        auto plan = std::make_shared<const build::Plan>(build::build_plan(model.graph(), options));
        return Engine(std::make_shared<Impl>(Impl{std::move(plan)}));
    });
}

std::vector<TensorInfo> Engine::inputs() const { return infos(impl_->plan->graph, impl_->plan->graph.inputs()); }
std::vector<TensorInfo> Engine::outputs() const { return infos(impl_->plan->graph, impl_->plan->graph.outputs()); }
const BuildOptions& Engine::options() const { return impl_->plan->options; }
std::string Engine::describe() const { return build::describe_plan(*impl_->plan); }

struct Context::Impl {
    std::shared_ptr<const build::Plan> plan;
    runtime::Executor executor;
};

Context::Context(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Context::Context(Context&&) noexcept = default;
Context& Context::operator=(Context&&) noexcept = default;
Context::~Context() = default;

Expected<Context> Engine::make_context() const {
    return guarded([&]() -> Expected<Context> {
        return Context(std::make_unique<Context::Impl>(Context::Impl{impl_->plan, runtime::Executor(impl_->plan)}));
    });
}

Expected<TensorMap> Context::run(const TensorMap& inputs) {
    return guarded([&]() -> Expected<TensorMap> {
        runtime::check_inputs(impl_->plan->graph, inputs);
        return impl_->executor.run(inputs);
    });
}

const char* version() { return STRATA_VERSION; }

}  // namespace strata
