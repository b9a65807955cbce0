// cmd_zoo.cpp: `strata zoo` lists the networks built into strata (usable wherever a MODEL is asked for), each with
// a one-line description, so that a first-time user can run something without an ONNX file.
#include <algorithm>
#include <cstdio>
#include <map>
#include <string>

#include "commands.h"
#include "zoo/zoo.h"

namespace strata::cli {
namespace {

// One line per network; a network added to the zoo without a line here is still listed.
std::string describe(const std::string& name) {
    static const std::map<std::string, std::string> kDescriptions = {
        {"squeezenet1_1", "SqueezeNet 1.1: Fire modules (squeeze 1x1, expand 1x1 + 3x3, concat)"},
        {"mobilenet_v2", "MobileNetV2: inverted residuals with depthwise 3x3 and ReLU6"},
        {"shufflenet_v2_x1_0", "ShuffleNetV2 1.0x: channel split and shuffle, depthwise 3x3"},
        {"efficientnet_b0", "EfficientNet-B0: MBConv with depthwise 3x3/5x5, SiLU, squeeze-excitation"},
        {"googlenet", "GoogLeNet (Inception v1): four parallel branches per block"},
        {"resnet18", "ResNet-18: basic residual blocks of 3x3 convolutions"},
        {"resnet50", "ResNet-50: bottleneck residual blocks (1x1, 3x3, 1x1)"},
    };
    auto it = kDescriptions.find(name);
    return it != kDescriptions.end() ? it->second : "built-in network";
}

}  // namespace

Subcommand add_zoo_command(CLI::App& app) {
    CLI::App* cmd = app.add_subcommand("zoo", "list the built-in networks (usable wherever a MODEL is asked for)");
    cmd->footer("Every network takes input \"input\" [N,3,224,224] float32 and gives \"logits\" [N,1000], with\n"
                "fixed random weights (the same on every machine).\n\nExample:\n  strata zoo\n"
                "  strata run mobilenet_v2");
    return {cmd, [] {
                size_t width = 0;
                for (const std::string& name : zoo::names()) width = std::max(width, name.size());
                for (const std::string& name : zoo::names())
                    std::printf("%-*s  %s\n", static_cast<int>(width), name.c_str(), describe(name).c_str());
            }};
}

}  // namespace strata::cli
