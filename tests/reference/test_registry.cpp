// test_registry.cpp: every op in ops.def has exactly one reference tactic, named "reference.<Op>".
#include <gtest/gtest.h>

#include "backends/kernel.h"
#include "ir/graph.h"

namespace strata::backends {
namespace {

TEST(ReferenceRegistry, EveryOpHasOneNamedTactic) {
    const TacticRegistry& registry = TacticRegistry::global();
    for (int i = 0; i < ir::kOpCount; ++i) {
        auto op = static_cast<ir::OpKind>(i);
        auto candidates = registry.candidates(op, Backend::reference);
        ASSERT_EQ(candidates.size(), 1u) << ir::op_name(op);
        EXPECT_EQ(candidates[0]->name, std::string("reference.") + ir::op_name(op));
        EXPECT_EQ(registry.find(candidates[0]->name), candidates[0]);
    }
}

}  // namespace
}  // namespace strata::backends
