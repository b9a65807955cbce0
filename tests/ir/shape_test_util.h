// shape_test_util.h: one-node graphs for the shape inference tests, and a check that an error names what it must.
#pragma once

#include <gtest/gtest.h>

#include <initializer_list>
#include <memory>
#include <string>
#include <vector>

#include "ir/builder.h"
#include "ir/shape_inference.h"

namespace strata::ir::test {

/// A graph of one node "n" whose inputs are graph inputs "in0", "in1", ... of the given shapes (f32 unless given).
struct OneNode {
    std::shared_ptr<Graph> graph;
    Node& node() { return graph->nodes().at(0); }
    const Value& out(size_t i = 0) { return graph->value(node().outputs.at(i)); }
    Shape shape(size_t i = 0) { return out(i).shape; }
    void infer() { infer_shapes(*graph); }
};

inline OneNode one_node(OpKind op, const std::vector<Shape>& inputs, Attrs attrs, size_t outputs = 1,
                        const std::vector<DType>& dtypes = {}) {
    Builder b("g");
    std::vector<ValueId> ids;
    for (size_t i = 0; i < inputs.size(); ++i)
        ids.push_back(b.input("in" + std::to_string(i), i < dtypes.size() ? dtypes[i] : DType::f32, inputs[i]));
    for (ValueId v : b.op_n(op, ids, outputs, std::move(attrs), "n")) b.output(v);
    return {b.finish()};
}

/// Builds and infers; returns the first output's shape.
inline Shape infer_one(OpKind op, const std::vector<Shape>& inputs, Attrs attrs) {
    OneNode n = one_node(op, inputs, std::move(attrs));
    n.infer();
    return n.shape();
}

/// Runs `fn`, expecting a strata::Error of `code` whose message contains every string in `parts`.
template <class Fn>
void expect_error(Fn&& fn, StatusCode code, std::initializer_list<std::string> parts) {
    try {
        fn();
        ADD_FAILURE() << "expected an Error";
    } catch (const Error& e) {
        EXPECT_EQ(e.code(), code) << e.what();
        for (const std::string& p : parts) EXPECT_NE(std::string(e.what()).find(p), std::string::npos)
            << "message lacks '" << p << "': " << e.what();
    }
}

/// The error for a one-node graph that must not infer.
inline void expect_infer_error(OpKind op, const std::vector<Shape>& inputs, Attrs attrs,
                               std::initializer_list<std::string> parts,
                               StatusCode code = StatusCode::invalid_argument) {
    OneNode n = one_node(op, inputs, std::move(attrs));
    expect_error([&] { n.infer(); }, code, parts);
}

}  // namespace strata::ir::test
