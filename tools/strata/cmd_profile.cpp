// cmd_profile.cpp: `strata profile MODEL`: where the time goes, step by step. Builds the Engine, runs it once on
// random inputs, then times every step on its own (a CUDA graph of 10 launches of the step, replayed --iters
// times; the median per launch) and prints each step's kernel, time, share of the total, and the rates it reached: GB/s over the fewest
// bytes the step must move and TFLOP/s over its arithmetic (ir/cost.h). The predicted time and the floor come
// with the performance model.
#include <fmt/format.h>

#include <algorithm>
#include <cstdio>

#include "commands.h"
#include "core/check.h"
#include "input_loading.h"
#include "model_loading.h"

namespace strata::cli {
namespace {

struct ProfileFlags {
    std::string model;
    int batch = 0;
    int iters = 50;
    int top = 0;  ///< 0: every step, in order; N: the N slowest
    BuildFlags build;
};

void profile(const ProfileFlags& f) {
    LoadedModel model = load_model(f.model);
    Engine engine = build_engine(model, build_options(f.build, f.batch), &f.build);
    STRATA_CHECK(engine.options().device.kind == Device::Kind::cuda, StatusCode::unsupported,
                 "unsupported: strata profile times GPU steps (use --device cuda); on the CPU, STRATA_DEBUG=2 strata "
                 "run prints each step's time");
    Context context = engine.make_context().value();
    TensorMap feeds;
    uint64_t seed = 0;
    for (const TensorInfo& info : engine.inputs())
        feeds[info.name] = random_input(info.dtype, concrete_shape(info, 1), seed++);
    context.run(feeds).value();
    std::vector<Context::StepTime> steps = context.profile_steps(f.iters).value();
    double total = 0;
    for (const auto& s : steps) total += s.ms;
    std::vector<size_t> order(steps.size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = i;
    if (f.top > 0) {
        std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return steps[a].ms > steps[b].ms; });
        order.resize(std::min<size_t>(order.size(), f.top));
    }
    std::printf("%s on %s, %s: %zu steps, %.4f ms in total (each step alone, graph replays, median of %d)\n",
                model.name.c_str(), f.build.device.c_str(), f.build.precision.c_str(), steps.size(), total, f.iters);
    std::printf("%4s  %-36s %-16s %-34s %9s %6s %9s %9s  %s\n", "step", "name", "op", "kernel", "ms", "%", "GB/s",
                "TFLOP/s", "inside the kernel");
    for (size_t i : order) {
        const auto& s = steps[i];
        double gbs = s.ms > 0 ? s.bytes / (s.ms * 1e6) : 0, tflops = s.ms > 0 ? s.flops / (s.ms * 1e9) : 0;
        std::printf("%4zu  %-36.36s %-16.16s %-34.34s %9.4f %6.1f %9.1f %9.2f  %s\n", i, s.name.c_str(), s.op.c_str(),
                    s.kernel.c_str(), s.ms, total > 0 ? 100 * s.ms / total : 0, gbs, tflops, s.detail.c_str());
    }
}

}  // namespace

Subcommand add_profile_command(CLI::App& app) {
    auto flags = std::make_shared<ProfileFlags>();
    CLI::App* cmd = app.add_subcommand("profile", "time every step of MODEL on the GPU: kernel, ms, share, GB/s, TFLOP/s");
    add_model_argument(*cmd, flags->model);
    cmd->add_option("--batch", flags->batch, "batch size (default: the model's own, 1 where it is dynamic)")
        ->check(at_least(1));
    cmd->add_option("--iters", flags->iters, "timed launches per step (median)")->capture_default_str()->check(at_least(1));
    cmd->add_option("--top", flags->top, "show only the N slowest steps")->check(at_least(1));
    flags->build.device = "cuda";
    add_build_flags(*cmd, flags->build);
    cmd->footer("Example:\n  strata profile mobilenet_v2.onnx --precision fp16 --batch 8 --top 15");
    return {cmd, [flags] { profile(*flags); }};
}

}  // namespace strata::cli
