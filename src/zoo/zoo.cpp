// zoo.cpp: the table of built-in networks and the lookup by name.
#include "zoo/zoo.h"

#include <functional>
#include <utility>

#include <fmt/ranges.h>

#include "core/check.h"
#include "zoo/zoo_layers.h"

namespace strata::zoo {
namespace {

using BuildFn = std::shared_ptr<ir::Graph> (*)();

const std::vector<std::pair<std::string, BuildFn>>& table() {
    static const std::vector<std::pair<std::string, BuildFn>> kNetworks = {
        {"squeezenet1_1", build_squeezenet1_1},
        {"mobilenet_v2", build_mobilenet_v2},
        {"resnet50", build_resnet50},
    };
    return kNetworks;
}

}  // namespace

std::vector<std::string> names() {
    std::vector<std::string> r;
    for (const auto& [name, fn] : table()) r.push_back(name);
    return r;
}

std::shared_ptr<ir::Graph> build(const std::string& name) {
    for (const auto& [known, fn] : table())
        if (known == name) return fn();
    STRATA_THROW(StatusCode::not_found, "no built-in network '{}' (the zoo has: {})", name, fmt::join(names(), ", "));
}

}  // namespace strata::zoo
