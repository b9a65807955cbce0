// model_loading.cpp: MODEL -> Model, and the build flags -> BuildOptions, shared by run, bench and inspect so that
// every subcommand reads a model and reports a bad one the same way.
#include "model_loading.h"

#include <algorithm>
#include <filesystem>

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
        STRATA_THROW(StatusCode::unsupported, "{}: loading a .plan is not yet available: needs the CUDA backend "
                                              "(issue 3); give a .onnx file or a zoo name", spec);
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
    cmd.add_option("--device", flags.device, "where to run: cpu, cuda or cuda:N")->capture_default_str();
    cmd.add_option("--precision", flags.precision, "arithmetic of convolutions and GEMMs: fp32, tf32, fp16, bf16, int8")
        ->capture_default_str();
    cmd.add_option("--threads", flags.threads, "CPU worker threads (0 = one per core)")
        ->capture_default_str()
        ->check(at_least(0));
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
    return options;
}

Engine build_engine(const LoadedModel& model, const BuildOptions& options) {
    return Engine::build(model.model, options).value();
}

}  // namespace strata::cli
