// commands.h: the subcommands of `strata`, one file each (cmd_*.cpp). Each adds itself to the App and hands back the
// function main() calls when it was chosen, so that all parsing (and every usage error) comes before any work.
#pragma once

#include <CLI/CLI.hpp>

#include <functional>

namespace strata::cli {

/// A registered subcommand: its CLI11 App and what it does. `run` reports failure by throwing strata::Error.
struct Subcommand {
    CLI::App* app = nullptr;
    std::function<void()> run;
};

Subcommand add_run_command(CLI::App& app);
Subcommand add_bench_command(CLI::App& app);
Subcommand add_inspect_command(CLI::App& app);
Subcommand add_zoo_command(CLI::App& app);
/// `build` saves a plan; `profile` times each step on the GPU.
Subcommand add_build_command(CLI::App& app);
Subcommand add_profile_command(CLI::App& app);

}  // namespace strata::cli
