// main.cpp: the `strata` command line. Builds the App from the subcommands (one file each), parses, runs the chosen
// one, and turns every failure into ONE line on stderr: usage errors exit 2 (CLI11's message), strata errors exit 1
// ("strata: error: <message>"). No stack trace, no abort, for anything a user can type.
#include <CLI/CLI.hpp>

#include <cstdio>
#include <exception>
#include <new>
#include <string>
#include <vector>

#include "commands.h"
#include "strata/status.h"

namespace {

// Messages are one line by contract; a stray newline from a nested error must not break that for scripts.
std::string one_line(std::string message) {
    while (!message.empty() && (message.back() == '\n' || message.back() == ' ')) message.pop_back();
    for (char& c : message)
        if (c == '\n' || c == '\r') c = ' ';
    return message;
}

int report(const std::string& message, int exit_code) {
    std::fprintf(stderr, "strata: error: %s\n", one_line(message).c_str());
    return exit_code;
}

std::string usage_failure(const CLI::App* app, const CLI::Error& e) {
    std::string help = app->get_name();
    for (const CLI::App* sub : app->get_subcommands()) help += " " + sub->get_name();
    return "strata: error: " + one_line(e.what()) + " (see `" + help + " --help`)\n";
}

}  // namespace

int main(int argc, char** argv) {
    CLI::App app{"strata: compiles a CNN (ONNX file or built-in network) once, then runs it fast.", "strata"};
    app.set_version_flag("--version", "strata " STRATA_VERSION, "print the version and exit");
    app.require_subcommand(1, 1);
    app.failure_message(usage_failure);
    app.footer("Examples:\n  strata zoo\n  strata run mobilenet_v2 --input cat.jpg --top 5\n"
               "  strata bench model.onnx --batch 1,8 --json bench.json\n\n"
               "`strata SUBCOMMAND --help` explains each subcommand's flags.");

    std::vector<strata::cli::Subcommand> commands = {
        strata::cli::add_run_command(app),   strata::cli::add_bench_command(app), strata::cli::add_inspect_command(app),
        strata::cli::add_zoo_command(app),   strata::cli::add_build_command(app), strata::cli::add_profile_command(app),
    };
    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        return app.exit(e) == 0 ? 0 : 2;  // --help and --version arrive here as "errors" with code 0
    }
    try {
        for (const auto& cmd : commands)
            if (cmd.app->parsed()) cmd.run();
        return 0;
    } catch (const strata::Error& e) {
        return report(e.what(), 1);
    } catch (const std::bad_alloc&) {
        return report("out of memory", 1);
    } catch (const std::exception& e) {
        return report(e.what(), 1);
    }
}
