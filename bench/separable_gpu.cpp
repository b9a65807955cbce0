// separable_gpu.cpp: the fused depthwise -> pointwise kernel (backends/cuda/kernels/fused/separable.h) against the
// two separate steps it replaces (issue 4), on every depthwise convolution of a zoo network (default mobilenet_v2)
// whose only consumer is a 1x1 convolution. For each distinct pair and batch: the depthwise step's and the
// pointwise step's best (tactic, config) among all Conv tactics, cuDNN included, their sum, the fused kernel's time
// and fused / separate, and the DRAM bytes the fusion saves (the mid tensor written once and read once). Each time
// is the median of 15 replays of a CUDA graph of 20 launches (bench/gpu_bench.h), fp16 NHWC unless --precision bf16.
//     separable_gpu [--model mobilenet_v2] [--batch 1,64] [--precision fp16|bf16]
#include <cmath>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "backends/cuda/cuda_tactic.h"
#include "backends/cuda/kernels/common/fill_random.h"
#include "backends/cuda/kernels/fused/separable.h"
#include "gpu_bench.h"
#include "passes/pass.h"
#include "passes/passes.h"
#include "zoo/zoo.h"

using namespace strata;

namespace {

struct Options {
    std::string model = "mobilenet_v2";
    std::vector<int> batches = {1, 64};
    std::string precision = "fp16";
};

Options parse(int argc, char** argv) {
    Options o;
    for (int i = 1; i < argc; i += 2) {
        const std::string k = argv[i];
        if (k == "--help" || k == "-h") {
            std::printf("separable_gpu [--model mobilenet_v2] [--batch 1,64] [--precision fp16|bf16]\n");
            std::exit(0);
        }
        if (i + 1 >= argc) throw std::runtime_error("flag " + k + " needs a value");
        const std::string v = argv[i + 1];
        if (k == "--model") {
            o.model = v;
        } else if (k == "--batch") {
            o.batches.clear();
            std::stringstream ss(v);
            for (std::string b; std::getline(ss, b, ',');) o.batches.push_back(std::stoi(b));
        } else if (k == "--precision") {
            o.precision = v;
        } else {
            throw std::runtime_error("unknown flag " + k + " (--help lists them)");
        }
    }
    return o;
}

constexpr int kLaunches = 20;
constexpr int kReplays = 15;

// The pair's two Conv nodes (passes::separable_pairs gives their indices).
struct Pair {
    const ir::Node* dw;
    const ir::Node* pw;
};

// The best time over every Conv tactic and config for one step ("-" when none runs it).
bench::TimedConfig best_step(const cuda::StepDesc& desc, cudaStream_t stream) {
    bench::StepSlots slots = bench::make_step_slots(desc, 1, stream);
    bench::TimedConfig best;
    for (const cuda::CudaTactic* t : cuda::CudaTacticRegistry::global().candidates(ir::OpKind::Conv)) {
        bench::TacticSweep sweep = bench::sweep_tactic(*t, desc, slots, kLaunches, kReplays, stream);
        if (sweep.best && (best.name.empty() || sweep.best->ms < best.ms)) best = *sweep.best;
    }
    return best;
}

cuda::DeviceBuffer random_buffer(DType dtype, int64_t count, uint64_t seed, cudaStream_t stream) {
    cuda::DeviceBuffer b(static_cast<size_t>(count) * dtype_size(dtype), "bench buffer");
    cuda::fill_random(b.data(), dtype, count, seed, stream);
    return b;
}

// The fused kernel's time on the pair's shapes, random data.
double time_fused(const ir::Graph& g, const Pair& pr, DType dtype, cudaStream_t stream) {
    const Shape& x = g.value(pr.dw->inputs[0]).shape;
    const Shape& y = g.value(pr.pw->outputs[0]).shape;
    const auto& da = pr.dw->attr<ir::ConvAttrs>();
    const auto& pa = pr.pw->attr<ir::ConvAttrs>();
    cuda::SeparableParams prm;
    prm.n = static_cast<int>(x[0]), prm.cm = static_cast<int>(x[1]), prm.h = static_cast<int>(x[2]);
    prm.w = static_cast<int>(x[3]), prm.k = static_cast<int>(y[1]), prm.p = static_cast<int>(y[2]);
    prm.q = static_cast<int>(y[3]), prm.r = static_cast<int>(da.kernel[0]), prm.s = static_cast<int>(da.kernel[1]);
    prm.stride_h = static_cast<int>(da.strides[0]), prm.stride_w = static_cast<int>(da.strides[1]);
    prm.pad_h = static_cast<int>(da.pads_begin[0]), prm.pad_w = static_cast<int>(da.pads_begin[1]);
    const std::string why = cuda::separable_problem(dtype, prm.cm, prm.k, prm.r, prm.s, prm.stride_h, prm.stride_w);
    if (!why.empty()) {
        std::printf("  fused kernel refuses: %s\n", why.c_str());
        return 0;
    }
    STRATA_CUDA_CHECK(cuda::separable_prepare(dtype, prm.r, prm.stride_h, prm.k), "separable_prepare");
    const int64_t nx = x[0] * x[1] * x[2] * x[3], ny = y[0] * y[1] * y[2] * y[3];
    cuda::DeviceBuffer bx = random_buffer(dtype, nx, 1, stream), bwd = random_buffer(dtype, prm.r * prm.s * prm.cm, 2, stream);
    cuda::DeviceBuffer bwp = random_buffer(dtype, int64_t{prm.k} * prm.cm, 3, stream);
    cuda::DeviceBuffer bbd = random_buffer(DType::f32, prm.cm, 4, stream), bbp = random_buffer(DType::f32, prm.k, 5, stream);
    cuda::DeviceBuffer bz = random_buffer(dtype, ny, 6, stream), by(static_cast<size_t>(ny) * dtype_size(dtype), "out");
    prm.x = bx.data(), prm.wd = bwd.data(), prm.wp = bwp.data(), prm.y = by.data();
    prm.bd = static_cast<const float*>(bbd.data());
    prm.act_d = cuda::activation_params(da.activation);
    prm.epilogue.bias = static_cast<const float*>(bbp.data());
    prm.epilogue.residual = pr.pw->input(3) != ir::kNoValue ? bz.data() : nullptr;
    prm.epilogue.act = cuda::activation_params(pa.activation);
    auto launch = [&](int, cudaStream_t s) { cuda::separable_launch(prm, dtype, s); };
    return bench::time_slot_launches(launch, 1, kLaunches, kReplays, stream, pr.dw->name + " fused");
}

}  // namespace

int main(int argc, char** argv) try {
    const Options o = parse(argc, argv);
    const DType dtype = o.precision == "bf16" ? DType::bf16 : DType::f16;
    const cuda::DeviceInfo& info = cuda::device_info(0);
    cuda::set_device(0);
    cuda::Stream stream;
    std::printf("%s depthwise -> pointwise pairs, %s nhwc, on %s\n", o.model.c_str(), o.precision.c_str(),
                info.summary().c_str());
    std::printf("%-5s %-40s %9s %-28s %9s %-28s %9s %9s %7s %8s\n", "batch", "pair (dw input, k, s -> K)", "dw ms",
                "dw kernel", "pw ms", "pw kernel", "sum ms", "fused ms", "f/sum", "MB saved");
    for (int batch : o.batches) {
        auto graph = zoo::build(o.model);
        passes::set_batch(*graph, batch);
        passes::run_pipeline(*graph, passes::default_pipeline());
        std::map<std::string, bool> seen;
        double log_sum = 0;
        int count = 0;
        for (const passes::SeparablePair& sp : passes::separable_pairs(*graph)) {
            const Pair pr{&graph->nodes()[sp.dw], &graph->nodes()[sp.pw]};
            const Shape& x = graph->value(pr.dw->inputs[0]).shape;
            const auto& da = pr.dw->attr<ir::ConvAttrs>();
            const int64_t k = graph->value(pr.pw->outputs[0]).shape[1];
            const std::string key = fmt::format("{} k{} s{} -> {}{}", shape_str(x), da.kernel[0], da.strides[0], k,
                                                pr.pw->input(3) != ir::kNoValue ? " +z" : "");
            if (seen[key]) continue;
            seen[key] = true;
            const bench::TimedConfig dw =
                best_step(bench::step_desc(*graph, *pr.dw, dtype, Layout::nhwc, info), stream.get());
            const bench::TimedConfig pw =
                best_step(bench::step_desc(*graph, *pr.pw, dtype, Layout::nhwc, info), stream.get());
            const double fused = time_fused(*graph, pr, dtype, stream.get());
            const double sum = dw.ms + pw.ms;
            const Shape& mid = graph->value(pr.dw->outputs[0]).shape;
            const double saved_mb = 2.0 * mid[0] * mid[1] * mid[2] * mid[3] * dtype_size(dtype) / 1e6;
            if (fused > 0 && sum > 0) log_sum += std::log(fused / sum), ++count;
            std::printf("%-5d %-40.40s %9.4f %-28.28s %9.4f %-28.28s %9.4f %9.4f %7.3f %8.1f\n", batch, key.c_str(),
                        dw.ms, dw.name.c_str(), pw.ms, pw.name.c_str(), sum, fused, sum > 0 ? fused / sum : 0.0,
                        saved_mb);
        }
        if (count)
            std::printf("batch %d: fused / separate over %d pairs, geometric mean %.3f\n", batch, count,
                        std::exp(log_sum / count));
    }
    return 0;
} catch (const std::exception& e) {
    std::fprintf(stderr, "separable_gpu: %s\n", e.what());
    return 1;
}
