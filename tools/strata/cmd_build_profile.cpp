// cmd_build_profile.cpp: `strata build` (save a compiled plan) and `strata profile` (per-step measured vs predicted
// time). Both need the CUDA backend and the plan format of issue 3; until then they are listed in --help and answer
// honestly that they are not yet available, rather than pretending with a CPU stand-in.
#include "commands.h"
#include "core/check.h"

namespace strata::cli {
namespace {

Subcommand add_pending(CLI::App& app, const std::string& name, const std::string& help, const std::string& example) {
    CLI::App* cmd = app.add_subcommand(name, help + " (not yet available: needs the CUDA backend, issue 3)");
    cmd->allow_extras();  // accept the future flags, so the answer is the one below and not a usage error
    cmd->footer("Example (once available):\n  " + example);
    return {cmd, [name] {
                STRATA_THROW(StatusCode::unsupported, "strata {}: not yet available: needs the CUDA backend (issue 3)",
                             name);
            }};
}

}  // namespace

Subcommand add_build_command(CLI::App& app) {
    return add_pending(app, "build", "compile MODEL for one device, precision and batch range and save the plan",
                       "strata build mobilenet_v2.onnx -o mobilenet_v2.plan --device cuda --precision fp16");
}

Subcommand add_profile_command(CLI::App& app) {
    return add_pending(app, "profile", "per-step measured vs predicted time, bound, achieved GB/s and FLOP/s",
                       "strata profile mobilenet_v2.onnx --device cuda --batch 8");
}

}  // namespace strata::cli
