// test_graph.cpp: Graph edits and queries.
#include <gtest/gtest.h>

#include "ir/builder.h"
#include "test_support.h"

namespace strata::ir {
namespace {

TEST(Graph, ProducerConsumersAndReplaceUses) {
    Builder b("g");
    ValueId x = b.input("x", DType::f32, {1, 4});
    ValueId r = b.relu(x);
    ValueId s = b.unary(UnaryKind::Sigmoid, r);
    ValueId a = b.add(r, s);
    b.output(a, "y");
    auto g = b.finish();
    EXPECT_EQ(g->producer(r), std::optional<size_t>(0));
    EXPECT_EQ(g->consumers(r), (std::vector<size_t>{1, 2}));
    g->replace_uses(r, x);
    EXPECT_TRUE(g->consumers(r).empty());
    EXPECT_EQ(g->remove_unused_nodes(), 1u);
    EXPECT_EQ(g->nodes().size(), 2u);
}

TEST(Graph, TopoSortReordersAndDetectsCycles) {
    Builder b("g");
    ValueId x = b.input("x", DType::f32, {1, 4});
    ValueId r = b.relu(x);
    ValueId s = b.unary(UnaryKind::Tanh, r);
    b.output(s);
    auto g = b.finish();
    std::swap(g->nodes()[0], g->nodes()[1]);
    g->topo_sort();
    EXPECT_EQ(g->nodes()[0].outputs[0], r);
    g->nodes()[0].inputs[0] = s;  // r = relu(s), s = tanh(r): a cycle
    EXPECT_THROW(g->topo_sort(), Error);
}

}  // namespace
}  // namespace strata::ir
