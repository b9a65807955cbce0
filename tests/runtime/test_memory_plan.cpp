// test_memory_plan.cpp: the activation planner: reuse happens, and (by brute force over random DAGs) no two values
// that are live at the same step share a byte, except a view and the input it legitimately aliases.
#include <gtest/gtest.h>

#include <random>

#include "build/memory_plan.h"
#include "ir/builder.h"
#include "test_support.h"

namespace strata::build {
namespace {

using ir::OpKind;
using ir::ValueId;

// A random DAG: each node reads 1-3 earlier values (inputs or node outputs) and writes one value of a random size;
// about one node in four is a view (Reshape) of its first input. Op semantics do not matter to the planner.
ir::Graph random_dag(std::mt19937_64& rng, int num_nodes) {
    ir::Graph g;
    auto rand_int = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
    std::vector<ValueId> pool = {g.add_value("in0", DType::f32, {rand_int(1, 300)})};
    g.inputs().push_back(pool[0]);
    ValueId w = g.add_constant("w", test::random_tensor(DType::f32, {7}, rng()));
    for (int i = 0; i < num_nodes; ++i) {
        bool view = rand_int(0, 3) == 0;
        std::vector<ValueId> ins;
        int arity = view ? 1 : rand_int(1, 3);
        for (int k = 0; k < arity; ++k) ins.push_back(pool[rand_int(0, static_cast<int>(pool.size()) - 1)]);
        if (!view && rand_int(0, 4) == 0) ins.push_back(w);
        Shape shape = view ? g.value(ins[0]).shape : Shape{rand_int(1, 3000)};
        if (view) shape = {1, shape[0]};
        ValueId out = g.add_value("v" + std::to_string(i), DType::f32, shape);
        g.add_node(view ? OpKind::Reshape : OpKind::Concat, "n" + std::to_string(i), ins, {out},
                   view ? ir::Attrs{ir::ReshapeAttrs{}} : ir::Attrs{ir::AxisAttrs{}});
        pool.push_back(out);
    }
    g.outputs().push_back(pool.back());
    for (int k = 0; k < 2; ++k) g.outputs().push_back(pool[rand_int(1, static_cast<int>(pool.size()) - 1)]);
    return g;
}

struct Interval {
    int first = -1, last = -1;
};

// Lifetimes computed independently of the planner, straight from the definition.
std::vector<Interval> lifetimes(const ir::Graph& g) {
    std::vector<Interval> life(g.num_values());
    int n = static_cast<int>(g.nodes().size());
    for (int s = 0; s < n; ++s) life[g.nodes()[s].outputs[0]] = {s, s};
    for (size_t v = 0; v < g.num_values(); ++v) {
        if (life[v].first < 0) continue;
        for (size_t c : g.consumers(static_cast<ValueId>(v))) life[v].last = std::max(life[v].last, static_cast<int>(c));
        if (g.is_graph_output(static_cast<ValueId>(v))) life[v].last = n;
    }
    return life;
}

// The value a view output aliases (following aliased steps back), checking each alias is legitimate.
ValueId alias_root(const ir::Graph& g, const MemoryPlan& plan, const std::vector<Interval>& life, ValueId v) {
    auto p = g.producer(v);
    if (!p || (!plan.aliased[*p] && !plan.in_place[*p])) return v;
    const ir::Node& node = g.nodes()[*p];
    EXPECT_TRUE(is_view_op(node.op) || plan.in_place[*p]);
    ValueId in = node.inputs[0];
    EXPECT_FALSE(g.is_graph_input(in));
    EXPECT_EQ(life[in].last, static_cast<int>(*p)) << "an aliased input is read after the view";
    return alias_root(g, plan, life, in);
}

void check_no_overlap(const ir::Graph& g, const MemoryPlan& plan) {
    auto life = lifetimes(g);
    size_t sum = 0;
    for (size_t v = 0; v < g.num_values(); ++v) {
        bool planned = life[v].first >= 0;
        ASSERT_EQ(plan.offsets[v] >= 0, planned) << g.value(static_cast<ValueId>(v)).name;
        if (!planned) continue;
        size_t bytes = shape_numel(g.value(static_cast<ValueId>(v)).shape) * 4;
        sum += bytes;
        EXPECT_EQ(plan.offsets[v] % kArenaAlignment, 0u);
        EXPECT_LE(plan.offsets[v] + bytes, plan.arena_bytes);
    }
    EXPECT_EQ(plan.activation_bytes, sum);
    for (size_t a = 0; a < g.num_values(); ++a) {
        for (size_t b = a + 1; b < g.num_values(); ++b) {
            if (life[a].first < 0 || life[b].first < 0) continue;
            if (life[a].first > life[b].last || life[b].first > life[a].last) continue;
            auto ea = plan.offsets[a] + shape_numel(g.value(static_cast<ValueId>(a)).shape) * 4;
            auto eb = plan.offsets[b] + shape_numel(g.value(static_cast<ValueId>(b)).shape) * 4;
            if (plan.offsets[a] >= eb || plan.offsets[b] >= ea) continue;
            EXPECT_EQ(alias_root(g, plan, life, static_cast<ValueId>(a)),
                      alias_root(g, plan, life, static_cast<ValueId>(b)))
                << "values '" << g.value(static_cast<ValueId>(a)).name << "' and '"
                << g.value(static_cast<ValueId>(b)).name << "' are live together and overlap";
        }
    }
}

TEST(MemoryPlan, RandomDagsNeverOverlapLiveValues) {
    uint64_t seed = test::test_seed();
    SCOPED_TRACE("seed " + std::to_string(seed));
    std::mt19937_64 rng(seed);
    for (int trial = 0; trial < 200; ++trial) {
        ir::Graph g = random_dag(rng, 5 + trial % 37);
        // In-place candidates (input 0) on every other non-view node, as the GPU plans' elementwise steps.
        auto in_place = [](const ir::Node& n) { return n.op == OpKind::Concat && n.name.back() % 2 ? 0 : -1; };
        for (bool alias : {false, true}) {
            MemoryPlan plan = plan_memory(g, alias, nullptr, in_place);
            check_no_overlap(g, plan);
            if (!alias) {
                EXPECT_TRUE(std::none_of(plan.aliased.begin(), plan.aliased.end(), [](bool b) { return b; }));
            }
            if (HasFailure()) return;
        }
    }
}

// A chain x -> a -> b -> c -> d of equal sizes needs two buffers, not four.
TEST(MemoryPlan, ChainReusesBuffers) {
    ir::Builder b("chain");
    ValueId x = b.input("x", DType::f32, {3, 33});
    ValueId v = x;
    for (int i = 0; i < 4; ++i) v = b.relu(v);
    b.output(v);
    auto g = b.finish();
    for (ir::Node& n : g->nodes()) g->value(n.outputs[0]).shape = {3, 33}, g->value(n.outputs[0]).has_shape = true;
    MemoryPlan plan = plan_memory(*g);
    size_t one = (3 * 33 * 4 + kArenaAlignment - 1) / kArenaAlignment * kArenaAlignment;
    EXPECT_EQ(plan.activation_bytes, 4u * 3 * 33 * 4);
    EXPECT_EQ(plan.arena_bytes, 2 * one);
    EXPECT_EQ(plan.offsets[x], MemoryPlan::kNotInArena);
}

// The same chain with in-place steps runs in one buffer; the graph input is never overwritten.
TEST(MemoryPlan, InPlaceChainUsesOneBuffer) {
    ir::Builder b("chain");
    ValueId x = b.input("x", DType::f32, {3, 33});
    ValueId v = x;
    for (int i = 0; i < 4; ++i) v = b.relu(v);
    b.output(v);
    auto g = b.finish();
    for (ir::Node& n : g->nodes()) g->value(n.outputs[0]).shape = {3, 33}, g->value(n.outputs[0]).has_shape = true;
    MemoryPlan plan = plan_memory(*g, true, nullptr, [](const ir::Node&) { return 0; });
    size_t one = (3 * 33 * 4 + kArenaAlignment - 1) / kArenaAlignment * kArenaAlignment;
    EXPECT_EQ(plan.arena_bytes, one);
    EXPECT_FALSE(plan.in_place[0]) << "the first relu reads the graph input";
    EXPECT_TRUE(plan.in_place[1] && plan.in_place[2] && plan.in_place[3]);
}

// relu -> flatten -> relu: the flatten's output takes over the first relu's buffer; a flatten of a graph input or
// of a value read again later does not.
TEST(MemoryPlan, ViewAliasesDeadInputOnly) {
    ir::Builder b("views");
    ValueId x = b.input("x", DType::f32, {2, 3, 5});
    ValueId f0 = b.flatten(x);  // a graph input: never aliased
    ValueId r = b.relu(x);
    ValueId f1 = b.flatten(r);  // r dies here: aliased
    ValueId r2 = b.relu(f1);
    ValueId f2 = b.flatten(r2);  // r2 is read again below: not aliased
    ValueId s = b.add(f2, r2);
    b.output(s);
    b.output(f0);
    auto g = b.finish();
    Shape shapes[] = {{2, 15}, {2, 3, 5}, {2, 15}, {2, 15}, {2, 15}, {2, 15}};
    for (size_t i = 0; i < g->nodes().size(); ++i) {
        g->value(g->nodes()[i].outputs[0]).shape = shapes[i];
        g->value(g->nodes()[i].outputs[0]).has_shape = true;
    }
    MemoryPlan plan = plan_memory(*g);
    EXPECT_EQ(plan.aliased, (std::vector<bool>{false, false, true, false, false, false}));
    EXPECT_EQ(plan.offsets[f1], plan.offsets[r]);
    EXPECT_NE(plan.offsets[f2], plan.offsets[r2]);
    check_no_overlap(*g, plan);
}

TEST(MemoryPlan, UnknownDimensionIsUnsupported) {
    ir::Builder b("dyn");
    ValueId x = b.input("x", DType::f32, {-1, 4});
    b.output(b.relu(x));
    auto g = b.finish();
    g->value(g->nodes()[0].outputs[0]).shape = {-1, 4};
    g->value(g->nodes()[0].outputs[0]).has_shape = true;
    try {
        (void)plan_memory(*g);
        FAIL() << "expected an error";
    } catch (const Error& e) {
        EXPECT_EQ(e.code(), StatusCode::unsupported);
        EXPECT_NE(std::string(e.what()).find("dynamic shape"), std::string::npos) << e.what();
    }
}

}  // namespace
}  // namespace strata::build
