// test_pool.cpp: cuda.maxpool, cuda.avgpool, cuda.global_avgpool and cuda.global_maxpool against the reference:
// odd sizes, strides 1-3, asymmetric pads, dilation, ceil_mode (the last window running off the end),
// count_include_pad, 1-D windows, every float dtype and both layouts. Max pooling is exact in fp32.
#include "membound_check.h"

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
    {1, 3, 20, 21, 5, 4, 3, 2, 2, 1, 0, 2, 1, 1, false, false},   // stride 3, rectangular, asymmetric pads
    {1, 2, 18, 17, 3, 3, 1, 2, 2, 2, 2, 2, 2, 2, false, false},   // dilation 2
    {2, 64, 28, 28, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, false, false},  // a ResNet stem pool, many channels
    {1, 37, 9, 11, 2, 3, 2, 2, 0, 1, 1, 0, 1, 2, true, false},    // odd channel count, ceil_mode, dilation
    {3, 4, 0, 29, 1, 3, 1, 2, 0, 1, 0, 1, 1, 1, false, true},     // 1-D
    {2, 5, 0, 30, 1, 4, 1, 3, 0, 2, 0, 1, 1, 1, true, false},     // 1-D ceil_mode
};

void check_pool(ir::OpKind op, const PoolCase& pc, uint64_t seed) {
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
    auto g = b.finish();
    FormCheck check;
    check.f32_tolerance = op == ir::OpKind::MaxPool ? 0.0 : 1e-4;
    expect_all_forms(*g, op == ir::OpKind::MaxPool ? "cuda.maxpool" : "cuda.avgpool", pc.str(), seed, check);
}

TEST(GpuPool, MaxPoolMatchesReferenceOnShapeTable) {
    STRATA_REQUIRE_GPU();
    uint64_t seed = test_seed();
    for (const PoolCase& pc : kCases) check_pool(ir::OpKind::MaxPool, pc, seed += 10);
}

TEST(GpuPool, AveragePoolMatchesReferenceOnShapeTable) {
    STRATA_REQUIRE_GPU();
    uint64_t seed = test_seed();
    for (const PoolCase& pc : kCases) check_pool(ir::OpKind::AveragePool, pc, seed += 10);
}

TEST(GpuPool, RandomWindowsMatchReference) {
    STRATA_REQUIRE_GPU();
    const uint64_t seed = test_seed();
    std::mt19937_64 rng(seed);
    for (int i = 0; i < 12; ++i) {
        PoolCase pc{};
        pc.n = random_dim(rng, 1, 3), pc.c = random_dim(rng, 1, 40);
        // Inputs of at least 8 hold the largest dilated window (7); pads stay below half of it, so every window
        // has a tap inside the input.
        pc.h = random_dim(rng, 8, 20), pc.w = random_dim(rng, 8, 20);
        pc.kh = random_dim(rng, 1, 4), pc.kw = random_dim(rng, 1, 4);
        pc.sh = random_dim(rng, 1, 3), pc.sw = random_dim(rng, 1, 3);
        pc.dh = random_dim(rng, 1, 2), pc.dw = random_dim(rng, 1, 2);
        pc.pt = random_dim(rng, 0, (pc.kh - 1) * pc.dh / 2), pc.pb = random_dim(rng, 0, (pc.kh - 1) * pc.dh / 2);
        pc.pl = random_dim(rng, 0, (pc.kw - 1) * pc.dw / 2), pc.pr = random_dim(rng, 0, (pc.kw - 1) * pc.dw / 2);
        pc.ceil_mode = rng() % 2 == 0, pc.count_include_pad = rng() % 2 == 0;
        check_pool(ir::OpKind::MaxPool, pc, seed + i);
        check_pool(ir::OpKind::AveragePool, pc, seed + i);
    }
}

TEST(GpuPool, GlobalPoolsMatchReference) {
    STRATA_REQUIRE_GPU();
    const uint64_t seed = test_seed();
    std::mt19937_64 rng(seed);
    const Shape shapes[] = {
        {2, 5, 7, 9},
        {1, 64, 7, 7},
        {3, 45, 1, 1},    // nothing to average: a copy
        {2, 70, 13, 1},   // channels past one 32-channel block
        {4, 2048, 7, 7},  // ResNet-50's head
        {random_dim(rng, 1, 4), random_dim(rng, 1, 100), random_dim(rng, 1, 20), random_dim(rng, 1, 20)},
        {2, 5, 11},        // 1-D
        {1, 3, 150, 151},  // long planes
        // Channels-last splits over the spatial rows (global_pool_split.cu): EfficientNet's squeeze-excite inputs
        // at batch 1, an odd channel count (no 16-byte loads) and a split that leaves a short last chunk.
        {1, 32, 112, 112},
        {1, 96, 57, 61},
        {2, 37, 45, 45},
        {3, 400, 29, 31},
    };
    for (const Shape& shape : shapes) {
        for (ir::OpKind op : {ir::OpKind::GlobalAveragePool, ir::OpKind::GlobalMaxPool}) {
            ir::Builder b("global_pool");
            ir::ValueId x = b.input("x", DType::f32, shape);
            b.output(b.op(op, {x}));
            auto g = b.finish();
            FormCheck check;
            check.f32_tolerance = op == ir::OpKind::GlobalMaxPool ? 0.0 : 1e-4;
            expect_all_forms(*g, op == ir::OpKind::GlobalMaxPool ? "cuda.global_maxpool" : "cuda.global_avgpool",
                             shape_str(shape), seed, check);
        }
    }
}

}  // namespace
}  // namespace strata::test
