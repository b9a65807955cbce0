// build_gpu.cpp: the GPU half of build_plan. After the passes: give every activation its device dtype and layout,
// plan the arena (aliasing views and byte-identical Casts), then for each step time every (tactic, config) that
// can run it on the real shapes, on a trial arena of random data, and keep the fastest. Times come from (and go to)
// the timing cache, so a second build of the same network mostly skips the GPU. Then fusions that only some shapes
// gain from are decided by the same times (NOTE [fusion by measurement]).
#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <set>

#include "backends/cuda/cuda_check.h"
#include "backends/cuda/kernels/common/fill_random.h"
#include "backends/cuda/kernels/fused/separable.h"
#include "backends/cuda/launch_timer.h"
#include "backends/cuda/libs/cublaslt_loader.h"
#include "backends/cuda/libs/cudnn_loader.h"
#include "backends/cuda/pdl.h"
#include "build/cuda/timing_cache.h"
#include "build/plan.h"
#include "core/check.h"
#include "ir/verify.h"
#include "passes/pass.h"
#include "passes/passes.h"
#include "runtime/cuda/step_binding.h"

namespace strata::build {

namespace {

Layout network_layout(DType compute) {
    if (const char* env = std::getenv("STRATA_LAYOUT"); env && *env) {
        std::string v = env;
        STRATA_CHECK(v == "nchw" || v == "nhwc", StatusCode::invalid_argument, "STRATA_LAYOUT={}: use nchw or nhwc", v);
        return v == "nhwc" ? Layout::nhwc : Layout::nchw;
    }
    return compute == DType::f32 ? Layout::nchw : Layout::nhwc;
}

// How each candidate is timed: STRATA_TIMING=full (the default: a graph of launches, best of three replays) or quick
// (its one checked launch alone). Under compute-sanitizer every launch is 10-100x slower, and a full cold build of
// resnet50 outlasts a 10-minute device call; quick times are rougher, so their choices may be worse, and they are
// cached apart from full ones (timing_key) so that a later full build does not read them.
bool quick_timing() {
    const char* env = std::getenv("STRATA_TIMING");
    if (!env || !*env) return false;
    std::string v = env;
    STRATA_CHECK(v == "full" || v == "quick", StatusCode::invalid_argument, "STRATA_TIMING={}: use full or quick", v);
    return v == "quick";
}

// Tactics the builder must not choose: STRATA_EXCLUDE_TACTICS, comma-separated names ("cuda.conv.depthwise" to
// compare a network against the same build on the other kernels). A step left with no candidate fails to build.
bool excluded_tactic(const std::string& name) {
    const char* env = std::getenv("STRATA_EXCLUDE_TACTICS");
    if (!env || !*env) return false;
    const std::string list = std::string(",") + env + ",";
    return list.find("," + name + ",") != std::string::npos;
}

// The input an elementwise step may overwrite with its output (NOTE [memory plan aliasing]), -1 = none: Unary's
// input, or the Binary operand that has the output's shape and layout (the other may broadcast). Each element is
// read before the same element is written, so the kernels need no other care.
int in_place_input(const ir::Graph& graph, const DeviceStorage& storage, const ir::Node& node) {
    if (node.op != ir::OpKind::Unary && node.op != ir::OpKind::Binary) return -1;
    if (node.outputs.size() != 1) return -1;
    ir::ValueId out = node.outputs[0];
    for (size_t i = 0; i < node.inputs.size(); ++i) {
        ir::ValueId in = node.inputs[i];
        if (in == ir::kNoValue || graph.is_constant(in)) continue;
        const ir::Value &a = graph.value(in), &b = graph.value(out);
        if (a.shape == b.shape && a.dtype == b.dtype && storage.layouts[in] == storage.layouts[out])
            return static_cast<int>(i);
        if (node.op == ir::OpKind::Unary) break;
    }
    return -1;
}

std::string timing_key(const cuda::DeviceInfo& info, const cuda::CudaTactic& tactic, int config,
                       const cuda::StepDesc& desc) {
    std::string key = fmt::format("{}|sm{}|drv{}|rt{}|{}|{}|{}|{}|{}|tf32={}", info.name, info.compute_capability(),
                                  info.driver_version, info.runtime_version, STRATA_VERSION, tactic.name, config,
                                  ir::op_name(desc.node->op), desc.name, desc.allow_tf32);
    // A library's config is its heuristic's n-th answer: another library version may mean another algorithm.
    if (tactic.from_library) key += "|" + cuda::libs::cudnn_report() + "|" + cuda::libs::cublaslt_report();
    // Appended piece by piece: GCC 12 warns (-Wrestrict, a false positive) on "literal" + temporary string here.
    for (const auto& d : desc.inputs) key.append("|").append(d.str());
    for (const auto& d : desc.outputs) key.append("|>").append(d.str());
    if (cuda::use_pdl(info.compute_capability())) key += "|pdl";  // kernels with a PDL path time differently
    if (quick_timing()) key += "|quick";
    return key;
}

// The trial arena and inputs hold random values; integer values get zeros (they may be indices).
void fill_trial_memory(const Plan& plan, const runtime::ActivationMemory& memory, cudaStream_t stream) {
    const ir::Graph& graph = plan.graph;
    for (size_t v = 0; v < graph.num_values(); ++v) {
        auto id = static_cast<ir::ValueId>(v);
        const ir::Value& value = graph.value(id);
        if (value.constant) continue;
        bool in_memory = graph.is_graph_input(id) || plan.memory.offsets[v] != MemoryPlan::kNotInArena;
        if (!in_memory) continue;
        cuda::fill_random(memory.pointer(plan, id), value.dtype, shape_numel(value.shape), 1000 + v, stream);
    }
}

// Per-launch milliseconds: one checked warm-up launch, then the best of three replays of a graph of launches
// (about 0.5 ms of work each, at most 50 launches); with STRATA_TIMING=quick, the checked launch alone.
double time_kernel(cuda::CudaKernel& kernel, const cuda::StepBuffers& buffers, cudaStream_t stream,
                   const std::string& what) {
    cuda::Event start, end;
    start.record(stream);
    kernel.launch(buffers, stream);
    end.record(stream);
    cuda::check_launch(what);
    STRATA_CUDA_CHECK(cudaStreamSynchronize(stream), what);
    double once = end.elapsed_since(start);
    if (quick_timing()) return once;
    int launches = std::clamp(static_cast<int>(0.5 / std::max(once, 1e-3)), 2, 50);
    std::vector<double> ms = cuda::graph_launch_times(kernel, buffers, stream, launches, 3, what);
    return *std::min_element(ms.begin(), ms.end());
}

struct Selector {
    Plan& plan;
    const cuda::DeviceInfo& info;
    TimingCache& cache;
    std::vector<cuda::StepDesc> descs;
    runtime::GpuWeights weights;
    runtime::ActivationMemory memory;
    cuda::Stream stream;
    cuda::DeviceBuffer workspace;
    bool time_every_step = false;  ///< also time steps with one candidate (their times are compared elsewhere)

    Selector(Plan& p, const cuda::DeviceInfo& i, TimingCache& c)
        : plan(p), info(i), cache(c), descs(runtime::make_step_descs(p, i)), weights(p, descs), memory(p) {}

    double measure(const cuda::CudaTactic& t, int config, size_t s, std::string& refused) {
        const cuda::StepDesc& desc = descs[s];
        std::string key = timing_key(info, t, config, desc);
        if (auto ms = cache.find(key)) return *ms;
        try {
            auto kernel = t.make(desc, config);
            if (kernel->workspace_bytes() > workspace.bytes())
                workspace = cuda::DeviceBuffer(kernel->workspace_bytes(), "a trial workspace");
            cuda::StepBuffers buffers = runtime::bind_buffers(plan, desc, s, memory, weights);
            buffers.workspace = workspace.data();
            double ms =
                time_kernel(*kernel, buffers, stream.get(), fmt::format("timing {} on '{}'", t.name, desc.name));
            cache.put(key, ms);
            return ms;
        } catch (const Error& e) {
            refused += fmt::format("{}{}[{}]: {}", refused.empty() ? "" : "; ", t.name, config, e.what());
            return -1;
        }
    }

    Step choose(size_t s) {
        const cuda::StepDesc& desc = descs[s];
        Step step;
        step.node = s;
        std::vector<std::pair<const cuda::CudaTactic*, int>> runnable;
        for (const cuda::CudaTactic* t : cuda::CudaTacticRegistry::global().candidates(desc.node->op)) {
            if (excluded_tactic(t->name)) {
                step.refused +=
                    fmt::format("{}{}: excluded by STRATA_EXCLUDE_TACTICS", step.refused.empty() ? "" : "; ", t->name);
                continue;
            }
            for (int c = 0; c < t->num_configs; ++c) {
                std::string why = t->can_implement ? t->can_implement(desc, c) : std::string();
                if (why.empty()) {
                    runnable.emplace_back(t, c);
                } else if (c == 0 || t->num_configs == 1) {
                    step.refused += fmt::format("{}{}: {}", step.refused.empty() ? "" : "; ", t->name, why);
                }
            }
        }
        STRATA_CHECK(!runnable.empty(), StatusCode::unsupported, "unsupported: {} on the GPU ({}): {}",
                     ir::node_label(*desc.node), describe_inputs(desc),
                     step.refused.empty() ? "no CUDA kernel implements this op" : step.refused);
        step.candidates = static_cast<int>(runnable.size());
        double best = -1;
        for (auto [t, c] : runnable) {
            double ms = runnable.size() == 1 && !time_every_step ? 0.0 : measure(*t, c, s, step.refused);
            if (ms < 0) continue;
            if (best < 0 || ms < best) {
                best = ms;
                step.device_tactic = t->name;
                step.config = c;
                step.measured_ms = ms;
            }
        }
        STRATA_CHECK(best >= 0, StatusCode::runtime_error, "every CUDA kernel for {} failed: {}",
                     ir::node_label(*desc.node), step.refused);
        return step;
    }

    static std::string describe_inputs(const cuda::StepDesc& desc) {
        std::string r;
        for (const auto& d : desc.inputs) r += (r.empty() ? "" : ", ") + d.str();
        return r;
    }
};

// Device storage, the memory plan and a timed tactic for every step of plan.graph as the passes left it.
void plan_device_steps(Plan& plan, const cuda::DeviceInfo& info, TimingCache& cache, bool time_every_step = false) {
    quick_timing();  // a bad STRATA_TIMING is refused before any work, even where no step has two candidates
    DType compute = runtime::compute_dtype(plan.options.precision);
    plan.storage = assign_device_storage(plan.graph, compute, network_layout(compute));
    plan.memory = plan_memory(
        plan.graph, true,
        [&](const ir::Node& node) { return is_view_op(node.op) || is_bytewise_cast(plan.graph, plan.storage, node); },
        [&](const ir::Node& node) { return in_place_input(plan.graph, plan.storage, node); });
    Selector selector(plan, info, cache);
    selector.time_every_step = time_every_step;
    fill_trial_memory(plan, selector.memory, selector.stream.get());
    const auto& nodes = plan.graph.nodes();
    plan.steps.clear();
    for (size_t s = 0; s < nodes.size(); ++s) {
        if (plan.memory.aliased[s]) {
            plan.steps.emplace_back().node = s;
            continue;
        }
        if (plan.options.show_progress)
            std::fprintf(stderr, "\r[strata] choosing kernels: step %zu/%zu", s + 1, nodes.size());
        plan.steps.push_back(selector.choose(s));
    }
}

// NOTE [fusion by measurement]
// A fused kernel is not faster everywhere: the fused depthwise -> pointwise kernel reads its pointwise weights
// once per 8 x 16 tile, so it loses where K x Cm is large, and at small batches its tiles leave SMs idle. So the
// builder decides per pair from measured times: it plans the network unfused (every step timed), plans it again
// with every pair the fused kernel covers fused, keeps the fusion of the pairs whose fused step beat the sum of
// their two separate steps, and plans that graph a third time (its kernels' times all come from the timing cache).

// The pairs the fused kernel can run, as the compute dtype and layout will make them.
bool separable_kernel_covers(const ir::Graph& g, const ir::Node& dw, const ir::Node& pw, DType compute, Layout layout,
                             const cuda::DeviceInfo& info) {
    if (layout != Layout::nhwc) return false;
    const auto& a = dw.attr<ir::ConvAttrs>();
    if (a.kernel.size() != 2 || a.dilations[0] != 1 || a.dilations[1] != 1) return false;
    const int cm = static_cast<int>(g.value(dw.inputs[0]).shape[1]);
    const int k = static_cast<int>(g.value(pw.outputs[0]).shape[1]);
    const int r = static_cast<int>(a.kernel[0]), s = static_cast<int>(a.kernel[1]);
    const int sh = static_cast<int>(a.strides[0]), sw = static_cast<int>(a.strides[1]);
    if (!cuda::separable_problem(compute, cm, k, r, s, sh, sw).empty()) return false;
    return cuda::separable_smem_bytes(compute, r, sh, k) <= info.smem_per_block_optin;
}

// The measured time of each step, by the name of the value it writes (names survive the rewrite; node indices do not).
std::map<std::string, double> step_times(const Plan& plan) {
    std::map<std::string, double> t;
    for (const Step& st : plan.steps) {
        const ir::Node& node = plan.graph.nodes()[st.node];
        if (!node.outputs.empty()) t[plan.graph.value(node.outputs[0]).name] = st.measured_ms;
    }
    return t;
}

constexpr const char* kSeparableTactic = "cuda.fused.separable";

// Whether the fused tactic may run here at all: registered and not excluded.
bool separable_tactic_usable() {
    return cuda::CudaTacticRegistry::global().find(kSeparableTactic) != nullptr && !excluded_tactic(kSeparableTactic);
}

// STRATA_FUSE_SEPARABLE: "timed" (default: NOTE [fusion by measurement]), "all" (every pair the kernel covers,
// without timing: for tests and comparisons), "none".
std::string separable_fusion_mode() {
    const char* env = std::getenv("STRATA_FUSE_SEPARABLE");
    const std::string mode = env && *env ? env : "timed";
    STRATA_CHECK(mode == "timed" || mode == "all" || mode == "none", StatusCode::invalid_argument,
                 "STRATA_FUSE_SEPARABLE={}: use timed, all or none", mode);
    return mode;
}

void fuse_separable_where_faster(Plan& plan, const ir::Graph& unfused, const cuda::DeviceInfo& info,
                                 TimingCache& cache) {
    const std::string mode = separable_fusion_mode();
    if (mode == "none" || !separable_tactic_usable()) return;
    const DType compute = runtime::compute_dtype(plan.options.precision);
    const Layout layout = network_layout(compute);
    auto covered = [&](const ir::Graph& g, const ir::Node& dw, const ir::Node& pw) {
        return separable_kernel_covers(g, dw, pw, compute, layout, info);
    };
    // (dw output, pw output) value names of the pairs to try.
    std::vector<std::pair<std::string, std::string>> pairs;
    for (const passes::SeparablePair& p : passes::separable_pairs(unfused)) {
        const ir::Node &dw = unfused.nodes()[p.dw], &pw = unfused.nodes()[p.pw];
        if (covered(unfused, dw, pw))
            pairs.emplace_back(unfused.value(dw.outputs[0]).name, unfused.value(pw.outputs[0]).name);
    }
    if (pairs.empty()) return;
    // `unfused` with the pairs `accept` takes fused, planned like `plan` (same options, batch and device).
    auto plan_fused = [&](const passes::SeparableAccept& accept, bool time_every_step) {
        Plan fused;
        fused.options = plan.options, fused.batch = plan.batch, fused.device_name = plan.device_name;
        fused.graph = unfused;
        passes::fuse_separable_conv(fused.graph, accept);
        plan_device_steps(fused, info, cache, time_every_step);
        return fused;
    };
    if (mode == "all") {
        plan = plan_fused(covered, false);
        return;
    }
    const std::map<std::string, double> separate = step_times(plan);
    std::map<std::string, double> fused;
    try {
        fused = step_times(plan_fused(covered, /*time_every_step=*/true));
    } catch (const Error& e) {  // a fused step the tactic refused after all: keep the network unfused
        if (plan.options.show_progress) std::fprintf(stderr, "\n[strata] not fusing separable pairs: %s", e.what());
        return;
    }
    std::set<std::string> winners;  // pw output names
    for (const auto& [mid, out] : pairs) {
        auto f = fused.find(out);
        auto a = separate.find(mid), b = separate.find(out);
        if (f == fused.end() || a == separate.end() || b == separate.end()) continue;
        if (f->second > 0 && a->second > 0 && b->second > 0 && f->second < a->second + b->second) winners.insert(out);
        if (plan.options.show_progress)
            std::fprintf(stderr, "\n[strata] fuse %s -> %s: %.4f ms fused, %.4f + %.4f ms separate%s", mid.c_str(),
                         out.c_str(), f->second, a->second, b->second, winners.count(out) ? ": fused" : "");
    }
    if (winners.empty()) return;
    plan = plan_fused(
        [&](const ir::Graph& g, const ir::Node& dw, const ir::Node& pw) {
            return covered(g, dw, pw) && winners.count(g.value(pw.outputs[0]).name) > 0;
        },
        false);
}

}  // namespace

void build_gpu_steps(Plan& plan) {
    int index = plan.options.device.index;
    cuda::set_device(index);
    const cuda::DeviceInfo& info = cuda::device_info(index);
    plan.device_name = info.summary();
    if (plan.options.optimize) {
        // The channel shuffle becomes one Gather that runs in the network's layout (no layout Casts around it).
        // GPU epilogues add a residual: fold the Adds after Convs in, then the activations that follow them.
        passes::run_pipeline(plan.graph, {{"channel_shuffle_gather", passes::channel_shuffle_gather},
                                          {"fuse_conv_residual", passes::fuse_conv_residual},
                                          {"fuse_conv_activation", passes::fuse_conv_activation},
                                          {"remove_unused", passes::remove_unused}});
    }
    TimingCache cache(TimingCache::resolve_path(plan.options.timing_cache));
    const ir::Graph unfused = plan.graph;  // plan_device_steps rewrites plan.graph (device storage)
    plan_device_steps(plan, info, cache);
    if (plan.options.optimize) fuse_separable_where_faster(plan, unfused, info, cache);
    if (plan.options.show_progress)
        std::fprintf(stderr, "\r[strata] chose kernels for %zu steps (timing cache: %zu hits, %zu timed)\n",
                     plan.graph.nodes().size(), cache.hits(), cache.misses());
    cache.save();
}

}  // namespace strata::build
