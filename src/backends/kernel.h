// kernel.h: the contract between the builder and every backend. A backend offers Tactics: a kernel for one op, with
// a name, the backend it belongs to, a can_implement() check that says why not, and the function that runs it.
// The builder gathers the candidates for each step, picks one and records its name in the Plan; kernels never see
// the graph beyond their own node (DESIGN.md: one direction, no back-edges).
#pragma once

#include <span>
#include <string>
#include <vector>

#include "ir/graph.h"
#include "strata/tensor.h"

namespace strata {
class ThreadPool;
}

namespace strata::backends {

enum class Backend : uint8_t { reference, cpu, cuda };
const char* backend_name(Backend b);

/// What a kernel may use besides its tensors.
struct KernelContext {
    ThreadPool* pool = nullptr;  ///< CPU worker threads; null = run on the calling thread
};

/// Runs one node. `inputs` follow node.inputs (an omitted optional input is an undefined Tensor); `outputs` are
/// allocated by the caller with the dtypes and shapes that shape inference gave the node's output values.
using KernelFn = void (*)(const ir::Node& node, std::span<const Tensor> inputs, std::span<Tensor> outputs,
                          const KernelContext& ctx);
/// Empty when the kernel can run this node (shapes are inferred); otherwise the reason it cannot.
using CanImplementFn = std::string (*)(const ir::Graph& graph, const ir::Node& node);

struct Tactic {
    std::string name;          ///< unique, stable: it is written into plans ("cpu.conv2d_im2col_gemm")
    Backend backend = Backend::reference;
    ir::OpKind op = ir::OpKind::Identity;
    CanImplementFn can_implement = nullptr;  ///< null = any node of this op
    KernelFn run = nullptr;
};

class TacticRegistry {
public:
    void add(Tactic tactic);
    /// Tactics for `op` on `backend`, in the order they were registered (fastest first, by convention).
    std::vector<const Tactic*> candidates(ir::OpKind op, Backend backend) const;
    const Tactic* find(const std::string& name) const;
    /// Every backend's tactics, registered once (reference, cpu, and cuda where built).
    static const TacticRegistry& global();

private:
    std::vector<Tactic> tactics_;
};

/// Each backend lists its kernels in one function (backends/<name>/register.cpp): explicit, no static initialisers.
void register_reference_tactics(TacticRegistry& registry);
void register_cpu_tactics(TacticRegistry& registry);

}  // namespace strata::backends
