// cmd_build.cpp: `strata build MODEL -o x.plan`: build once (passes, kernel timing, memory plan) and save the plan,
// so that `strata run x.plan` and `strata bench x.plan` start without rebuilding (TensorRT's trtexec --saveEngine).
#include <fmt/format.h>

#include <chrono>
#include <cstdio>
#include <filesystem>

#include "commands.h"
#include "core/check.h"
#include "model_loading.h"

namespace strata::cli {
namespace {

struct BuildCommandFlags {
    std::string model;
    std::string output;
    int batch = 0;
    BuildFlags build;
};

void build_and_save(const BuildCommandFlags& f) {
    LoadedModel model = load_model(f.model);
    STRATA_CHECK(model.model.has_value(), StatusCode::invalid_argument,
                 "{}: is already a plan; build from the .onnx file or a zoo name", f.model);
    auto start = std::chrono::steady_clock::now();
    Engine engine = build_engine(model, build_options(f.build, f.batch), &f.build);
    double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    Status saved = engine.save(f.output);
    STRATA_CHECK(saved.ok(), saved.code(), "{}", saved.message());
    std::error_code ec;
    auto bytes = std::filesystem::file_size(f.output, ec);
    const BuildOptions& o = engine.options();
    std::printf("built %s for %s, %s, batch %d in %.2f s; saved %s (%.1f MB)\n", model.name.c_str(),
                o.device.str().c_str(), precision_name(o.precision), o.batch, seconds, f.output.c_str(),
                ec ? 0.0 : static_cast<double>(bytes) / (1 << 20));
}

}  // namespace

Subcommand add_build_command(CLI::App& app) {
    auto flags = std::make_shared<BuildCommandFlags>();
    CLI::App* cmd = app.add_subcommand(
        "build", "compile MODEL for one device, precision and batch size and save the plan (run/bench load it)");
    add_model_argument(*cmd, flags->model);
    cmd->add_option("-o,--output", flags->output, "the plan file to write (NAME.plan)")->required();
    cmd->add_option("--batch", flags->batch, "batch size (default: the model's own, 1 where it is dynamic)")
        ->check(at_least(1));
    flags->build.device = "cuda";
    add_build_flags(*cmd, flags->build);
    cmd->footer("The plan holds the optimised graph, the chosen kernels, the memory plan and the weights; it runs only\n"
                "on the GPU model, driver generation and strata version it was built with.\n\n"
                "Example:\n  strata build mobilenet_v2.onnx -o mobilenet_v2.plan --precision fp16 --batch 64\n"
                "  strata bench mobilenet_v2.plan");
    return {cmd, [flags] { build_and_save(*flags); }};
}

}  // namespace strata::cli
