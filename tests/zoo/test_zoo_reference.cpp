// test_zoo_reference.cpp: each built-in network runs end to end on the reference backend at batch 1 and gives
// finite, varied logits: the weight scaling keeps activations in range through every layer.
#include <gtest/gtest.h>

#include <cmath>

#include "backends/reference/reference.h"
#include "test_support.h"
#include "zoo/zoo.h"

namespace strata::zoo {
namespace {

class ZooReference : public ::testing::TestWithParam<const char*> {};

TEST_P(ZooReference, LogitsAreFiniteAndVaried) {
    auto g = build(GetParam());
    uint64_t seed = test::test_seed();
    Tensor image = test::random_tensor(DType::f32, {1, 3, 224, 224}, seed);
    auto out = backends::run_reference(*g, {{"input", image}});
    ASSERT_EQ(out.count("logits"), 1u);
    const Tensor& logits = out.at("logits");
    ASSERT_EQ(logits.shape(), (Shape{1, 1000}));
    const float* p = logits.data<float>();
    float lo = p[0], hi = p[0];
    for (int64_t i = 0; i < logits.numel(); ++i) {
        ASSERT_TRUE(std::isfinite(p[i])) << "logit " << i << " seed " << seed;
        lo = std::min(lo, p[i]);
        hi = std::max(hi, p[i]);
    }
    EXPECT_GT(hi - lo, 1e-3f * std::max(1.0f, std::abs(hi))) << "logits all (nearly) equal, seed " << seed;
}

INSTANTIATE_TEST_SUITE_P(Zoo, ZooReference, ::testing::Values("squeezenet1_1", "mobilenet_v2", "resnet50"),
                         [](const auto& info) { return std::string(info.param); });

}  // namespace
}  // namespace strata::zoo
