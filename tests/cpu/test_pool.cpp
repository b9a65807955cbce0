// test_pool.cpp: the CPU max, average and global average pooling against the reference kernel: odd sizes,
// strides 1-3, pads, ceil_mode, count_include_pad, dilation and 1-D windows.
#include <fmt/format.h>

#include "cpu_check.h"

namespace strata::test {
namespace {

struct PoolCase {
    int64_t n, c, h, w;  // h == 0: 1-D
    int64_t kh, kw, sh, sw, pt, pl, pb, pr, dh, dw;
    bool ceil_mode, count_include_pad;

    std::string str() const {
        return fmt::format("N{} C{} H{} W{} k{}x{} s{}x{} pads[{},{},{},{}] d{}x{} ceil{} include_pad{}", n, c, h, w,
                           kh, kw, sh, sw, pt, pl, pb, pr, dh, dw, ceil_mode, count_include_pad);
    }
};

// n c h w | kh kw sh sw | pt pl pb pr | dh dw | ceil include_pad
const PoolCase kCases[] = {
    {1, 3, 13, 15, 3, 3, 2, 2, 0, 0, 0, 0, 1, 1, false, false},
    {2, 5, 14, 17, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, false, false},
    {1, 4, 15, 15, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, false, true},  // googlenet's branch pool, counting pads
    {1, 3, 16, 19, 3, 3, 2, 2, 0, 0, 0, 0, 1, 1, true, false},  // ceil_mode: last window runs off the end
    {1, 3, 17, 18, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, true, true},   // ceil_mode with count_include_pad
    {2, 2, 19, 23, 2, 2, 2, 2, 0, 0, 0, 0, 1, 1, false, false},
    {1, 3, 20, 21, 5, 4, 3, 2, 2, 1, 0, 2, 1, 1, false, false},  // stride 3, rectangular, asymmetric pads
    {1, 2, 18, 17, 3, 3, 1, 2, 2, 2, 2, 2, 2, 2, false, false},  // dilation 2
    {3, 4, 0, 29, 1, 3, 1, 2, 0, 1, 0, 1, 1, 1, false, true},    // 1-D
};

void check_pool(ir::OpKind op, const PoolCase& pc, uint64_t seed) {
    if (op == ir::OpKind::AveragePool && (pc.dh != 1 || pc.dw != 1)) return;  // ONNX AveragePool dilations: opset 19
    const bool one_d = pc.h == 0;
    ir::PoolAttrs a;
    if (one_d) {
        a.kernel = {pc.kw}, a.strides = {pc.sw}, a.dilations = {pc.dw}, a.pads_begin = {pc.pl}, a.pads_end = {pc.pr};
    } else {
        a.kernel = {pc.kh, pc.kw}, a.strides = {pc.sh, pc.sw}, a.dilations = {pc.dh, pc.dw};
        a.pads_begin = {pc.pt, pc.pl}, a.pads_end = {pc.pb, pc.pr};
    }
    a.ceil_mode = pc.ceil_mode;
    a.count_include_pad = pc.count_include_pad;
    const Shape shape = one_d ? Shape{pc.n, pc.c, pc.w} : Shape{pc.n, pc.c, pc.h, pc.w};
    ir::Builder b("pool_case");
    ir::ValueId x = b.input("x", DType::f32, shape);
    b.output(op == ir::OpKind::MaxPool ? b.max_pool(x, a) : b.avg_pool(x, a));
    auto graph = b.finish();
    const char* tactic = op == ir::OpKind::MaxPool ? "cpu.maxpool2d" : "cpu.avgpool2d";
    expect_tactic_matches_reference(*graph, {{x, random_tensor(DType::f32, shape, seed)}}, tactic, pc.str(), seed);
}

TEST(CpuPool, MaxPoolMatchesReferenceOnShapeTable) {
    uint64_t seed = test_seed() + 4000;
    for (const PoolCase& pc : kCases) check_pool(ir::OpKind::MaxPool, pc, seed += 10);
}

TEST(CpuPool, AveragePoolMatchesReferenceOnShapeTable) {
    uint64_t seed = test_seed() + 5000;
    for (const PoolCase& pc : kCases) check_pool(ir::OpKind::AveragePool, pc, seed += 10);
}

TEST(CpuPool, GlobalAveragePoolMatchesReference) {
    uint64_t seed = test_seed() + 6000;
    for (const Shape& shape : {Shape{1, 7, 7, 7}, Shape{3, 13, 5, 9}, Shape{2, 5, 11}, Shape{2, 3, 1, 1}}) {
        ir::Builder b("gap");
        ir::ValueId x = b.input("x", DType::f32, shape);
        b.output(b.global_avg_pool(x));
        auto graph = b.finish();
        seed += 10;
        expect_tactic_matches_reference(*graph, {{x, random_tensor(DType::f32, shape, seed)}}, "cpu.global_avgpool",
                                        shape_str(shape), seed);
    }
}

}  // namespace
}  // namespace strata::test
