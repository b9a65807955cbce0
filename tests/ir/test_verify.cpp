// test_verify.cpp: the verifier accepts well-formed graphs and names the node and the fault in malformed ones.
#include <gtest/gtest.h>

#include "ir/verify.h"
#include "shape_test_util.h"
#include "test_support.h"

namespace strata::ir {
namespace {

using test::expect_error;

// x -> conv(+bias) -> relu -> add(relu, x') -> y, with a constant weight: every kind of definition.
std::shared_ptr<Graph> small_graph() {
    Builder b("small");
    uint64_t seed = strata::test::test_seed();
    ValueId x = b.input("x", DType::f32, {1, 3, 7, 7});
    ValueId c = b.conv(x, strata::test::random_tensor(DType::f32, {3, 3, 3, 3}, seed),
                       strata::test::random_tensor(DType::f32, {3}, seed + 1), conv2d_attrs(3, 1, 1), "conv");
    ValueId r = b.unary(UnaryKind::Relu, c, 0, 0, "relu");
    b.output(b.binary(BinaryKind::Add, r, x, "add"), "y");
    return b.finish();
}

void expect_invalid(const Graph& g, std::initializer_list<std::string> parts) {
    expect_error([&] { verify(g); }, StatusCode::invalid_argument, parts);
}

TEST(Verify, AcceptsWellFormedGraph) {
    auto g = small_graph();
    EXPECT_NO_THROW(verify(*g));
    g->nodes()[0].inputs.pop_back();  // the bias is optional
    EXPECT_NO_THROW(verify(*g));
    g->nodes()[0].inputs.push_back(kNoValue);  // and may be marked absent
    EXPECT_NO_THROW(verify(*g));
}

TEST(Verify, AttrsStructMustMatchOp) {
    auto g = small_graph();
    g->nodes()[0].attrs = PoolAttrs{};
    expect_invalid(*g, {"Conv 'conv'", "attrs"});
}

TEST(Verify, InputAndOutputCounts) {
    auto g = small_graph();
    g->nodes()[2].inputs.push_back(g->inputs()[0]);
    expect_invalid(*g, {"Binary 'add'", "3 inputs", "2 to 2"});

    auto d = small_graph();
    ValueId mask = d->add_value("mask", DType::boolean, {1, 3, 7, 7});
    d->add_node(OpKind::Dropout, "drop", {d->outputs()[0]}, {d->add_value("z", DType::f32, {}), mask}, NoAttrs{});
    expect_invalid(*d, {"Dropout 'drop'", "2 outputs"});
}

TEST(Verify, RequiredInputMayNotBeAbsent) {
    auto g = small_graph();
    g->nodes()[0].inputs[1] = kNoValue;
    expect_invalid(*g, {"Conv 'conv'", "required input 1"});
}

TEST(Verify, InputUsedBeforeDefinition) {
    auto g = small_graph();
    std::swap(g->nodes()[1], g->nodes()[2]);
    expect_invalid(*g, {"Binary 'add'", "'relu'", "before it is defined"});
}

TEST(Verify, ValueProducedTwice) {
    auto g = small_graph();
    g->nodes()[1].outputs[0] = g->nodes()[0].outputs[0];
    expect_invalid(*g, {"Unary 'relu'", "'conv'", "already defined"});
    auto h = small_graph();
    h->nodes()[1].outputs[0] = h->nodes()[0].inputs[1];  // over a weight
    expect_invalid(*h, {"Unary 'relu'", "constant"});
    auto k = small_graph();
    k->nodes()[1].outputs[0] = k->inputs()[0];  // over the graph input
    expect_invalid(*k, {"Unary 'relu'", "graph input"});
}

TEST(Verify, GraphOutputMustBeProduced) {
    auto g = small_graph();
    g->outputs().push_back(g->add_value("orphan", DType::f32, {1}));
    expect_invalid(*g, {"'orphan'", "never produced"});
}

TEST(Verify, DanglingIds) {
    auto g = small_graph();
    g->nodes()[1].inputs[0] = 999;
    expect_invalid(*g, {"Unary 'relu'", "999", "does not exist"});
    auto h = small_graph();
    h->outputs().push_back(-7);
    expect_invalid(*h, {"graph output", "-7"});
}

}  // namespace
}  // namespace strata::ir
