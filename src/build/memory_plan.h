// memory_plan.h: where each activation lives in one host arena. A value produced by a step lives from that step to
// its last reading step (graph outputs to the end); values whose lifetimes do not overlap share bytes. View steps
// (Reshape, Flatten, Squeeze, Unsqueeze, Identity, Dropout) may alias their input: see NOTE [memory plan aliasing].
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <vector>

#include "ir/graph.h"

namespace strata::build {

/// Every arena offset and buffer size is a multiple of this (vector kernels use aligned loads).
inline constexpr size_t kArenaAlignment = 64;

/// One buffer to place: `bytes` used from step `first` to step `last`, both inclusive.
struct BufferRequest {
    size_t bytes = 0;
    int first = 0;
    int last = 0;
};

/// Places the buffers greedily, largest first, each in the smallest gap left by the placed buffers whose lifetimes
/// overlap its own. Returns one offset per request; `arena_bytes` receives the size of the arena they need.
std::vector<size_t> assign_offsets(const std::vector<BufferRequest>& requests, size_t& arena_bytes);

struct MemoryPlan {
    static constexpr int64_t kNotInArena = -1;
    /// Per ValueId: the byte offset in the arena, or kNotInArena (graph inputs, constants, absent values).
    std::vector<int64_t> offsets;
    /// Per step (node index): true when the step is a view whose output aliases its input, so nothing runs.
    std::vector<bool> aliased;
    size_t arena_bytes = 0;       ///< the arena's size
    size_t activation_bytes = 0;  ///< the sum of every planned value's size: what a plan without reuse would need
};

/// Plans the activations of `graph` (steps are its nodes, in order). Every value a node produces must have a fully
/// known shape; an unknown dimension is an unsupported dynamic shape.
/// `is_view` says which steps may alias their first input (default: is_view_op of the node's op).
MemoryPlan plan_memory(const ir::Graph& graph, bool allow_aliasing = true,
                       const std::function<bool(const ir::Node&)>& is_view = nullptr);

/// True for the ops whose output is their first input's bytes under another shape.
bool is_view_op(ir::OpKind op);

}  // namespace strata::build
