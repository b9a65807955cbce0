// test_select_tactic.cpp: the one selection function on a private registry: the first CPU candidate that can
// implement the node wins, refusals are recorded with their reasons, the reference kernel is the fallback, and a
// node nothing implements is a clear unsupported error.
#include <gtest/gtest.h>

#include "build/plan.h"
#include "ir/builder.h"
#include "test_support.h"

namespace strata::build {
namespace {

using backends::Backend;
using backends::Tactic;

void no_op(const ir::Node&, std::span<const Tensor>, std::span<Tensor>, const backends::KernelContext&) {}
std::string refuse_always(const ir::Graph&, const ir::Node&) { return "needs an even width"; }
std::string refuse_named(const ir::Graph&, const ir::Node&) { return "cpu.named: not depthwise"; }
std::string accept(const ir::Graph&, const ir::Node&) { return ""; }

struct Fixture {
    std::shared_ptr<ir::Graph> graph;
    Fixture() {
        ir::Builder b("g");
        b.output(b.relu(b.input("x", DType::f32, {1, 5})));
        graph = b.finish();
    }
    const ir::Node& node() const { return graph->nodes()[0]; }
};

TEST(SelectTactic, FirstCpuCandidateThatFitsWins) {
    Fixture f;
    backends::TacticRegistry r;
    r.add({"cpu.fast", Backend::cpu, ir::OpKind::Unary, refuse_always, no_op});
    r.add({"cpu.named", Backend::cpu, ir::OpKind::Unary, refuse_named, no_op});
    r.add({"cpu.general", Backend::cpu, ir::OpKind::Unary, accept, no_op});
    r.add({"cpu.later", Backend::cpu, ir::OpKind::Unary, nullptr, no_op});
    r.add({"reference.Unary", Backend::reference, ir::OpKind::Unary, nullptr, no_op});
    std::string refused;
    EXPECT_EQ(select_tactic(r, *f.graph, f.node(), Backend::cpu, refused)->name, "cpu.general");
    EXPECT_EQ(refused, "cpu.fast: needs an even width; cpu.named: not depthwise");
}

TEST(SelectTactic, FallsBackToReference) {
    Fixture f;
    backends::TacticRegistry r;
    r.add({"cpu.fast", Backend::cpu, ir::OpKind::Unary, refuse_always, no_op});
    r.add({"cpu.conv", Backend::cpu, ir::OpKind::Conv, nullptr, no_op});
    r.add({"reference.Unary", Backend::reference, ir::OpKind::Unary, nullptr, no_op});
    std::string refused = "stale";
    EXPECT_EQ(select_tactic(r, *f.graph, f.node(), Backend::cpu, refused)->name, "reference.Unary");
    EXPECT_EQ(refused, "cpu.fast: needs an even width");
}

TEST(SelectTactic, NoKernelIsUnsupported) {
    Fixture f;
    backends::TacticRegistry r;
    r.add({"reference.Conv", Backend::reference, ir::OpKind::Conv, nullptr, no_op});
    std::string refused;
    try {
        (void)select_tactic(r, *f.graph, f.node(), Backend::cpu, refused);
        FAIL() << "expected an error";
    } catch (const Error& e) {
        EXPECT_EQ(e.code(), StatusCode::unsupported);
        EXPECT_NE(std::string(e.what()).find("no kernel"), std::string::npos) << e.what();
    }
    r.add({"reference.Unary", Backend::reference, ir::OpKind::Unary, refuse_always, no_op});
    try {
        (void)select_tactic(r, *f.graph, f.node(), Backend::cpu, refused);
        FAIL() << "expected an error";
    } catch (const Error& e) {
        EXPECT_EQ(e.code(), StatusCode::unsupported);
        EXPECT_NE(std::string(e.what()).find("needs an even width"), std::string::npos) << e.what();
    }
}

}  // namespace
}  // namespace strata::build
