// pipeline.cpp: the default pass order, the driver that runs passes with shape inference and verification around
// them, and set_batch (which fixes the dynamic batch so that fold_constants can turn shape arithmetic into constants).
#include <cstdlib>

#include "core/check.h"
#include "ir/shape_inference.h"
#include "ir/verify.h"
#include "passes/pass_util.h"
#include "passes/passes.h"

namespace strata::passes {
namespace {

// Shapes as far as they can be known before fold_constants has run. An exported graph computes some parameters
// (Reshape's shape, Slice's starts) from Shape nodes; until those are folded and absorbed, such a node (and what
// depends on it) keeps unknown shapes here. Passes treat unknown shapes as "does not apply", and the strict
// ir::infer_shapes at the end of run_pipeline reports whatever is still dynamic.
void infer_shapes_tolerant(ir::Graph& graph) {
    for (ir::Node& node : graph.nodes()) infer_node_shapes_if_static(graph, node);
}

bool debug_enabled() {
    const char* env = std::getenv("STRATA_DEBUG");
    return env && std::atoi(env) >= 1;
}

}  // namespace

std::vector<Pass> default_pipeline() {
    // Order matters: identities go first so that patterns see producers directly; constants are folded before
    // anything matches on constant weights; BatchNorm folds into a Conv before the Conv takes a fused activation;
    // Clip becomes Relu6 before HardSwish looks for Relu6; Gemm becomes FullyConnected before activations fuse into it.
    return {
        {"remove_identity", remove_identity},
        {"fold_constants", fold_constants},
        {"fold_batchnorm", fold_batchnorm},
        {"recognise_relu6", recognise_relu6},
        {"recognise_silu", recognise_silu},
        {"recognise_hardswish", recognise_hardswish},
        {"fully_connected", fully_connected},
        {"fuse_conv_activation", fuse_conv_activation},
        {"remove_unused", remove_unused},
    };
}

const Pass* find_pass(const std::string& name) {
    static const std::vector<Pass> all = default_pipeline();
    for (const Pass& p : all)
        if (name == p.name) return &p;
    return nullptr;
}

void run_pipeline(ir::Graph& graph, const std::vector<Pass>& passes) {
    for (const Pass& pass : passes) {
        infer_shapes_tolerant(graph);
        size_t before = graph.nodes().size();
        bool changed = pass.run(graph);
        if (debug_enabled())
            fmt::print(stderr, "[strata] pass {}: {} ({} -> {} nodes)\n", pass.name, changed ? "changed" : "no change",
                       before, graph.nodes().size());
        if (!changed) continue;
        try {
            ir::verify(graph);
        } catch (const Error& e) {
            STRATA_THROW(StatusCode::internal, "bug in strata: pass {} left graph '{}' invalid: {}", pass.name,
                         graph.name, e.what());
        }
    }
    ir::infer_shapes(graph);
}

void set_batch(ir::Graph& graph, int64_t batch) {
    STRATA_CHECK(batch >= 1, StatusCode::invalid_argument, "graph '{}': batch size must be at least 1, got {}",
                 graph.name, batch);
    for (ir::ValueId id : graph.inputs()) {
        ir::Value& v = graph.value(id);
        if (!v.has_shape || v.shape.empty()) continue;
        if (v.shape[0] == -1) {
            v.shape[0] = batch;
            continue;
        }
        STRATA_CHECK(v.shape[0] == batch, StatusCode::invalid_argument,
                     "graph '{}': input '{}' has shape {} with a fixed batch of {}; it cannot run with batch {}",
                     graph.name, v.name, shape_str(v.shape), v.shape[0], batch);
    }
}

}  // namespace strata::passes
