// kernel.cpp: the tactic registry.
#include "backends/kernel.h"

#include "core/check.h"

namespace strata::backends {

const char* backend_name(Backend b) {
    switch (b) {
        case Backend::reference: return "reference";
        case Backend::cpu: return "cpu";
        case Backend::cuda: return "cuda";
    }
    return "?";
}

void TacticRegistry::add(Tactic tactic) {
    STRATA_ASSERT(find(tactic.name) == nullptr, "tactic '{}' registered twice", tactic.name);
    STRATA_ASSERT(tactic.run != nullptr, "tactic '{}' has no kernel", tactic.name);
    tactics_.push_back(std::move(tactic));
}

std::vector<const Tactic*> TacticRegistry::candidates(ir::OpKind op, Backend backend) const {
    std::vector<const Tactic*> result;
    for (const Tactic& t : tactics_)
        if (t.op == op && t.backend == backend) result.push_back(&t);
    return result;
}

const Tactic* TacticRegistry::find(const std::string& name) const {
    for (const Tactic& t : tactics_)
        if (t.name == name) return &t;
    return nullptr;
}

const TacticRegistry& TacticRegistry::global() {
    static const TacticRegistry registry = [] {
        TacticRegistry r;
        register_reference_tactics(r);
        register_cpu_tactics(r);
        return r;
    }();
    return registry;
}

}  // namespace strata::backends
