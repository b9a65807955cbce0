// test_engine.cpp: the Engine on builder-made graphs (conv, relu, pools, concat, flatten, gemm) against the reference
// interpreter on seeded random inputs, with and without the passes, at batch 1 and 3.
#include <gtest/gtest.h>

#include "backends/reference/reference.h"
#include "ir/builder.h"
#include "strata/engine.h"
#include "test_support.h"

namespace strata {
namespace {

using ir::ValueId;

// A small two-branch CNN with a dynamic batch: conv-relu-maxpool, then a 1x1 and a 3x3 branch concatenated, global
// average pool, flatten, linear; a second output exposes an intermediate value that is also read later.
std::shared_ptr<ir::Graph> small_cnn(uint64_t seed, int64_t batch = -1) {
    ir::Builder b("small_cnn");
    auto w = [&](Shape shape) { return test::random_tensor(DType::f32, shape, seed++, -0.5, 0.5); };
    ValueId x = b.input("x", DType::f32, {batch, 3, 17, 19});
    ValueId c1 = b.relu(b.conv(x, w({8, 3, 3, 3}), w({8}), ir::conv2d_attrs(3, 1, 1)));
    ValueId p1 = b.max_pool(c1, ir::pool2d_attrs(3, 2, 1, true));
    ValueId a = b.relu(b.conv(p1, w({5, 8, 1, 1}), w({5}), ir::conv2d_attrs(1)));
    ValueId c = b.conv(p1, w({6, 4, 3, 3}), std::nullopt, ir::conv2d_attrs(3, 1, 1, 2));
    ValueId cat = b.concat({a, b.unary(ir::UnaryKind::Sigmoid, c)}, 1);
    ValueId avg = b.avg_pool(cat, ir::pool2d_attrs(2, 1));
    ValueId g = b.flatten(b.global_avg_pool(avg));
    b.output(b.linear(g, w({7, 11}), w({7})), "logits");
    b.output(p1, "pooled");
    return b.finish();
}

TensorMap run_engine(const Model& model, const BuildOptions& options, const TensorMap& inputs) {
    auto engine = Engine::build(model, options);
    EXPECT_TRUE(engine.ok()) << engine.status().message();
    auto ctx = engine->make_context();
    EXPECT_TRUE(ctx.ok()) << ctx.status().message();
    auto out = ctx->run(inputs);
    EXPECT_TRUE(out.ok()) << out.status().message();
    return out.ok() ? *out : TensorMap{};
}

void expect_close(const TensorMap& got, const TensorMap& want) {
    ASSERT_EQ(got.size(), want.size());
    for (const auto& [name, w] : want) {
        ASSERT_TRUE(got.count(name)) << name;
        ASSERT_EQ(got.at(name).shape(), w.shape()) << name;
        EXPECT_LE(test::max_rel_error(got.at(name), w), 1e-5) << name;
    }
}

TEST(Engine, SmallCnnMatchesReferenceWithAndWithoutPasses) {
    uint64_t seed = test::test_seed();
    Model model(small_cnn(seed));
    TensorMap inputs{{"x", test::random_tensor(DType::f32, {2, 3, 17, 19}, seed + 100)}};
    TensorMap want = backends::run_reference(model.graph(), inputs);
    for (bool optimize : {true, false}) {
        SCOPED_TRACE(optimize ? "optimized" : "not optimized");
        expect_close(run_engine(model, {.batch = 2, .threads = 3, .optimize = optimize}, inputs), want);
    }
}

TEST(Engine, ContextReusesItsMemoryAcrossRuns) {
    uint64_t seed = test::test_seed();
    Model model(small_cnn(seed));
    auto engine = Engine::build(model, {.batch = 1}).value();
    auto ctx = engine.make_context().value();
    for (int run = 0; run < 3; ++run) {
        TensorMap inputs{{"x", test::random_tensor(DType::f32, {1, 3, 17, 19}, seed + run)}};
        auto got = ctx.run(inputs);
        ASSERT_TRUE(got.ok()) << got.status().message();
        expect_close(*got, backends::run_reference(model.graph(), inputs));
    }
}

TEST(Engine, Batch3MatchesThreeBatch1Runs) {
    uint64_t seed = test::test_seed();
    Model model(small_cnn(seed));
    auto e1 = Engine::build(model, {.batch = 1}).value();
    auto e3 = Engine::build(model, {.batch = 3}).value();
    EXPECT_EQ(e1.inputs()[0].shape, (Shape{1, 3, 17, 19}));
    EXPECT_EQ(e3.inputs()[0].shape, (Shape{3, 3, 17, 19}));
    EXPECT_EQ(e3.outputs()[0].shape, (Shape{3, 7}));
    Tensor x3 = test::random_tensor(DType::f32, {3, 3, 17, 19}, seed + 7);
    Tensor y3 = e3.make_context().value().run({{"x", x3}}).value().at("logits");
    auto c1 = e1.make_context().value();
    for (int64_t n = 0; n < 3; ++n) {
        Tensor xn = Tensor::wrap(x3.data<float>() + n * 3 * 17 * 19, DType::f32, {1, 3, 17, 19});
        Tensor y1 = c1.run({{"x", xn}}).value().at("logits");
        Tensor y3n = Tensor::wrap(y3.data<float>() + n * 7, DType::f32, {1, 7});
        EXPECT_LE(test::max_rel_error(y3n, y1), 1e-5) << "sample " << n;
    }
}

TEST(Engine, DefaultBatchIsTheModelsOwnElseOne) {
    uint64_t seed = test::test_seed();
    EXPECT_EQ(Engine::build(Model(small_cnn(seed, 2))).value().inputs()[0].shape[0], 2);
    EXPECT_EQ(Engine::build(Model(small_cnn(seed))).value().inputs()[0].shape[0], 1);
    auto mismatch = Engine::build(Model(small_cnn(seed, 2)), {.batch = 3});
    EXPECT_EQ(mismatch.status().code(), StatusCode::invalid_argument) << mismatch.status().message();
}

TEST(Engine, DescribeListsEveryStepAndTheArena) {
    Model model(small_cnn(test::test_seed()));
    auto engine = Engine::build(model, {.batch = 2, .optimize = false}).value();
    std::string d = engine.describe();
    EXPECT_NE(d.find("Conv"), std::string::npos) << d;
    EXPECT_NE(d.find("[2,7]"), std::string::npos) << d;
    EXPECT_NE(d.find("memory: arena"), std::string::npos) << d;
}

TEST(Engine, RefusesMissingGpusAndReducedPrecisionOnTheCpuClearly) {
    Model model(small_cnn(test::test_seed()));
    // A GPU that is not there: no CUDA in this build, or no such device on this machine.
    auto cuda = Engine::build(model, {.device = Device::cuda(7)});
    ASSERT_FALSE(cuda.ok());
    const std::string m = cuda.status().message();
    EXPECT_TRUE(m.find("CUDA device 7 does not exist") != std::string::npos ||
                m.find("built without CUDA") != std::string::npos)
        << m;
    auto fp16 = Engine::build(model, {.precision = Precision::fp16});
    EXPECT_EQ(fp16.status().code(), StatusCode::unsupported);
    EXPECT_NE(fp16.status().message().find("fp16"), std::string::npos) << fp16.status().message();
    EXPECT_EQ(Engine::build(model, {.batch = -2}).status().code(), StatusCode::invalid_argument);
}

}  // namespace
}  // namespace strata
