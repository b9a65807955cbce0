// cuda_tactic.cpp: the CUDA tactic registry.
#include "backends/cuda/cuda_tactic.h"

#include "core/check.h"

namespace strata::cuda {

void CudaTacticRegistry::add(CudaTactic tactic) {
    STRATA_ASSERT(find(tactic.name) == nullptr, "CUDA tactic '{}' registered twice", tactic.name);
    STRATA_ASSERT(tactic.make != nullptr && tactic.num_configs >= 1, "CUDA tactic '{}' is incomplete", tactic.name);
    tactics_.push_back(std::move(tactic));
}

std::vector<const CudaTactic*> CudaTacticRegistry::candidates(ir::OpKind op) const {
    std::vector<const CudaTactic*> r;
    for (const auto& t : tactics_)
        if (t.op == op) r.push_back(&t);
    return r;
}

const CudaTactic* CudaTacticRegistry::find(const std::string& name) const {
    for (const auto& t : tactics_)
        if (t.name == name) return &t;
    return nullptr;
}

const CudaTacticRegistry& CudaTacticRegistry::global() {
    static const CudaTacticRegistry registry = [] {
        CudaTacticRegistry r;
        register_conv_tactics(r);
        register_memory_bound_tactics(r);
        register_library_tactics(r);
        register_fused_tactics(r);
        return r;
    }();
    return registry;
}

}  // namespace strata::cuda
