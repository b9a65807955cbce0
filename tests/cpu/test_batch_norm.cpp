// test_batch_norm.cpp: the CPU BatchNormalization (inference form) against the reference on 2-D, 3-D and 4-D inputs
// with odd sizes; variances drawn positive.
#include "cpu_check.h"

namespace strata::test {
namespace {

TEST(CpuBatchNorm, MatchesReferenceOnShapes) {
    uint64_t seed = test_seed() + 13000;
    for (const Shape& shape : {Shape{3, 7, 11, 13}, Shape{1, 5, 9}, Shape{4, 6}, Shape{2, 9, 1, 1}}) {
        const int64_t c = shape[1];
        seed += 10;
        ir::Builder b("bn");
        ir::ValueId x = b.input("x", DType::f32, shape);
        b.output(b.batch_norm(x, random_tensor(DType::f32, {c}, seed + 1), random_tensor(DType::f32, {c}, seed + 2),
                              random_tensor(DType::f32, {c}, seed + 3),
                              random_tensor(DType::f32, {c}, seed + 4, 0.1, 2.0), 1e-3f));
        auto graph = b.finish();
        expect_tactic_matches_reference(*graph, {{x, random_tensor(DType::f32, shape, seed, -3.0, 3.0)}},
                                        "cpu.batch_norm", shape_str(shape), seed);
    }
}

}  // namespace
}  // namespace strata::test
