// conv_layers_gpu.cpp: strata's own convolution kernels against cuDNN, layer by layer (issue 3, acceptance 4).
// Takes the distinct 1x1 and 3x3 convolutions of a zoo network (default resnet50) at a batch size (default 64),
// and for each layer times every configuration of every Conv tactic that can run it, at fp16 in NHWC (or the
// --precision / --layout given). Each timing is a CUDA graph of 20 launches, replayed; the median of 15 replays
// per launch (bench/gpu_bench.h). Prints per layer: shape, GFLOP, strata's best (tactic#config), cuDNN's best, the
// ratio strata / cuDNN and TFLOP/s, and the Hopper kernel alone (cuda.conv.implicit_gemm_sm90: its time and its
// ratio to cuDNN; "-" where it cannot run); then the worst and the geometric mean ratio, for strata's best and for
// the sm90 kernel alone.
//     conv_layers_gpu [--model resnet50] [--batch 64] [--precision fp16|bf16|fp32|tf32] [--layout nhwc|nchw]
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "backends/cuda/cuda_tactic.h"
#include "gpu_bench.h"
#include "ir/cost.h"
#include "passes/pass.h"
#include "zoo/zoo.h"

using namespace strata;

namespace {

struct Options {
    std::string model = "resnet50";
    int batch = 64;
    std::string precision = "fp16";
    std::string layout = "nhwc";
};

Options parse(int argc, char** argv) {
    Options o;
    for (int i = 1; i + 1 < argc; i += 2) {
        std::string k = argv[i], v = argv[i + 1];
        if (k == "--model") o.model = v;
        else if (k == "--batch") o.batch = std::atoi(v.c_str());
        else if (k == "--precision") o.precision = v;
        else if (k == "--layout") o.layout = v;
        else throw std::runtime_error("unknown flag " + k);
    }
    return o;
}

// A key that identifies a layer's shape, so repeated blocks are timed once.
std::string layer_key(const ir::Graph& g, const ir::Node& n) {
    const auto& a = n.attr<ir::ConvAttrs>();
    return fmt::format("{} w{} s{} p{} g{}", shape_str(g.value(n.inputs[0]).shape), shape_str(g.value(n.inputs[1]).shape),
                       a.strides[0], a.pads_begin[0], a.group);
}

constexpr int kLaunches = 20;  // per graph
constexpr int kReplays = 15;
constexpr const char* kSm90Tactic = "cuda.conv.implicit_gemm_sm90";

struct Best {
    double ms = 0;
    std::string name;
};

}  // namespace

int main(int argc, char** argv) try {
    Options o = parse(argc, argv);
    DType dtype = o.precision == "fp16" ? DType::f16 : o.precision == "bf16" ? DType::bf16 : DType::f32;
    Layout layout = o.layout == "nhwc" ? Layout::nhwc : Layout::nchw;
    auto graph = zoo::build(o.model);
    passes::set_batch(*graph, o.batch);
    passes::run_pipeline(*graph, passes::default_pipeline());
    const cuda::DeviceInfo& info = cuda::device_info(0);
    cuda::set_device(0);
    cuda::Stream stream;
    std::printf("%s conv layers, batch %d, %s %s, on %s\n", o.model.c_str(), o.batch, o.precision.c_str(),
                o.layout.c_str(), info.summary().c_str());
    std::printf("%-44s %8s %10s %-34s %10s %-40s %7s %8s %10s %7s\n", "layer (input, weight, stride, pad, group)",
                "GFLOP", "strata ms", "strata kernel", "cuDNN ms", "cuDNN kernel", "ratio", "TFLOP/s", "sm90 ms",
                "sm90/cu");
    std::map<std::string, bool> seen;
    double log_sum = 0, worst = 0, sm90_log_sum = 0, sm90_worst = 0;
    int count = 0, sm90_count = 0;
    std::string sm90_refusal;
    for (const ir::Node& node : graph->nodes()) {
        if (node.op != ir::OpKind::Conv) continue;
        int64_t k = node.attr<ir::ConvAttrs>().kernel[0];
        if (k != 1 && k != 3) continue;
        std::string key = layer_key(*graph, node);
        if (seen[key]) continue;
        seen[key] = true;
        cuda::StepDesc desc = bench::step_desc(*graph, node, dtype, layout, info, o.precision == "tf32");
        bench::StepSlots slots = bench::make_step_slots(desc, 1, stream.get());
        Best own, lib, sm90;
        for (const cuda::CudaTactic* t : cuda::CudaTacticRegistry::global().candidates(ir::OpKind::Conv)) {
            bench::TacticSweep sweep = bench::sweep_tactic(*t, desc, slots, kLaunches, kReplays, stream.get());
            if (!sweep.best && t->name == kSm90Tactic && sm90_refusal.empty()) sm90_refusal = sweep.refusal;
            if (!sweep.best) continue;
            Best& b = t->from_library ? lib : own;
            if (b.name.empty() || sweep.best->ms < b.ms) b = {sweep.best->ms, sweep.best->name};
            if (t->name == kSm90Tactic) sm90 = {sweep.best->ms, sweep.best->name};
        }
        double gflop = ir::node_cost(*graph, node).flops / 1e9;
        double ratio = own.ms > 0 && lib.ms > 0 ? own.ms / lib.ms : 0;
        if (ratio > 0) {
            log_sum += std::log(ratio);
            worst = std::max(worst, ratio);
            ++count;
        }
        const double sm90_ratio = sm90.ms > 0 && lib.ms > 0 ? sm90.ms / lib.ms : 0;
        if (sm90_ratio > 0) {
            sm90_log_sum += std::log(sm90_ratio);
            sm90_worst = std::max(sm90_worst, sm90_ratio);
            ++sm90_count;
        }
        std::printf("%-44.44s %8.2f %10.4f %-34.34s %10.4f %-40.40s %7.3f %8.1f ", key.c_str(), gflop, own.ms,
                    own.name.c_str(), lib.ms, lib.name.c_str(), ratio, own.ms > 0 ? gflop / own.ms : 0.0);
        if (sm90.ms > 0)
            std::printf("%10.4f %7.3f\n", sm90.ms, sm90_ratio);
        else
            std::printf("%10s %7s\n", "-", "-");
    }
    if (count)
        std::printf("strata / cuDNN over %d layers: geometric mean %.3f, worst %.3f\n", count,
                    std::exp(log_sum / count), worst);
    if (sm90_count)
        std::printf("%s / cuDNN over %d layers: geometric mean %.3f, worst %.3f\n", kSm90Tactic, sm90_count,
                    std::exp(sm90_log_sum / sm90_count), sm90_worst);
    else
        std::printf("%s ran on no layer (first reason: %s)\n", kSm90Tactic, sm90_refusal.c_str());
    return 0;
} catch (const std::exception& e) {
    std::fprintf(stderr, "conv_layers_gpu: %s\n", e.what());
    return 1;
}
