// test_reduce.cpp: cuda.reduce against the reference: Mean/Sum/Max/Min over single axes, several axes, negative
// axes and all axes, keepdims on and off, rank 2-4, both layouts (the nhwc input's reduced dims and the output's
// kept dims live at different strides) and every float dtype. Max and Min pick an input: exact in fp32.
#include <fmt/ranges.h>

#include "membound_check.h"

namespace strata::test {
namespace {

TEST(GpuReduce, EveryKindAxesAndKeepdimsMatchReference) {
    STRATA_REQUIRE_GPU();
    const uint64_t seed = test_seed();
    std::mt19937_64 rng(seed);
    std::vector<std::pair<Shape, std::vector<std::vector<int64_t>>>> cases = {
        {{3, 77, 5}, {{1}, {0, 2}, {-1}, {}}},
        {{9, 1000}, {{1}, {0}}},
    };
    for (int draw = 0; draw < 6; ++draw) {
        const Shape shape4 = {random_dim(rng, 1, 3), random_dim(rng, 1, 40), random_dim(rng, 1, 12),
                              random_dim(rng, 1, 12)};
        cases.push_back({shape4, {{1}, {2, 3}, {0, 2}, {}, {-1}, {1, 2, 3}, {0}, {3}}});
    }
    for (const auto& [shape, axes_list] : cases) {
        for (const auto& axes : axes_list) {
            for (int kind = 0; kind <= static_cast<int>(ir::ReduceKind::Min); ++kind) {
                for (bool keepdims : {true, false}) {
                    ir::ReduceAttrs a;
                    a.kind = static_cast<ir::ReduceKind>(kind);
                    a.axes = axes;
                    a.keepdims = keepdims;
                    ir::Builder b("reduce");
                    ir::ValueId x = b.input("x", DType::f32, shape);
                    b.output(b.op(ir::OpKind::Reduce, {x}, a));
                    auto g = b.finish();
                    FormCheck check;
                    bool picks = a.kind == ir::ReduceKind::Max || a.kind == ir::ReduceKind::Min;
                    check.f32_tolerance = picks ? 0.0 : 1e-4;
                    // Sums of signed values cancel; positive inputs keep max|want| from being a lucky small number.
                    if (!picks) check.lo = 0.0;
                    expect_all_forms(*g, "cuda.reduce",
                                     fmt::format("{} kind {} axes [{}] keepdims {}", shape_str(shape), kind,
                                                 fmt::join(axes, ","), keepdims),
                                     seed, check);
                }
            }
        }
    }
}

}  // namespace
}  // namespace strata::test
