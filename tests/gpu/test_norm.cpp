// test_norm.cpp: cuda.batchnorm and cuda.instancenorm against the reference, with float32 per-channel parameters,
// odd channel counts, ranks 2-4, both layouts and every float dtype.
#include "membound_check.h"

namespace strata::test {
namespace {

TEST(GpuNorm, BatchNormMatchesReference) {
    STRATA_REQUIRE_GPU();
    const uint64_t seed = test_seed();
    std::mt19937_64 rng(seed);
    std::vector<Shape> shapes = {
        {2, 16, 4, 8},  // 16-byte vectors in both layouts (HW and C are multiples of 8)
        {2, 37, 9},
        {5, 33},
        {3, 24},
    };
    for (int draw = 0; draw < 6; ++draw)
        shapes.push_back(
            {random_dim(rng, 1, 3), random_dim(rng, 1, 70), random_dim(rng, 1, 15), random_dim(rng, 1, 15)});
    for (const Shape& shape : shapes) {
        const int64_t c = shape[1];
        ir::Builder b("batch_norm");
        ir::ValueId x = b.input("x", DType::f32, shape);
        b.output(b.batch_norm(x, random_tensor(DType::f32, {c}, seed + 1, 0.5, 2.0),
                              random_tensor(DType::f32, {c}, seed + 2), random_tensor(DType::f32, {c}, seed + 3),
                              random_tensor(DType::f32, {c}, seed + 4, 0.1, 3.0), 1e-3f));
        auto g = b.finish();
        expect_all_forms(*g, "cuda.batchnorm", shape_str(shape), seed);
    }
}

TEST(GpuNorm, InstanceNormMatchesReference) {
    STRATA_REQUIRE_GPU();
    const uint64_t seed = test_seed();
    std::mt19937_64 rng(seed);
    std::vector<Shape> shapes = {
        {2, 3, 64, 65},  // planes longer than one block
        {3, 7, 11},
    };
    for (int draw = 0; draw < 6; ++draw)
        shapes.push_back(
            {random_dim(rng, 1, 3), random_dim(rng, 1, 40), random_dim(rng, 1, 30), random_dim(rng, 1, 30)});
    for (const Shape& shape : shapes) {
        const int64_t c = shape[1];
        ir::Builder b("instance_norm");
        ir::ValueId x = b.input("x", DType::f32, shape);
        ir::ValueId scale = b.constant("scale", random_tensor(DType::f32, {c}, seed + 1, 0.5, 2.0));
        ir::ValueId bias = b.constant("bias", random_tensor(DType::f32, {c}, seed + 2));
        b.output(b.op(ir::OpKind::InstanceNorm, {x, scale, bias}, ir::BatchNormAttrs{1e-5f}));
        auto g = b.finish();
        expect_all_forms(*g, "cuda.instancenorm", shape_str(shape), seed);
    }
}

}  // namespace
}  // namespace strata::test
