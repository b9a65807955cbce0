// test_binary_int.cpp: cuda.binary_int against the reference on int32 / int64 with broadcasting (exact).
#include <gtest/gtest.h>

#include "gpu_support.h"
#include "ir/builder.h"
#include "ir/shape_inference.h"
#include "test_support.h"

namespace strata::test {
namespace {

TEST(GpuBinaryInt, EveryKindMatchesReferenceExactly) {
    STRATA_REQUIRE_GPU();
    uint64_t seed = test_seed();
    using K = ir::BinaryKind;
    for (DType dt : {DType::i32, DType::i64}) {
        for (K kind : {K::Add, K::Sub, K::Mul, K::Div, K::Pow, K::Max, K::Min}) {
            ir::Builder b("g");
            ir::ValueId x = b.input("a", dt, {3, 5, 7});
            ir::ValueId y = b.input("b", dt, {5, 1});
            b.output(b.binary(kind, x, y), "c");
            auto g = b.finish();
            ir::infer_shapes(*g);
            // Positive operands keep Div away from zero and Pow's results small; Sub and Min still see negatives.
            double lo = kind == K::Div || kind == K::Pow ? 1 : -50, hi = kind == K::Pow ? 5 : 50;
            TacticRun r = run_tactic(*g, 0, "cuda.binary_int", 0, DType::f32, Layout::rowmajor, seed, lo, hi);
            ASSERT_TRUE(r.ran) << r.refused;
            EXPECT_EQ(r.max_rel_error, 0.0) << ir::binary_kind_name(kind) << " " << dtype_name(dt) << " seed " << seed;
        }
    }
}

}  // namespace
}  // namespace strata::test
