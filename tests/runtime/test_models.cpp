// test_models.cpp: end to end on the real ONNX CNNs in shared/models: import, build for the CPU at batch 2, run on
// NAME.input.npy, compare with PyTorch's NAME.logits.npy (max |got - want| / max |want| <= 1e-4, models/README.md).
#include <gtest/gtest.h>

#include "strata/engine.h"
#include "test_support.h"

namespace strata {
namespace {

class Models : public ::testing::TestWithParam<std::string> {};

TEST_P(Models, MatchesPyTorchLogitsAtBatch2) {
    const std::string name = GetParam();
    STRATA_REQUIRE_SHARED_PATH(onnx, "models/" + name + ".onnx");
    STRATA_REQUIRE_SHARED_PATH(input_path, "models/" + name + ".input.npy");
    STRATA_REQUIRE_SHARED_PATH(logits_path, "models/" + name + ".logits.npy");
    auto model = Model::from_onnx(onnx);
    ASSERT_TRUE(model.ok()) << model.status().message();
    ASSERT_EQ(model->inputs().size(), 1u);
    EXPECT_EQ(model->inputs()[0].shape, (Shape{-1, 3, 224, 224}));
    auto engine = Engine::build(*model, {.device = Device::cpu(), .batch = 2});
    ASSERT_TRUE(engine.ok()) << engine.status().message();
    auto input = Tensor::from_npy(input_path);
    auto want = Tensor::from_npy(logits_path);
    ASSERT_TRUE(input.ok() && want.ok()) << input.status().message() << want.status().message();
    auto ctx = engine->make_context();
    ASSERT_TRUE(ctx.ok()) << ctx.status().message();
    auto out = ctx->run({{"input", *input}});
    ASSERT_TRUE(out.ok()) << out.status().message();
    ASSERT_TRUE(out->count("logits"));
    const Tensor& got = out->at("logits");
    ASSERT_EQ(got.shape(), (Shape{2, 1000}));
    EXPECT_LE(test::max_rel_error(got, *want), 1e-4) << engine->describe();
}

INSTANTIATE_TEST_SUITE_P(Shared, Models,
                         ::testing::Values("squeezenet1_1", "mobilenet_v2", "shufflenet_v2_x1_0", "efficientnet_b0",
                                           "googlenet"));

}  // namespace
}  // namespace strata
