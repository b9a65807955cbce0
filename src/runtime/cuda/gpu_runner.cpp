// gpu_runner.cpp: see gpu_runner.h.
#include "runtime/cuda/gpu_runner.h"

#include <fmt/format.h>
#include <nvtx3/nvToolsExt.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>

#include "backends/cuda/cuda_check.h"
#include "backends/cuda/launch_timer.h"
#include "core/check.h"

namespace strata::runtime {

namespace {

bool env_flag(const char* name) {
    const char* v = std::getenv(name);
    return v && *v && std::strcmp(v, "0") != 0;
}

size_t value_bytes(const ir::Value& v) { return static_cast<size_t>(shape_numel(v.shape)) * dtype_size(v.dtype); }

}  // namespace

GpuRunner::GpuRunner(std::shared_ptr<const build::Plan> plan, std::shared_ptr<GpuWeights> weights)
    : plan_(std::move(plan)), weights_(std::move(weights)), stream_((cuda::set_device(plan_->options.device.index), cuda::Stream())),
      memory_(*plan_) {
    const auto& info = cuda::device_info(plan_->options.device.index);
    descs_ = make_step_descs(*plan_, info);
    const auto& registry = cuda::CudaTacticRegistry::global();
    kernels_.resize(plan_->steps.size());
    buffers_.resize(plan_->steps.size());
    size_t workspace = 0;
    for (size_t s = 0; s < plan_->steps.size(); ++s) {
        const build::Step& step = plan_->steps[s];
        if (step.device_tactic.empty()) continue;
        const cuda::CudaTactic* tactic = registry.find(step.device_tactic);
        STRATA_CHECK(tactic, StatusCode::invalid_argument, "the plan names CUDA kernel '{}', which this strata lacks",
                     step.device_tactic);
        kernels_[s] = tactic->make(descs_[s], step.config);
        workspace = std::max(workspace, kernels_[s]->workspace_bytes());
        buffers_[s] = bind_buffers(*plan_, descs_[s], s, memory_, *weights_);
    }
    workspace_ = cuda::DeviceBuffer(workspace, "the kernels' workspace");
    for (auto& b : buffers_) b.workspace = workspace_.data();
    size_t staging = 0;
    for (ir::ValueId v : plan_->graph.inputs()) staging += value_bytes(plan_->graph.value(v));
    for (ir::ValueId v : plan_->graph.outputs()) staging += value_bytes(plan_->graph.value(v));
    staging_ = cuda::PinnedBuffer(staging);
    use_graph_ = !env_flag("STRATA_NO_CUDA_GRAPH");
}

GpuRunner::~GpuRunner() {
    if (graph_) cudaGraphExecDestroy(graph_);
}

void GpuRunner::launch_steps() {
    const ir::Graph& graph = plan_->graph;
    for (size_t s = 0; s < kernels_.size(); ++s) {
        if (!kernels_[s]) continue;
        const ir::Node& node = graph.nodes()[plan_->steps[s].node];
        nvtxRangePushA(node.name.c_str());
        kernels_[s]->launch(buffers_[s], stream_.get());
        nvtxRangePop();
        cuda::check_launch(fmt::format("step {} '{}' ({}, {})", s, node.name, ir::op_name(node.op),
                                       plan_->steps[s].device_tactic));
    }
}

void GpuRunner::launch_network() {
    if (!use_graph_) {
        launch_steps();
        return;
    }
    if (!graph_) {
        // One plain run first: module loading and library set-up happen outside the capture, and a failing kernel
        // is reported with its step's name rather than as a failed capture.
        launch_steps();
        stream_.synchronize("the first run of the network");
        cudaGraph_t graph = nullptr;
        STRATA_CUDA_CHECK(cudaStreamBeginCapture(stream_.get(), cudaStreamCaptureModeThreadLocal),
                          "starting the CUDA graph capture");
        try {
            launch_steps();
        } catch (...) {
            cudaStreamEndCapture(stream_.get(), &graph);
            if (graph) cudaGraphDestroy(graph);
            throw;
        }
        STRATA_CUDA_CHECK(cudaStreamEndCapture(stream_.get(), &graph), "ending the CUDA graph capture");
        cudaError_t status = cudaGraphInstantiate(&graph_, graph, 0);
        cudaGraphDestroy(graph);
        STRATA_CUDA_CHECK(status, "instantiating the CUDA graph");
    }
    STRATA_CUDA_CHECK(cudaGraphLaunch(graph_, stream_.get()), "launching the CUDA graph");
}

void GpuRunner::copy_inputs(const std::map<std::string, Tensor>& inputs) {
    auto* staging = static_cast<uint8_t*>(staging_.data());
    for (ir::ValueId in : plan_->graph.inputs()) {
        const Tensor& t = inputs.at(plan_->graph.value(in).name);
        std::memcpy(staging, t.raw(), t.nbytes());
        STRATA_CUDA_CHECK(cudaMemcpyAsync(memory_.inputs.at(in).data(), staging, t.nbytes(), cudaMemcpyHostToDevice,
                                          stream_.get()),
                          fmt::format("copying input '{}' to the GPU", plan_->graph.value(in).name));
        staging += t.nbytes();
    }
}

std::map<std::string, Tensor> GpuRunner::run(const std::map<std::string, Tensor>& inputs) {
    cuda::set_device(plan_->options.device.index);
    copy_inputs(inputs);
    launch_network();
    // Outputs land in the staging area after the inputs, then become tensors once the stream is done.
    const ir::Graph& graph = plan_->graph;
    auto* staging = static_cast<uint8_t*>(staging_.data());
    for (ir::ValueId in : graph.inputs()) staging += value_bytes(graph.value(in));
    std::vector<std::pair<ir::ValueId, uint8_t*>> pending;
    for (ir::ValueId out : graph.outputs()) {
        const ir::Value& v = graph.value(out);
        if (v.constant) continue;
        void* src = graph.is_graph_input(out) ? memory_.inputs.at(out).data() : memory_.pointer(*plan_, out);
        STRATA_CUDA_CHECK(cudaMemcpyAsync(staging, src, value_bytes(v), cudaMemcpyDeviceToHost, stream_.get()),
                          fmt::format("copying output '{}' from the GPU", v.name));
        pending.emplace_back(out, staging);
        staging += value_bytes(v);
    }
    stream_.synchronize("running the network");
    have_inputs_ = true;
    std::map<std::string, Tensor> result;
    for (ir::ValueId out : graph.outputs()) {
        const ir::Value& v = graph.value(out);
        if (v.constant) result[v.name] = v.constant->clone();
    }
    for (auto [out, bytes] : pending) {
        const ir::Value& v = graph.value(out);
        Tensor t = Tensor::empty(v.dtype, v.shape);
        std::memcpy(t.raw(), bytes, t.nbytes());
        result[v.name] = std::move(t);
    }
    return result;
}

std::vector<double> GpuRunner::time_device(int warmup, int iterations) {
    STRATA_CHECK(have_inputs_, StatusCode::invalid_argument, "time_device needs one run() first (it sets the inputs)");
    cuda::set_device(plan_->options.device.index);
    for (int i = 0; i < warmup; ++i) launch_network();
    std::vector<cuda::Event> starts(iterations), ends(iterations);
    for (int i = 0; i < iterations; ++i) {
        starts[i].record(stream_.get());
        launch_network();
        ends[i].record(stream_.get());
    }
    stream_.synchronize("timing the network");
    std::vector<double> ms(iterations);
    for (int i = 0; i < iterations; ++i) ms[i] = ends[i].elapsed_since(starts[i]);
    return ms;
}

// One step's time as the network sees it: a CUDA graph of kLaunches launches of the step, replayed `iterations`
// times; per launch, the median. Events around plain launches would add the host's enqueue time of library calls
// (about 0.17 ms per cuDNN call on the H200, 2026-11-29) to every step.
double GpuRunner::profile_step(size_t s, int iterations) {
    constexpr int kLaunches = 10;
    std::vector<double> ms = cuda::graph_launch_times(*kernels_[s], buffers_[s], stream_.get(), kLaunches, iterations,
                                                      fmt::format("profiling step {} '{}'", s, descs_[s].name));
    std::sort(ms.begin(), ms.end());
    return ms[ms.size() / 2];
}

std::vector<std::string> GpuRunner::step_details() const {
    std::vector<std::string> details(kernels_.size());
    for (size_t s = 0; s < kernels_.size(); ++s)
        if (kernels_[s]) details[s] = kernels_[s]->detail();
    return details;
}

std::vector<double> GpuRunner::profile_steps(int iterations) {
    STRATA_CHECK(have_inputs_, StatusCode::invalid_argument, "profile_steps needs one run() first (it sets the inputs)");
    cuda::set_device(plan_->options.device.index);
    launch_steps();  // warm-up, checked
    stream_.synchronize("the profile's warm-up run");
    std::vector<double> median(kernels_.size(), 0.0);
    for (size_t s = 0; s < kernels_.size(); ++s)
        if (kernels_[s]) median[s] = profile_step(s, iterations);
    return median;
}

std::shared_ptr<GpuWeights> upload_gpu_weights(const build::Plan& plan) {
    cuda::set_device(plan.options.device.index);
    return std::make_shared<GpuWeights>(plan, make_step_descs(plan, cuda::device_info(plan.options.device.index)));
}

std::unique_ptr<Runner> make_gpu_runner(std::shared_ptr<const build::Plan> plan, std::shared_ptr<GpuWeights> weights) {
    return std::make_unique<GpuRunner>(std::move(plan), std::move(weights));
}

}  // namespace strata::runtime
