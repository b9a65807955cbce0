// model_loading.cpp: MODEL -> Model, and the build flags -> BuildOptions, shared by run, bench and inspect so that
// every subcommand reads a model and reports a bad one the same way.
#include "model_loading.h"

#include <algorithm>
#include <filesystem>
#include <unistd.h>

#include "core/check.h"
#include "zoo/zoo.h"

namespace strata::cli {
namespace {

bool ends_with(const std::string& s, const std::string& suffix) {
    return s.size() >= suffix.size() && std::equal(suffix.rbegin(), suffix.rend(), s.rbegin(),
                                                   [](char a, char b) { return std::tolower(a) == std::tolower(b); });
}

std::string zoo_list() {
    std::string list;
    for (const std::string& n : zoo::names()) list += (list.empty() ? "" : ", ") + n;
    return list;
}

}  // namespace

LoadedModel load_model(const std::string& spec) {
    namespace fs = std::filesystem;
    std::error_code ec;
    const bool exists = fs::exists(spec, ec);
    if (ends_with(spec, ".plan")) {
        STRATA_CHECK(exists, StatusCode::not_found, "{}: no such plan file", spec);
        return {std::nullopt, fs::path(spec).stem().string(), spec};
    }
    if (exists || ends_with(spec, ".onnx") || spec.find('/') != std::string::npos) {
        STRATA_CHECK(exists, StatusCode::not_found, "{}: no such model file", spec);
        STRATA_CHECK(fs::is_regular_file(spec, ec), StatusCode::invalid_argument, "{}: is not a file", spec);
        return {Model::from_onnx(spec).value(), fs::path(spec).stem().string()};
    }
    const std::vector<std::string> names = zoo::names();
    STRATA_CHECK(std::find(names.begin(), names.end(), spec) != names.end(), StatusCode::not_found,
                 "'{}' is neither a model file nor a built-in network (built-in: {}; `strata zoo` describes them)",
                 spec, zoo_list());
    return {Model::from_zoo(spec).value(), spec};
}

CLI::Validator at_least(int minimum) {
    return CLI::Validator(
        [minimum](std::string& text) -> std::string {
            size_t used = 0;
            long long v = 0;
            try {
                v = std::stoll(text, &used);
            } catch (const std::exception&) {
                used = 0;
            }
            if (used != text.size() || used == 0 || v < minimum)
                return fmt::format("must be an integer >= {}, not '{}'", minimum, text);
            return "";
        },
        fmt::format("INT>={}", minimum));
}

void add_model_argument(CLI::App& cmd, std::string& model) {
    cmd.add_option("MODEL", model, "a .onnx file or a built-in network name (see `strata zoo`)")->required();
}

void add_build_flags(CLI::App& cmd, BuildFlags& flags) {
    flags.device_option =
        cmd.add_option("--device", flags.device, "where to run: cpu, cuda or cuda:N")->capture_default_str();
    flags.precision_option =
        cmd.add_option("--precision", flags.precision,
                       "arithmetic of convolutions and GEMMs: fp32, tf32 (fp32 data, TF32 tensor cores), fp16, bf16, "
                       "int8; on the GPU, activations are stored in fp16/bf16 for those precisions")
            ->capture_default_str();
    cmd.add_option("--threads", flags.threads, "CPU worker threads (0 = one per core)")
        ->capture_default_str()
        ->check(at_least(0));
    cmd.add_option("--timing-cache", flags.timing_cache,
                   "GPU: file of measured kernel times that makes later builds fast (default "
                   "$STRATA_TIMING_CACHE or ~/.cache/strata/timing.cache; 'none' = no cache)");
}

BuildOptions build_options(const BuildFlags& flags, int batch) {
    BuildOptions options;
    Expected<Device> device = Device::parse(flags.device);
    STRATA_CHECK(device.ok(), StatusCode::invalid_argument, "--device {}: {}", flags.device,
                 device.status().message());
    Expected<Precision> precision = parse_precision(flags.precision);
    STRATA_CHECK(precision.ok(), StatusCode::invalid_argument, "--precision {}: {}", flags.precision,
                 precision.status().message());
    options.device = *device;
    options.precision = *precision;
    options.threads = flags.threads;
    options.batch = batch;
    options.timing_cache = flags.timing_cache;
    options.show_progress = options.device.kind == Device::Kind::cuda && isatty(STDERR_FILENO);
    return options;
}

Engine build_engine(const LoadedModel& model, const BuildOptions& options, const BuildFlags* flags) {
    if (model.plan_path.empty()) return Engine::build(*model.model, options).value();
    Engine engine = Engine::load(model.plan_path).value();
    const BuildOptions& built = engine.options();
    auto differs = [&](const char* what, const std::string& asked, const std::string& plan) {
        STRATA_CHECK(asked == plan, StatusCode::invalid_argument,
                     "{}: the plan was built for {} {}, not {} (build another plan with `strata build`)",
                     model.plan_path, what, plan, asked);
    };
    if (flags && flags->device_option && flags->device_option->count())
        differs("device", options.device.str(), built.device.str());
    if (flags && flags->precision_option && flags->precision_option->count())
        differs("precision", precision_name(options.precision), precision_name(built.precision));
    if (options.batch > 0) differs("batch", std::to_string(options.batch), std::to_string(built.batch));
    return engine;
}

}  // namespace strata::cli
