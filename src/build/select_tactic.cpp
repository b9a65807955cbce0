// select_tactic.cpp: the one place a kernel is chosen for a node (STYLE.md: an enum plus one selection function).
// Today: the first candidate of the requested backend that can implement the node, else the reference kernel.
// Later the performance model ranks the candidates and autotuning measures the best few.
#include "build/plan.h"
#include "core/check.h"

namespace strata::build {

const backends::Tactic* select_tactic(const backends::TacticRegistry& registry, const ir::Graph& graph,
                                      const ir::Node& node, backends::Backend backend, std::string& refused) {
    refused.clear();
    for (const backends::Tactic* t : registry.candidates(node.op, backend)) {
        std::string why = t->can_implement ? t->can_implement(graph, node) : std::string();
        if (why.empty()) return t;
        // Kernels often name themselves in their reason already; say it once.
        if (why.rfind(t->name, 0) != 0) why = t->name + ": " + why;
        refused += (refused.empty() ? "" : "; ") + why;
    }
    for (const backends::Tactic* t : registry.candidates(node.op, backends::Backend::reference)) {
        std::string why = t->can_implement ? t->can_implement(graph, node) : std::string();
        if (why.empty()) return t;
        STRATA_UNSUPPORTED("{}: {}", ir::node_label(node), why);
    }
    STRATA_UNSUPPORTED("{}: no kernel implements this op", ir::node_label(node));
}

}  // namespace strata::build
