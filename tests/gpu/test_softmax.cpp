// test_softmax.cpp: cuda.softmax and cuda.logsoftmax against the reference over every axis (negative ones too),
// opset-13 and coerce_2d semantics, rows from 1 to past a warp's width and long rows with a block each, every float
// dtype and both layouts (in nhwc, axis 1 is the contiguous row; other axes are strided columns).
#include "membound_check.h"

namespace strata::test {
namespace {

TEST(GpuSoftmax, EveryAxisAndLayoutMatchesReference) {
    STRATA_REQUIRE_GPU();
    const uint64_t seed = test_seed();
    std::mt19937_64 rng(seed);
    std::vector<Shape> shapes = {
        {2, 5, 7, 9}, {3, 1000},  // classifier logits
        {2, 4099},                // a few long rows: one block per row
        {7, 1},       {4, 33, 6}, {1, 1, 1, 1},
    };
    for (int draw = 0; draw < 6; ++draw)
        shapes.push_back({random_dim(rng, 1, 3), random_dim(rng, 1, 70), random_dim(rng, 1, 9), random_dim(rng, 1, 9)});
    for (const Shape& shape : shapes) {
        const int64_t rank = static_cast<int64_t>(shape.size());
        for (int64_t axis = -rank; axis < rank; ++axis) {
            for (bool coerce : {false, true}) {
                for (ir::OpKind op : {ir::OpKind::Softmax, ir::OpKind::LogSoftmax}) {
                    ir::Builder b("softmax");
                    ir::ValueId x = b.input("x", DType::f32, shape);
                    b.output(b.op(op, {x}, ir::SoftmaxAttrs{axis, coerce}));
                    auto g = b.finish();
                    FormCheck check;
                    check.lo = -4.0, check.hi = 4.0;
                    expect_all_forms(*g, op == ir::OpKind::Softmax ? "cuda.softmax" : "cuda.logsoftmax",
                                     fmt::format("{} axis {} coerce_2d {}", shape_str(shape), axis, coerce), seed,
                                     check);
                }
            }
        }
    }
}

}  // namespace
}  // namespace strata::test
