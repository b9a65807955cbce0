// test_concat_softmax.cpp: the CPU Concat (several axes, any dtype) and Softmax/LogSoftmax (any axis, the opset<13
// coerced form) kernels against the reference.
#include <fmt/format.h>

#include "cpu_check.h"

namespace strata::test {
namespace {

TEST(CpuConcat, MatchesReferenceAlongEachAxis) {
    uint64_t seed = test_seed() + 11000;
    for (DType dtype : {DType::f32, DType::i64})
        for (int64_t axis : {1, 0, 3, -1, 2}) {
            ir::Builder b("concat");
            std::vector<ir::ValueId> xs;
            std::map<ir::ValueId, Tensor> feeds;
            const int64_t sizes[] = {3, 1, 5};
            for (int i = 0; i < 3; ++i) {
                Shape shape{2, 4, 5, 7};
                shape[static_cast<size_t>(axis < 0 ? axis + 4 : axis)] = sizes[i];
                xs.push_back(b.input(fmt::format("x{}", i), dtype, shape));
                feeds[xs.back()] = random_tensor(dtype, shape, seed + i, -100, 100);
            }
            b.output(b.concat(xs, axis));
            auto graph = b.finish();
            seed += 10;
            expect_tactic_matches_reference(*graph, feeds, "cpu.concat",
                                            fmt::format("{} axis {}", dtype_name(dtype), axis), seed);
        }
}

TEST(CpuSoftmax, MatchesReferenceOnAxesAndCoercedForm) {
    uint64_t seed = test_seed() + 12000;
    struct Case {
        Shape shape;
        int64_t axis;
        bool coerce_2d;
    };
    const Case cases[] = {{{3, 1000}, -1, false},
                          {{2, 7, 5, 3}, 1, false},
                          {{2, 7, 5, 3}, 1, true},
                          {{4, 9, 11}, 0, false},
                          {{5, 13}, 1, true}};
    for (ir::OpKind op : {ir::OpKind::Softmax, ir::OpKind::LogSoftmax})
        for (const Case& c : cases) {
            ir::Builder b("softmax");
            ir::ValueId x = b.input("x", DType::f32, c.shape);
            b.output(b.op(op, {x}, ir::SoftmaxAttrs{c.axis, c.coerce_2d}));
            auto graph = b.finish();
            seed += 10;
            expect_tactic_matches_reference(
                *graph, {{x, random_tensor(DType::f32, c.shape, seed, -5.0, 5.0)}},
                op == ir::OpKind::Softmax ? "cpu.softmax" : "cpu.log_softmax",
                fmt::format("{} {} axis {} coerce {}", ir::op_name(op), shape_str(c.shape), c.axis, c.coerce_2d), seed);
        }
}

}  // namespace
}  // namespace strata::test
