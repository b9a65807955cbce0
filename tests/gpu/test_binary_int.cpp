// test_binary_int.cpp: cuda.binary_int against the reference on int32 / int64 (exact): every BinaryKind (PRelu
// included) on a fixed broadcast, on random shapes of rank 1 to 4 with numpy broadcasting (1s on either side,
// lower-rank operands) and on rank-4 channel broadcasts, in both activation layouts (a rank-4 tensor is stored nhwc in
// the nhwc form); and Div on operands of both signs.
#include <optional>
#include <utility>

#include "membound_check.h"

namespace strata::test {
namespace {

using K = ir::BinaryKind;
const K kIntKinds[] = {K::Add, K::Sub, K::Mul, K::Div, K::Pow, K::Max, K::Min, K::PRelu};
const DType kIntDTypes[] = {DType::i32, DType::i64};

// `kind` on graph inputs a and b; b is the constant `divisor` instead when one is given (run_tactic keeps integer
// constants), so that Div can see negative operands without a zero divisor.
void check_binary_int(K kind, DType dt, const Shape& a_shape, const Shape& b_shape, uint64_t seed,
                      const std::optional<Tensor>& divisor = std::nullopt) {
    ir::Builder b("g");
    ir::ValueId x = b.input("a", dt, a_shape);
    ir::ValueId y = divisor ? b.constant("b", *divisor) : b.input("b", dt, b_shape);
    b.output(b.binary(kind, x, y), "c");
    auto g = b.finish();
    FormCheck check;
    check.dtypes = {DType::f32};  // integer tensors keep their dtype whatever the compute dtype
    check.f32_tolerance = 0;
    // Positive operands keep Div away from zero and Pow's results small; Sub and Min still see negatives.
    check.lo = (kind == K::Div && !divisor) || kind == K::Pow ? 1 : -50;
    check.hi = kind == K::Pow ? 5 : 50;
    expect_all_forms(*g, "cuda.binary_int",
                     fmt::format("{} {} {} with {}{}", ir::binary_kind_name(kind), dtype_name(dt), shape_str(a_shape),
                                 shape_str(b_shape), divisor ? " (constant divisor)" : ""),
                     seed, check);
}

TEST(GpuBinaryInt, EveryKindMatchesReferenceExactly) {
    STRATA_REQUIRE_GPU();
    const uint64_t seed = test_seed();
    for (DType dt : kIntDTypes)
        for (K kind : kIntKinds) check_binary_int(kind, dt, {3, 5, 7}, {5, 1}, seed);
}

// Operand shapes for an output of rank `rank`: one of them (the first with `slope`) has that rank, the other any rank
// up to it, and each dim is the output's or, a third of the time, 1. With `slope` (PRelu) the second broadcasts to
// the first, which is then the output.
std::pair<Shape, Shape> random_broadcast_pair(std::mt19937_64& rng, int rank, bool slope) {
    static constexpr int64_t kMaxDim[] = {1, 300, 40, 13, 9};
    Shape out;
    for (int d = 0; d < rank; ++d) out.push_back(random_dim(rng, 1, kMaxDim[rank]));
    auto operand = [&](const Shape& of, bool full_rank) {
        const int64_t n = static_cast<int64_t>(of.size());
        const size_t r = static_cast<size_t>(full_rank ? n : random_dim(rng, 1, n));
        Shape s;
        for (size_t i = of.size() - r; i < of.size(); ++i) s.push_back(rng() % 3 == 0 ? 1 : of[i]);
        return s;
    };
    const bool a_full = slope || rng() % 2 == 0;
    Shape a = operand(out, a_full);
    Shape b = operand(slope ? a : out, !a_full);
    return {a, b};
}

TEST(GpuBinaryInt, RandomBroadcastShapesMatchReferenceExactly) {
    STRATA_REQUIRE_GPU();
    const uint64_t seed = test_seed();
    std::mt19937_64 rng(seed + 1);
    for (int trial = 0; trial < 8; ++trial) {
        for (K kind : kIntKinds) {
            const auto [a, b] = random_broadcast_pair(rng, 1 + trial % 4, kind == K::PRelu);
            for (DType dt : kIntDTypes) check_binary_int(kind, dt, a, b, seed);
        }
    }
}

// Rank-4 operands with the per-channel and per-pixel broadcasts of CNN graphs (PRelu's [C,1,1] slope among them),
// which stride differently in nhwc.
TEST(GpuBinaryInt, Rank4ChannelBroadcastsMatchReferenceExactly) {
    STRATA_REQUIRE_GPU();
    const uint64_t seed = test_seed();
    std::mt19937_64 rng(seed + 2);
    for (int draw = 0; draw < 5; ++draw) {
        const int64_t n = random_dim(rng, 1, 3), c = random_dim(rng, 1, 37), h = random_dim(rng, 1, 9),
                      w = random_dim(rng, 1, 9);
        const std::pair<Shape, Shape> cases[] = {
            {{n, c, h, w}, {n, c, h, w}}, {{n, c, h, w}, {c, 1, 1}},    {{n, c, h, w}, {1, c, 1, 1}},
            {{n, c, h, w}, {n, c, 1, 1}}, {{n, c, h, w}, {n, 1, h, w}}, {{n, c, h, w}, {w}},
        };
        for (const auto& [a, b] : cases)
            for (K kind : kIntKinds)
                for (DType dt : kIntDTypes) check_binary_int(kind, dt, a, b, seed);
    }
}

// A divisor of `shape` with values in [-50, 50] and no zero (the reference rejects a division by zero).
Tensor nonzero_divisor(DType dt, const Shape& shape, std::mt19937_64& rng) {
    Tensor t = Tensor::empty(dt, shape);
    for (int64_t i = 0; i < t.numel(); ++i) {
        const int64_t v = random_dim(rng, 1, 50) * (rng() % 2 ? 1 : -1);
        if (dt == DType::i64)
            t.data<int64_t>()[i] = v;
        else
            t.data<int32_t>()[i] = static_cast<int32_t>(v);
    }
    return t;
}

// Div with dividends and divisors of both signs: the quotient truncates toward zero and x / -1 negates.
TEST(GpuBinaryInt, DivOfMixedSignsTruncatesTowardZero) {
    STRATA_REQUIRE_GPU();
    const uint64_t seed = test_seed();
    std::mt19937_64 rng(seed + 3);
    for (int trial = 0; trial < 8; ++trial) {
        const auto [a, b] = random_broadcast_pair(rng, 1 + trial % 4, false);
        for (DType dt : kIntDTypes) check_binary_int(K::Div, dt, a, b, seed, nonzero_divisor(dt, b, rng));
    }
}

}  // namespace
}  // namespace strata::test
