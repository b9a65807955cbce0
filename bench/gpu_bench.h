// gpu_bench.h: what the GPU bench programs (bench/*_gpu.cpp) share: a step's description and device buffers made
// from a graph node the way the builder makes them, optionally several sets of buffers to rotate through, and the
// timing of every configuration of a tactic as the median of CUDA-graph replays (backends/cuda/launch_timer.h).
// Header-only: each bench program is one translation unit (bench/CMakeLists.txt).
#pragma once

#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "backends/cuda/cuda_check.h"
#include "backends/cuda/cuda_tactic.h"
#include "backends/cuda/device_buffer.h"
#include "backends/cuda/kernels/common/fill_random.h"
#include "backends/cuda/launch_timer.h"
#include "backends/cuda/param_forms.h"
#include "core/check.h"

namespace strata::bench {

/// The middle value (the upper middle of an even count); `v` must not be empty.
inline double median(std::vector<double> v) {
    STRATA_ASSERT(!v.empty(), "median of nothing");
    std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(v.size() / 2), v.end());
    return v[v.size() / 2];
}

/// The StepDesc the builder would make for `node` at compute dtype `dtype` and activation layout `layout`
/// (param_forms.h: float32 bias, row-major 1-D tensors); omitted optional inputs are present == false.
inline cuda::StepDesc step_desc(const ir::Graph& graph, const ir::Node& node, DType dtype, Layout layout,
                                const cuda::DeviceInfo& device, bool allow_tf32 = false) {
    cuda::StepDesc desc;
    desc.node = &node;
    desc.name = node.name;
    desc.device = &device;
    desc.allow_tf32 = allow_tf32;
    for (size_t i = 0; i < node.inputs.size(); ++i) {
        if (node.inputs[i] == ir::kNoValue) {
            desc.inputs.emplace_back().present = false;
            continue;
        }
        const ir::Value& v = graph.value(node.inputs[i]);
        desc.inputs.push_back(cuda::value_desc(v, dtype, layout, cuda::keeps_float32(node, i)));
    }
    for (ir::ValueId v : node.outputs) desc.outputs.push_back(cuda::value_desc(graph.value(v), dtype, layout));
    return desc;
}

/// `count` independent sets of device buffers for one step ("slots"): a benchmark that must not run from the L2
/// cycles through them. Inputs (weights included) hold random values, a different seed per slot and input.
struct StepSlots {
    std::vector<cuda::DeviceBuffer> memory;
    std::vector<cuda::StepBuffers> slots;  ///< workspace left null: it belongs to the kernel being timed
};

/// `weight_offset`: input 1 (a convolution's weights) starts that many bytes into its buffer, to time a kernel's
/// unaligned-weights path (the depthwise kernels' element-wise tap staging, NOTE [depthwise dense taps]).
inline StepSlots make_step_slots(const cuda::StepDesc& desc, int count, cudaStream_t stream,
                                 size_t weight_offset = 0) {
    STRATA_ASSERT(count >= 1, "make_step_slots: count {}", count);
    StepSlots s;
    for (int k = 0; k < count; ++k) {
        cuda::StepBuffers b;
        for (size_t i = 0; i < desc.inputs.size(); ++i) {
            const cuda::TensorDesc& t = desc.inputs[i];
            if (!t.present) {
                b.inputs.push_back(nullptr);
                continue;
            }
            const size_t offset = i == 1 ? weight_offset : 0;
            s.memory.emplace_back(t.bytes() + offset, "bench input");
            void* at = static_cast<char*>(s.memory.back().data()) + offset;
            cuda::fill_random(at, t.dtype, t.numel(), 7 + 131 * k + i, stream);
            b.inputs.push_back(at);
        }
        for (const cuda::TensorDesc& t : desc.outputs) {
            s.memory.emplace_back(t.bytes(), "bench output");
            b.outputs.push_back(s.memory.back().data());
        }
        s.slots.push_back(std::move(b));
    }
    cuda::check_launch("filling the bench inputs");
    STRATA_CUDA_CHECK(cudaStreamSynchronize(stream), "filling the bench inputs");
    return s;
}

/// Enqueues one launch of whatever is timed, on buffer slot `slot`.
using SlotLaunch = std::function<void(int slot, cudaStream_t stream)>;

/// Median milliseconds per launch of `launch`: first one checked plain launch per slot (the warm-up, and a launch
/// error named before any graph exists), then `replays` replays of a CUDA graph of `launches` launches where
/// launch i uses slot i % slots.
inline double time_slot_launches(const SlotLaunch& launch, int slots, int launches, int replays, cudaStream_t stream,
                                 const std::string& what) {
    for (int s = 0; s < slots; ++s) {
        launch(s, stream);
        cuda::check_launch(what);
    }
    STRATA_CUDA_CHECK(cudaStreamSynchronize(stream), what);
    auto enqueue = [&](int i, cudaStream_t st) { launch(i % slots, st); };
    return median(cuda::graph_enqueue_times(enqueue, stream, launches, replays, what));
}

/// One timed (tactic, config).
struct TimedConfig {
    double ms = 0;
    std::string name;    ///< "tactic#config" or "tactic#config (config name)"
    std::string detail;  ///< the kernel's detail(): what it chose inside (may be empty)
    int config = -1;
};

/// "cudnn.conv#1 (IMPLICIT_PRECOMP_GEMM)", or "cuda.conv.direct#0" for a tactic without config names.
inline std::string config_label(const cuda::CudaTactic& tactic, int config) {
    std::string label = fmt::format("{}#{}", tactic.name, config);
    if (tactic.config_name) label += fmt::format(" ({})", tactic.config_name(config));
    return label;
}

// Sweeps time a config fully only when a quick timing (kQuickReplays replays of one launch per slot) is within
// kQuickMargin of the best full timing so far.
constexpr int kQuickReplays = 3;
constexpr double kQuickMargin = 1.5;

/// The outcome of timing every config of one tactic on one step.
struct TacticSweep {
    std::optional<TimedConfig> best;
    std::string refusal;  ///< when nothing ran: the first config's reason (a refusal or a failure)
};

/// The slots' buffers with `workspace` as every slot's workspace.
inline std::vector<cuda::StepBuffers> with_workspace(const StepSlots& slots, const cuda::DeviceBuffer& workspace) {
    std::vector<cuda::StepBuffers> buffers = slots.slots;
    for (cuda::StepBuffers& b : buffers) b.workspace = workspace.data();
    return buffers;
}

/// Milliseconds per launch of `kernel`: `launches` launches per graph, launch i on slot i % count, the median of
/// `replays` (time_slot_launches).
inline double time_kernel_slots(cuda::CudaKernel& kernel, const StepSlots& slots, int launches, int replays,
                                cudaStream_t stream, const std::string& what) {
    cuda::DeviceBuffer workspace(kernel.workspace_bytes(), "bench workspace");
    const std::vector<cuda::StepBuffers> buffers = with_workspace(slots, workspace);
    auto launch = [&](int slot, cudaStream_t s) { kernel.launch(buffers[static_cast<size_t>(slot)], s); };
    return time_slot_launches(launch, static_cast<int>(buffers.size()), launches, replays, stream, what);
}

/// Called with every config a sweep times fully.
using SweepReport = std::function<void(const TimedConfig&)>;

/// Times each config of `tactic` that can implement `desc` on `slots` (launch i of a graph on slot i % count),
/// keeps the fastest. A config that throws is reported on stderr and skipped. With `report`, every config is timed
/// fully (no quick look) and reported, so that the losers' times can be read too.
inline TacticSweep sweep_tactic(const cuda::CudaTactic& tactic, const cuda::StepDesc& desc, const StepSlots& slots,
                                int launches, int replays, cudaStream_t stream, const SweepReport& report = {}) {
    TacticSweep sweep;
    for (int c = 0; c < tactic.num_configs; ++c) {
        std::string label = config_label(tactic, c);
        if (tactic.can_implement) {
            std::string why = tactic.can_implement(desc, c);
            if (!why.empty()) {
                if (sweep.refusal.empty()) sweep.refusal = fmt::format("{}: {}", label, why);
                continue;
            }
        }
        try {
            std::unique_ptr<cuda::CudaKernel> kernel = tactic.make(desc, c);
            // A quick look first (slow configs, e.g. cuDNN's FFT on depthwise, take seconds to time fully).
            const double quick = time_kernel_slots(*kernel, slots, static_cast<int>(slots.slots.size()), kQuickReplays,
                                                   stream, desc.name + " " + label);
            if (!report && sweep.best && quick > kQuickMargin * sweep.best->ms) continue;
            double ms = time_kernel_slots(*kernel, slots, launches, replays, stream, desc.name + " " + label);
            TimedConfig timed{ms, label, kernel->detail(), c};
            if (report) report(timed);
            if (!sweep.best || ms < sweep.best->ms) sweep.best = std::move(timed);
        } catch (const std::exception& e) {
            std::fprintf(stderr, "  %s on %s failed: %s\n", label.c_str(), desc.name.c_str(), e.what());
            if (sweep.refusal.empty()) sweep.refusal = fmt::format("{}: failed: {}", label, e.what());
        }
    }
    return sweep;
}

}  // namespace strata::bench
