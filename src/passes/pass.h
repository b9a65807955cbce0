// pass.h: graph passes. A pass has a name and a function that rewrites the graph where its pattern matches and
// reports whether anything changed ("does not apply" is not an error). One pass per file under src/passes/.
#pragma once

#include <string>
#include <vector>

#include "ir/graph.h"

namespace strata::passes {

struct Pass {
    const char* name;
    bool (*run)(ir::Graph& graph);
};

/// The passes the builder runs, in order (each with shapes inferred before it).
std::vector<Pass> default_pipeline();
/// Runs the passes in order, re-inferring shapes and verifying after each that changed the graph; ends with a strict
/// ir::infer_shapes. Call it after set_batch and *instead of* a strict ir::infer_shapes beforehand: an exported
/// graph's shape arithmetic (Shape -> Gather -> Concat -> Reshape) only becomes static in fold_constants, and until
/// then strict inference reports "unsupported: dynamic ..." (shapes are inferred tolerantly between passes).
void run_pipeline(ir::Graph& graph, const std::vector<Pass>& passes);

/// Fixes the batch (first) dimension of every graph input whose batch is dynamic (-1); an input whose static batch
/// differs is refused with a clear error naming the input and both sizes.
void set_batch(ir::Graph& graph, int64_t batch);

}  // namespace strata::passes
