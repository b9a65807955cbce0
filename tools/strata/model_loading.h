// model_loading.h: what the subcommands that take a MODEL share. MODEL is a .onnx path or a zoo name (later a .plan);
// --device, --precision and --threads become BuildOptions the same way everywhere.
#pragma once

#include <CLI/CLI.hpp>

#include <optional>
#include <string>

#include "strata/engine.h"

namespace strata::cli {

struct LoadedModel {
    std::optional<Model> model;  ///< absent for a plan
    std::string name;            ///< the zoo name or the file's stem, for messages and reports
    std::string plan_path;       ///< a saved plan (MODEL.plan): loaded, not built
};

/// Loads MODEL: a .plan is remembered for build_engine; an existing file (or anything ending in .onnx) is read as
/// ONNX; otherwise a zoo name.
LoadedModel load_model(const std::string& spec);

/// The flags that choose how an Engine is built.
struct BuildFlags {
    std::string device = "cpu";
    std::string precision = "fp32";
    int threads = 0;
    std::string timing_cache;  ///< GPU builds: "" = the default file, "none" = no cache
    // Set by add_build_flags: whether the user gave the flag (a plan's own settings win over defaults only).
    CLI::Option* device_option = nullptr;
    CLI::Option* precision_option = nullptr;
};

/// Flag checks with a readable message ("--top: must be an integer >= 1, not '0'").
CLI::Validator at_least(int minimum);

/// Adds MODEL (positional, required) to `cmd`.
void add_model_argument(CLI::App& cmd, std::string& model);
/// Adds --device, --precision, --threads and --timing-cache to `cmd`.
void add_build_flags(CLI::App& cmd, BuildFlags& flags);
/// Checks the flags and turns them into BuildOptions for `batch` (0 = the model's own).
BuildOptions build_options(const BuildFlags& flags, int batch);
/// Builds the Engine (a failure throws the engine's own message, which names the model's file, node and op), or
/// loads the plan, checking that what `flags` and `batch` ask for is what the plan was built for.
Engine build_engine(const LoadedModel& model, const BuildOptions& options, const BuildFlags* flags = nullptr);

}  // namespace strata::cli
