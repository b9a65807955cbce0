// zoo.h: networks built into strata with the builder API, with deterministic random weights (fixed seed, scaled so
// activations stay finite). Same structure as torchvision's models of the same name.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "ir/graph.h"

namespace strata::zoo {

std::vector<std::string> names();
/// The network with a dynamic batch axis (input "input" [-1,3,224,224], output "logits" [-1,1000]).
/// Throws strata::Error(not_found) naming the known networks for an unknown name.
std::shared_ptr<ir::Graph> build(const std::string& name);

}  // namespace strata::zoo
