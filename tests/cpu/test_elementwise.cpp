// test_elementwise.cpp: the CPU Unary (every kind) and Binary (every kind, each broadcast fast path) kernels against
// the reference, and Binary's refusal of broadcasts it does not cover.
#include <fmt/format.h>

#include "cpu_check.h"

namespace strata::test {
namespace {

using ir::BinaryKind;
using ir::UnaryKind;

TEST(CpuUnary, EveryKindMatchesReference) {
    uint64_t seed = test_seed() + 7000;
    const Shape shape{3, 5, 37, 41};  // more than one chunk of work
    for (int k = 0; k <= static_cast<int>(UnaryKind::Reciprocal); ++k) {
        const auto kind = static_cast<UnaryKind>(k);
        // Log, Sqrt and Reciprocal take positive inputs; the rest see both signs.
        const bool positive = kind == UnaryKind::Log || kind == UnaryKind::Sqrt || kind == UnaryKind::Reciprocal;
        ir::Builder b("unary");
        ir::ValueId x = b.input("x", DType::f32, shape);
        b.output(b.unary(kind, x, kind == UnaryKind::Clip ? -0.3f : 0.2f, kind == UnaryKind::Clip ? 0.6f : 0.4f));
        auto graph = b.finish();
        seed += 10;
        Tensor data = random_tensor(DType::f32, shape, seed, positive ? 0.1 : -4.0, 4.0);
        expect_tactic_matches_reference(*graph, {{x, data}}, "cpu.unary", kind_label(kind), seed);
    }
}

struct BinaryCase {
    Shape a, b;
};

const BinaryCase kBroadcasts[] = {
    {{2, 7, 9, 11}, {2, 7, 9, 11}},  // same shape
    {{2, 7, 9, 11}, {}},             // scalar
    {{2, 7, 9, 11}, {1}},            // one-element tensor
    {{3, 7, 9, 11}, {1, 7, 1, 1}},   // per channel
    {{3, 7, 9, 11}, {7, 1, 1}},      // per channel, lower rank
    {{3, 7, 5, 13}, {3, 7, 1, 1}},   // per image and channel (squeeze-excitation)
    {{1, 7, 1, 1}, {3, 7, 9, 11}},   // small operand first
    {{5, 33}, {33}},                 // row bias
    {{4, 6, 5, 7}, {1, 1, 5, 7}},    // per spatial position
};

TEST(CpuBinary, EveryKindAndBroadcastMatchesReference) {
    uint64_t seed = test_seed() + 8000;
    for (int k = 0; k <= static_cast<int>(BinaryKind::PRelu); ++k) {
        const auto kind = static_cast<BinaryKind>(k);
        for (const BinaryCase& bc : kBroadcasts) {
            if (kind == BinaryKind::PRelu && shape_numel(bc.a) < shape_numel(bc.b))
                continue;  // the slope broadcasts to X
            ir::Builder b("binary");
            ir::ValueId x = b.input("a", DType::f32, bc.a);
            ir::ValueId y = b.input("b", DType::f32, bc.b);
            b.output(b.binary(kind, x, y));
            auto graph = b.finish();
            seed += 10;
            // Pow takes a positive base; Div a divisor away from zero.
            const double lo_a = kind == BinaryKind::Pow ? 0.2 : -2.0;
            const double lo_b = kind == BinaryKind::Div ? 0.5 : -2.0;
            std::map<ir::ValueId, Tensor> feeds{{x, random_tensor(DType::f32, bc.a, seed, lo_a, 2.0)},
                                                {y, random_tensor(DType::f32, bc.b, seed + 1, lo_b, 2.0)}};
            expect_tactic_matches_reference(*graph, feeds, "cpu.binary",
                                            fmt::format("{} {} {}", kind_label(kind), shape_str(bc.a), shape_str(bc.b)),
                                            seed);
        }
    }
}

TEST(CpuBinary, RefusesTwoSidedBroadcastWithAReason) {
    ir::Builder b("outer");
    ir::ValueId x = b.input("a", DType::f32, {5, 1});
    ir::ValueId y = b.input("b", DType::f32, {1, 7});
    b.output(b.add(x, y));
    auto graph = b.finish();
    EXPECT_NE(tactic_reason(*graph, "cpu.binary").find("not covered"), std::string::npos);
}

}  // namespace
}  // namespace strata::test
