// cmd_bench.cpp: `strata bench MODEL`: latency and throughput per batch size. Each batch gets its own Engine (build
// once, then run), a warm-up, then timed runs with std::chrono::steady_clock around each Context::run; the report is
// min/median/p90/p99 latency and images/s (batch / median). On the GPU the reported times are GPU time per batch
// from CUDA events around CUDA graph replays (>= 100 after warm-up), and the wall-clock median of run() (host
// copies included) is the e2e column. --json writes the same numbers for scripts.
#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>

#include "commands.h"
#include "core/check.h"
#include "input_loading.h"
#include "model_loading.h"

namespace strata::cli {
namespace {

using Clock = std::chrono::steady_clock;

// Without an explicit --iters/--warmup, slow networks stop early: after at least kMinRuns runs and kBudget seconds.
constexpr int kMinRuns = 10;
constexpr double kBudgetSeconds = 2.0;

struct BenchFlags {
    std::string model;
    std::vector<int> batches;  ///< empty: the model's own batch (1 where it is dynamic)
    int iters = 100;
    int warmup = 10;
    bool iters_given = false;
    bool warmup_given = false;
    BuildFlags build;
    std::string json;
};

struct BenchResult {
    int batch = 0;
    int iters = 0;
    double min_ms = 0, median_ms = 0, p90_ms = 0, p99_ms = 0, images_per_s = 0;
    bool gpu = false;       ///< the figures above are GPU times (CUDA events around graph replays)
    double e2e_median_ms = 0;  ///< GPU: wall time of Context::run, host copies included
};

// GPU time needs enough replays for a stable median (METHOD.md): at least this many.
constexpr int kMinGpuReplays = 100;

double seconds_since(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

// Nearest-rank percentile of sorted samples.
double percentile(const std::vector<double>& sorted, double p) {
    const size_t rank = static_cast<size_t>(std::ceil(p * static_cast<double>(sorted.size())));
    return sorted[std::clamp<size_t>(rank, 1, sorted.size()) - 1];
}

double median(const std::vector<double>& sorted) {
    const size_t n = sorted.size();
    return n % 2 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
}

TensorMap random_feeds(const Engine& engine) {
    TensorMap feeds;
    uint64_t seed = 0;
    for (const TensorInfo& info : engine.inputs())
        feeds[info.name] = random_input(info.dtype, concrete_shape(info, 1), seed++);  // shapes are fixed: checks only
    return feeds;
}

// The batch the Engine was built for: the first axis of its first input (1 for a model without batched inputs).
int engine_batch(const Engine& engine) {
    const std::vector<TensorInfo> inputs = engine.inputs();
    return inputs.empty() || inputs[0].shape.empty() ? 1 : static_cast<int>(inputs[0].shape[0]);
}

// Runs `max_runs` times, or fewer when `adaptive` and the time budget is spent; returns each run's milliseconds.
std::vector<double> timed_runs(Context& context, const TensorMap& feeds, int max_runs, bool adaptive, int min_runs) {
    std::vector<double> ms;
    const Clock::time_point start = Clock::now();
    for (int i = 0; i < max_runs; ++i) {
        const Clock::time_point t0 = Clock::now();
        context.run(feeds).value();
        ms.push_back(std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
        if (adaptive && static_cast<int>(ms.size()) >= min_runs && seconds_since(start) >= kBudgetSeconds) break;
    }
    return ms;
}

BenchResult bench_batch(const LoadedModel& model, const BenchFlags& f, int batch) {
    Engine engine = build_engine(model, build_options(f.build, batch), &f.build);
    batch = engine_batch(engine);
    Context context = engine.make_context().value();
    const TensorMap feeds = random_feeds(engine);
    timed_runs(context, feeds, f.warmup, !f.warmup_given, 1);
    std::vector<double> ms = timed_runs(context, feeds, f.iters, !f.iters_given, kMinRuns);
    std::sort(ms.begin(), ms.end());
    BenchResult r;
    if (engine.options().device.kind == Device::Kind::cuda) {
        r.gpu = true;
        r.e2e_median_ms = median(ms);
        ms = context.time_device(std::max(f.warmup, 10), std::max(f.iters, kMinGpuReplays)).value();
        std::sort(ms.begin(), ms.end());
    }
    r.batch = batch;
    r.iters = static_cast<int>(ms.size());
    r.min_ms = ms.front();
    r.median_ms = median(ms);
    r.p90_ms = percentile(ms, 0.90);
    r.p99_ms = percentile(ms, 0.99);
    r.images_per_s = batch / (r.median_ms / 1000.0);
    return r;
}

void write_json(const std::string& path, const LoadedModel& model, const BenchFlags& f,
                const std::vector<BenchResult>& results) {
    nlohmann::json doc = {{"model", model.name},       {"device", f.build.device},
                          {"precision", f.build.precision}, {"threads", f.build.threads},
                          {"results", nlohmann::json::array()}};
    for (const BenchResult& r : results) {
        doc["results"].push_back({{"batch", r.batch},
                                  {"min_ms", r.min_ms},
                                  {"median_ms", r.median_ms},
                                  {"p90_ms", r.p90_ms},
                                  {"p99_ms", r.p99_ms},
                                  {"images_per_s", r.images_per_s},
                                  {"iters", r.iters},
                                  {"timing", r.gpu ? "gpu: CUDA events around CUDA graph replays" : "wall clock"},
                                  {"e2e_median_ms", r.gpu ? r.e2e_median_ms : r.median_ms}});
    }
    std::ofstream out(path);
    STRATA_CHECK(out.good(), StatusCode::invalid_argument, "--json {}: cannot create file", path);
    out << doc.dump(2) << "\n";
    out.close();
    STRATA_CHECK(out.good(), StatusCode::runtime_error, "--json {}: write failed", path);
}

void bench(const BenchFlags& f) {
    LoadedModel model = load_model(f.model);
    std::printf("%s on %s, %s, %s threads\n", model.name.c_str(), f.build.device.c_str(), f.build.precision.c_str(),
                f.build.threads ? std::to_string(f.build.threads).c_str() : "all");
    bool gpu = f.build.device.rfind("cuda", 0) == 0;
    if (gpu) std::printf("times are GPU time per batch (CUDA events around CUDA graph replays); e2e = run() with copies\n");
    std::printf("%6s %6s %10s %10s %10s %10s %12s%s\n", "batch", "iters", "min ms", "median ms", "p90 ms", "p99 ms",
                "images/s", gpu ? "    e2e ms" : "");
    std::vector<BenchResult> results;
    for (int batch : f.batches.empty() ? std::vector<int>{0} : f.batches) {
        const BenchResult r = bench_batch(model, f, batch);
        std::printf("%6d %6d %10.4f %10.4f %10.4f %10.4f %12.1f", r.batch, r.iters, r.min_ms, r.median_ms, r.p90_ms,
                    r.p99_ms, r.images_per_s);
        if (r.gpu) std::printf(" %9.4f", r.e2e_median_ms);
        std::printf("\n");
        std::fflush(stdout);
        results.push_back(r);
    }
    if (!f.json.empty()) write_json(f.json, model, f, results);
}

}  // namespace

Subcommand add_bench_command(CLI::App& app) {
    auto flags = std::make_shared<BenchFlags>();
    CLI::App* cmd = app.add_subcommand("bench", "measure latency (min/median/p90/p99) and images/s per batch size");
    add_model_argument(*cmd, flags->model);
    cmd->add_option("--batch", flags->batches,
                    "batch sizes, comma-separated; an Engine is built for each (default: the model's own, 1 where "
                    "it is dynamic)")
        ->delimiter(',')
        ->check(at_least(1));
    CLI::Option* iters = cmd->add_option("--iters", flags->iters,
                                         "timed runs per batch size (default 100, fewer when runs are slow: it stops "
                                         "after 10 runs once 2 s have passed)")
                             ->check(at_least(1));
    CLI::Option* warmup = cmd->add_option("--warmup", flags->warmup,
                                          "untimed runs first (default 10, fewer when runs are slow: stops after 2 s)")
                              ->check(at_least(0));
    add_build_flags(*cmd, flags->build);
    cmd->add_option("--json", flags->json, "also write the results as JSON to this file");
    cmd->footer("Examples:\n  strata bench mobilenet_v2\n"
                "  strata bench model.onnx --batch 1,8,32 --iters 50 --threads 4 --json bench.json");
    return {cmd, [flags, iters, warmup] {
                flags->iters_given = iters->count() > 0;
                flags->warmup_given = warmup->count() > 0;
                bench(*flags);
            }};
}

}  // namespace strata::cli
