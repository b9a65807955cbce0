// pass_test_util.h: what the pass tests share: running one pass the way run_pipeline does, comparing a graph before
// and after on the reference backend with seeded random inputs, counting ops, and a fingerprint of a graph's
// structure to show that a pass which does not apply leaves the graph as it was.
#pragma once

#include <gtest/gtest.h>

#include <map>
#include <string>

#include "backends/reference/reference.h"
#include "ir/builder.h"
#include "ir/shape_inference.h"
#include "passes/passes.h"
#include "test_support.h"

namespace strata::passes::test {

/// Infers shapes, then runs the pass (as run_pipeline does); returns what the pass returned.
inline bool run_pass(ir::Graph& graph, bool (*pass)(ir::Graph&)) {
    ir::infer_shapes(graph);
    return pass(graph);
}

/// One random tensor per graph input, of its shape (dims of -1 taken as `batch`), values in [lo, hi).
inline std::map<std::string, Tensor> random_inputs(const ir::Graph& graph, uint64_t seed, double lo = -1.0,
                                                   double hi = 1.0, int64_t batch = 2) {
    std::map<std::string, Tensor> inputs;
    for (ir::ValueId id : graph.inputs()) {
        const ir::Value& v = graph.value(id);
        Shape shape = v.shape;
        for (int64_t& d : shape)
            if (d < 0) d = batch;
        inputs[v.name] = strata::test::random_tensor(v.dtype, shape, seed++, lo, hi);
    }
    return inputs;
}

/// Runs both graphs on the reference backend with the same inputs; every graph output (by name) must agree to
/// max |diff| / max |want| <= tolerance.
inline void expect_same_results(const ir::Graph& before, const ir::Graph& after,
                                const std::map<std::string, Tensor>& inputs, double tolerance = 1e-5) {
    std::map<std::string, Tensor> want = backends::run_reference(before, inputs);
    std::map<std::string, Tensor> got = backends::run_reference(after, inputs);
    ASSERT_EQ(want.size(), got.size());
    for (const auto& [name, w] : want) {
        ASSERT_TRUE(got.count(name)) << "output '" << name << "' missing after the pass";
        EXPECT_LE(strata::test::max_rel_error(got.at(name), w), tolerance)
            << "output '" << name << "', seed " << strata::test::test_seed();
    }
}

inline int count_op(const ir::Graph& graph, ir::OpKind op) {
    int n = 0;
    for (const ir::Node& node : graph.nodes()) n += node.op == op;
    return n;
}

inline int count_unary(const ir::Graph& graph, ir::UnaryKind kind) {
    int n = 0;
    for (const ir::Node& node : graph.nodes())
        n += node.op == ir::OpKind::Unary && node.attr<ir::UnaryAttrs>().kind == kind;
    return n;
}

/// The graph's structure as text: nodes (op, name, inputs, outputs, attrs alternative, unary kind and parameters,
/// fused activation) and graph inputs/outputs. Equal fingerprints: the pass left the structure alone.
inline std::string fingerprint(const ir::Graph& graph) {
    std::string s;
    auto ids = [](const std::vector<ir::ValueId>& v) {
        std::string r;
        for (ir::ValueId id : v) r += std::to_string(id) + ",";
        return r;
    };
    for (const ir::Node& n : graph.nodes()) {
        s += std::string(ir::op_name(n.op)) + " " + n.name + " (" + ids(n.inputs) + ") -> (" + ids(n.outputs) + ") #" +
             std::to_string(n.attrs.index());
        if (n.op == ir::OpKind::Unary) {
            const auto& a = n.attr<ir::UnaryAttrs>();
            s += " kind" + std::to_string(static_cast<int>(a.kind)) + " " + std::to_string(a.alpha) + " " +
                 std::to_string(a.beta);
        }
        if (n.op == ir::OpKind::Conv) s += n.attr<ir::ConvAttrs>().activation ? " act" : "";
        if (n.op == ir::OpKind::FullyConnected) s += n.attr<ir::FullyConnectedAttrs>().activation ? " act" : "";
        s += "\n";
    }
    s += "in " + ids(graph.inputs()) + " out " + ids(graph.outputs()) + " values " + std::to_string(graph.num_values());
    return s;
}

/// Runs `pass` on a copy of `graph` and expects it to report no change and leave the structure as it was.
inline void expect_not_applied(const ir::Graph& graph, bool (*pass)(ir::Graph&)) {
    ir::Graph g = graph;
    ir::infer_shapes(g);
    std::string before = fingerprint(g);
    EXPECT_FALSE(pass(g));
    EXPECT_EQ(fingerprint(g), before);
}

/// A seed for one tensor of a test: the run's seed plus a per-use offset.
inline uint64_t seed(uint64_t offset) { return strata::test::test_seed() + offset * 7919; }

}  // namespace strata::passes::test
