// cpu_common.h: what the CPU backend's kernels share: running a loop on the pool (or inline without one), the
// dtype check behind every can_implement, and the kernel/can_implement declarations that register.cpp lists.
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <string>

#include "backends/kernel.h"

namespace strata::backends::cpu {

/// Runs fn over [0, n) in chunks on ctx.pool, or on the calling thread when there is no pool.
void parallel_for(const KernelContext& ctx, int64_t n, const std::function<void(int64_t, int64_t)>& fn);
/// Threads the kernel may use (1 without a pool).
int num_threads(const KernelContext& ctx);

/// Makes OpenBLAS run on the calling thread (once per process): the pool owns the cores (NOTE [cpu threading]).
void single_threaded_blas();

/// Empty when every present input and output of `node` is float32; otherwise "<tactic>: dtype <name> not supported".
std::string require_f32(const ir::Graph& graph, const ir::Node& node, const char* tactic);
/// Makes OpenBLAS run on the calling thread (once per process): the pool owns the cores (NOTE [cpu threading]).
void single_threaded_blas();

/// Empty when every present input and output has a known shape (no -1 dims); otherwise the reason.
std::string require_static_shapes(const ir::Graph& graph, const ir::Node& node, const char* tactic);

// The kernels, one family per file; register.cpp turns them into tactics.
#define STRATA_CPU_KERNEL(fn_name)                                                                \
    void fn_name(const ir::Node& node, std::span<const Tensor> inputs, std::span<Tensor> outputs, \
                 const KernelContext& ctx);                                                       \
    std::string fn_name##_can_implement(const ir::Graph& graph, const ir::Node& node)

STRATA_CPU_KERNEL(conv_depthwise);
STRATA_CPU_KERNEL(conv_gemm);
STRATA_CPU_KERNEL(max_pool);
STRATA_CPU_KERNEL(average_pool);
STRATA_CPU_KERNEL(global_average_pool);
STRATA_CPU_KERNEL(unary);
STRATA_CPU_KERNEL(binary);
STRATA_CPU_KERNEL(gemm);
STRATA_CPU_KERNEL(fully_connected);
STRATA_CPU_KERNEL(concat);
STRATA_CPU_KERNEL(softmax);
STRATA_CPU_KERNEL(batch_norm);
STRATA_CPU_KERNEL(separable_conv);
void log_softmax(const ir::Node& node, std::span<const Tensor> inputs, std::span<Tensor> outputs,
                 const KernelContext& ctx);

#undef STRATA_CPU_KERNEL

}  // namespace strata::backends::cpu
