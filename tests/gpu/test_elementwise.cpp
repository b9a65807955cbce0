// test_elementwise.cpp: cuda.unary, cuda.binary and cuda.cast against the reference backend: every UnaryKind and
// BinaryKind, numpy broadcasting (squeeze-excite [N,C,1,1], [C,1,1] bias, scalars, lower-rank inputs, both sides
// broadcasting), odd shapes, every float dtype, nchw and nhwc; Cast between float and integer dtypes and the network
// edges' layout-changing casts (fp32 nchw <-> fp16/bf16 nhwc), which must be exact.
#include <cmath>
#include <cstring>
#include <iterator>
#include <vector>

#include "backends/cuda/cuda_check.h"
#include "backends/cuda/cuda_tactic.h"
#include "backends/cuda/device.h"
#include "membound_check.h"

namespace strata::test {
namespace {

using ir::BinaryKind;
using ir::UnaryKind;

Shape random_shape4(std::mt19937_64& rng) {
    return {random_dim(rng, 1, 3), random_dim(rng, 1, 37), random_dim(rng, 1, 13), random_dim(rng, 1, 13)};
}

TEST(GpuUnary, EveryKindMatchesReference) {
    STRATA_REQUIRE_GPU();
    const uint64_t seed = test_seed();
    std::mt19937_64 rng(seed);
    struct KindCase {
        UnaryKind kind;
        float alpha, beta;
    };
    const KindCase kinds[] = {
        {UnaryKind::Relu, 0, 0},        {UnaryKind::Relu6, 0, 0},
        {UnaryKind::Clip, -0.5f, 0.7f}, {UnaryKind::LeakyRelu, 0.1f, 0},
        {UnaryKind::Elu, 1.3f, 0},      {UnaryKind::Selu, 1.6733f, 1.0507f},
        {UnaryKind::Sigmoid, 0, 0},     {UnaryKind::HardSigmoid, 0.2f, 0.5f},
        {UnaryKind::HardSwish, 0, 0},   {UnaryKind::SiLU, 0, 0},
        {UnaryKind::Tanh, 0, 0},        {UnaryKind::Softplus, 0, 0},
        {UnaryKind::Softsign, 0, 0},    {UnaryKind::Exp, 0, 0},
        {UnaryKind::Log, 0, 0},         {UnaryKind::Sqrt, 0, 0},
        {UnaryKind::Neg, 0, 0},         {UnaryKind::Abs, 0, 0},
        {UnaryKind::Reciprocal, 0, 0},
    };
    for (const KindCase& k : kinds) {
        // Log, Sqrt and Reciprocal take positive inputs; the others see both signs and a range past 6 (Relu6's knee).
        bool positive = k.kind == UnaryKind::Log || k.kind == UnaryKind::Sqrt || k.kind == UnaryKind::Reciprocal;
        for (Shape shape : {random_shape4(rng), Shape{random_dim(rng, 1, 1000)}, Shape{3, random_dim(rng, 1, 9), 7}}) {
            ir::Builder b("unary");
            ir::ValueId x = b.input("x", DType::f32, shape);
            b.output(b.unary(k.kind, x, k.alpha, k.beta));
            auto g = b.finish();
            FormCheck check;
            check.lo = positive ? 0.1 : -8.0;
            check.hi = positive ? 2.0 : 8.0;
            expect_all_forms(*g, "cuda.unary",
                             fmt::format("UnaryKind {} {}", static_cast<int>(k.kind), shape_str(shape)), seed, check);
        }
    }
}

struct BroadcastCase {
    Shape a, b;
};

// True when `from` broadcasts to exactly `to` (numpy rules, aligned on the right): PRelu's slope must.
bool broadcasts_into(const Shape& from, const Shape& to) {
    if (from.size() > to.size()) return false;
    for (size_t i = 0; i < from.size(); ++i) {
        int64_t f = from[from.size() - 1 - i], t = to[to.size() - 1 - i];
        if (f != t && f != 1) return false;
    }
    return true;
}

TEST(GpuBinary, EveryKindWithBroadcastingMatchesReference) {
    STRATA_REQUIRE_GPU();
    const uint64_t seed = test_seed();
    std::mt19937_64 rng(seed);
    std::vector<BroadcastCase> cases = {
        {{5, 7}, {3, 5, 1}},             // rank 3 (row-major in both layouts)
        {{1001}, {1001}},                // an odd flat size: vector body and scalar tail
        {{2, 16, 5, 8}, {2, 16, 1, 1}},  // whole vectors along the innermost dim in both layouts
        {{2, 16, 5, 8}, {16, 1, 1}},
        {{3, 24}, {24}},
    };
    for (int draw = 0; draw < 6; ++draw) {
        const int64_t n = random_dim(rng, 1, 3), c = random_dim(rng, 1, 45), h = random_dim(rng, 1, 11),
                      w = random_dim(rng, 1, 11);
        const BroadcastCase drawn[] = {
            {{n, c, h, w}, {n, c, h, w}},  // same shape: the flat vectorised path
            {{n, c, h, w}, {n, c, 1, 1}},  // squeeze-excite scale
            {{n, c, h, w}, {c, 1, 1}},     // a bias of lower rank
            {{n, c, h, w}, {}},            // a scalar
            {{n, c, h, w}, {1}},           // a one-element tensor
            {{c, 1, 1}, {n, c, h, w}},     // the broadcast operand first
            {{n, 1, h, 1}, {1, c, 1, w}},  // both broadcast
            {{h, w}, {n, c, h, w}},        // lower rank, trailing dims
            {{n, c, 1, w}, {n, 1, h, 1}},
        };
        cases.insert(cases.end(), std::begin(drawn), std::end(drawn));
    }
    for (int kind = 0; kind <= static_cast<int>(BinaryKind::PRelu); ++kind) {
        BinaryKind k = static_cast<BinaryKind>(kind);
        for (const BroadcastCase& bc : cases) {
            if (k == BinaryKind::PRelu && !broadcasts_into(bc.b, bc.a)) continue;  // the slope broadcasts to X only
            ir::Builder b("binary");
            ir::ValueId a = b.input("a", DType::f32, bc.a);
            ir::ValueId bb = b.input("b", DType::f32, bc.b);
            b.output(b.binary(k, a, bb));
            auto g = b.finish();
            FormCheck check;
            // Div and Pow keep away from 0 (no infinities in half precision); Max and Min pick an input: exact.
            if (k == BinaryKind::Div || k == BinaryKind::Pow) check.lo = 0.5, check.hi = 2.0;
            if (k == BinaryKind::Max || k == BinaryKind::Min) check.f32_tolerance = 0;
            expect_all_forms(*g, "cuda.binary",
                             fmt::format("BinaryKind {} {} with {}", kind, shape_str(bc.a), shape_str(bc.b)), seed,
                             check);
        }
    }
}

// Cast of a `from` input of `shape` (values in [lo, hi)) to `to`, exact.
void check_cast(DType from, DType to, const Shape& shape, double lo, double hi, uint64_t seed) {
    ir::Builder b("cast");
    ir::ValueId x = b.input("x", from, shape);
    b.output(b.op(ir::OpKind::Cast, {x}, ir::CastAttrs{to}));
    auto g = b.finish();
    FormCheck check;
    check.lo = lo, check.hi = hi;
    check.f32_tolerance = 0;
    expect_all_forms(*g, "cuda.cast", fmt::format("{} -> {} {}", dtype_name(from), dtype_name(to), shape_str(shape)),
                     seed, check);
}

TEST(GpuCast, FloatToIntegerAndBackMatchesReference) {
    STRATA_REQUIRE_GPU();
    const uint64_t seed = test_seed();
    std::mt19937_64 rng(seed);
    for (int draw = 0; draw < 6; ++draw) {
        const Shape shape = random_shape4(rng);
        // Float to every integer type: truncation, saturation (u8, i8 past their range), and bool.
        for (DType to : {DType::i64, DType::i32, DType::i8, DType::u8, DType::boolean})
            check_cast(DType::f32, to, shape, -300.0, 300.0, seed);
        // Integers to float (exact for these magnitudes) and int64 -> int32 / bool.
        for (DType from : {DType::i64, DType::i32})
            for (DType to : {DType::f32, DType::i32, DType::boolean, DType::i64})
                if (from != to) check_cast(from, to, shape, -1000.0, 1000.0, seed);
    }
}

// The network edges: Cast with its own descs (run_tactic gives every float the compute dtype and one layout).
// The result must be exactly the input rounded to the target dtype, in the target layout.
void check_edge_cast(const Shape& shape, DType from, Layout from_layout, DType to, Layout to_layout, uint64_t seed) {
    std::string label = fmt::format("cuda.cast {} {} {} -> {} {} seed {}", shape_str(shape), dtype_name(from),
                                    layout_name(from_layout), dtype_name(to), layout_name(to_layout), seed);
    ir::Builder b("edge_cast");
    ir::ValueId x = b.input("x", DType::f32, shape);
    b.output(b.op(ir::OpKind::Cast, {x}, ir::CastAttrs{to}));
    auto g = b.finish();
    ir::infer_shapes(*g);
    cuda::StepDesc desc;
    desc.node = &g->nodes()[0];
    desc.name = "edge_cast";
    desc.device = &cuda::device_info(0);
    desc.inputs = {cuda::TensorDesc{from, from_layout, shape}};
    desc.outputs = {cuda::TensorDesc{to, to_layout, shape}};
    const cuda::CudaTactic* tactic = cuda::CudaTacticRegistry::global().find("cuda.cast");
    ASSERT_NE(tactic, nullptr);
    std::string refused = tactic->can_implement(desc, 0);
    ASSERT_TRUE(refused.empty()) << label << ": refused: " << refused;

    Tensor input = round_to(random_tensor(DType::f32, shape, seed, -3.0, 3.0), from);
    DeviceTensor in = to_device(input, desc.inputs[0]);
    DeviceTensor out{cuda::DeviceBuffer(desc.outputs[0].bytes(), "edge cast output"), desc.outputs[0]};
    STRATA_CUDA_CHECK(cudaMemset(out.buffer.data(), 0xFF, desc.outputs[0].bytes()), "poisoning");
    auto kernel = tactic->make(desc, 0);
    kernel->launch({{in.buffer.data()}, {out.buffer.data()}, nullptr}, nullptr);
    cuda::check_launch(label);
    STRATA_CUDA_CHECK(cudaDeviceSynchronize(), label);
    Tensor got = from_device(out);
    Tensor want = round_to(input, to);
    EXPECT_EQ(max_rel_error(got, want), 0.0) << label;
    int64_t unwritten = 0;
    for (int64_t i = 0; i < got.numel(); ++i) unwritten += std::isnan(got.data<float>()[i]);
    EXPECT_EQ(unwritten, 0) << label << ": output elements left unwritten";
}

TEST(GpuCast, EdgeCastsBetweenLayoutsAreExact) {
    STRATA_REQUIRE_GPU();
    const uint64_t seed = test_seed();
    std::mt19937_64 rng(seed);
    std::vector<Shape> shapes = {
        {1, 3, 224, 224},  // the network input
        {2, 5, 7, 9},
        {3, 33, 5, 7},    // channels across two tiles
        {2, 1000, 1, 1},  // logits: both layouts hold the same bytes
    };
    for (int draw = 0; draw < 6; ++draw)
        shapes.push_back(
            {random_dim(rng, 1, 4), random_dim(rng, 1, 70), random_dim(rng, 1, 40), random_dim(rng, 1, 40)});
    for (const Shape& shape : shapes) {
        for (DType half : {DType::f16, DType::bf16, DType::f32}) {
            check_edge_cast(shape, DType::f32, Layout::nchw, half, Layout::nhwc, seed);
            check_edge_cast(shape, half, Layout::nhwc, DType::f32, Layout::nchw, seed);
            check_edge_cast(shape, DType::f32, Layout::nchw, half, Layout::nchw, seed);  // same layout, flat
        }
        check_edge_cast(shape, DType::f16, Layout::nhwc, DType::bf16, Layout::nchw, seed);
    }
}

}  // namespace
}  // namespace strata::test
