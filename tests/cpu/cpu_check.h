// cpu_check.h: the one checker every CPU kernel test uses: a one-node graph, shapes inferred, the reference kernel's
// outputs against one CPU tactic's on the same seeded random inputs, with and without a thread pool. A failure prints
// the tactic, the configuration and the seed, so anyone can replay it (STRATA_SEED=...).
#pragma once

#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "backends/kernel.h"
#include "backends/reference/reference.h"
#include "core/thread_pool.h"
#include "ir/builder.h"
#include "ir/shape_inference.h"
#include "test_support.h"

namespace strata::test {

/// A kind in failure messages ("UnaryKind 9"): its number, which replays exactly without depending on name tables.
inline std::string kind_label(ir::UnaryKind k) {
    return "UnaryKind " + std::to_string(static_cast<int>(k));
}
inline std::string kind_label(ir::BinaryKind k) {
    return "BinaryKind " + std::to_string(static_cast<int>(k));
}

/// A pool with an odd number of workers, so chunks split unevenly; shared by every test in the binary.
inline ThreadPool& cpu_test_pool() {
    static ThreadPool pool(3);
    return pool;
}

/// The inputs of `node`: constants from the graph, graph inputs from `feeds` (by value id), absent ones undefined.
inline std::vector<Tensor> node_inputs(const ir::Graph& graph, const ir::Node& node,
                                       const std::map<ir::ValueId, Tensor>& feeds) {
    std::vector<Tensor> inputs;
    for (ir::ValueId id : node.inputs) {
        if (id == ir::kNoValue)
            inputs.emplace_back();
        else if (graph.is_constant(id))
            inputs.push_back(*graph.value(id).constant);
        else
            inputs.push_back(feeds.at(id));
    }
    return inputs;
}

/// Runs `tactic` on the graph's only node (pool and no pool) and compares with the reference: rel error <= 1e-5.
inline void expect_tactic_matches_reference(ir::Graph& graph, const std::map<ir::ValueId, Tensor>& feeds,
                                            const std::string& tactic_name, const std::string& config, uint64_t seed) {
    SCOPED_TRACE(tactic_name + " " + config + " seed " + std::to_string(seed));
    ir::infer_shapes(graph);
    ASSERT_EQ(graph.nodes().size(), 1u);
    const ir::Node& node = graph.nodes()[0];
    const backends::Tactic* tactic = backends::TacticRegistry::global().find(tactic_name);
    ASSERT_NE(tactic, nullptr) << "no tactic " << tactic_name;
    ASSERT_EQ(tactic->can_implement ? tactic->can_implement(graph, node) : "", "");
    const std::vector<Tensor> inputs = node_inputs(graph, node, feeds);
    const std::vector<Tensor> want = backends::evaluate_node(graph, node, inputs);
    for (ThreadPool* pool : {static_cast<ThreadPool*>(nullptr), &cpu_test_pool()}) {
        std::vector<Tensor> got;
        for (ir::ValueId id : node.outputs) got.push_back(Tensor::empty(graph.value(id).dtype, graph.value(id).shape));
        tactic->run(node, inputs, got, backends::KernelContext{pool});
        ASSERT_EQ(got.size(), want.size());
        for (size_t i = 0; i < got.size(); ++i) {
            if (want[i].dtype() == DType::f32) {
                EXPECT_LE(max_rel_error(got[i], want[i]), 1e-5) << "output " << i << (pool ? " (pool)" : " (no pool)");
            } else {
                EXPECT_EQ(count_mismatches(got[i], want[i], 0, 0), 0) << "output " << i;
            }
        }
    }
}

/// The reason `tactic_name` gives for the graph's only node (shapes inferred): empty when it runs it.
inline std::string tactic_reason(ir::Graph& graph, const std::string& tactic_name) {
    ir::infer_shapes(graph);
    const backends::Tactic* tactic = backends::TacticRegistry::global().find(tactic_name);
    if (!tactic) return "no tactic " + tactic_name;
    return tactic->can_implement ? tactic->can_implement(graph, graph.nodes()[0]) : "";
}

}  // namespace strata::test
