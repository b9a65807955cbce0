// test_models.cpp: the five real ONNX CNNs in shared/models on the reference backend, at batch 2, against PyTorch's
// fp32 logits (shared/models/README.md: a correct fp32 engine meets max |error| / max |logit| <= 1e-4).
#include <gtest/gtest.h>

#include <string>

#include "backends/reference/reference.h"
#include "frontend/onnx/onnx_import.h"
#include "test_support.h"

namespace strata::test {
namespace {

class ReferenceModel : public ::testing::TestWithParam<std::string> {};

TEST_P(ReferenceModel, MatchesPyTorchLogits) {
    const std::string name = GetParam();
    STRATA_REQUIRE_SHARED_PATH(model, "models/" + name + ".onnx");
    auto graph = frontend::import_onnx_file(model);
    Tensor input = Tensor::from_npy(shared_dir() + "/models/" + name + ".input.npy").value();
    Tensor want = Tensor::from_npy(shared_dir() + "/models/" + name + ".logits.npy").value();
    auto out = backends::run_reference(*graph, {{"input", input}});
    ASSERT_EQ(out.count("logits"), 1u);
    double err = max_rel_error(out.at("logits"), want);
    std::printf("%s: max |error| / max |logit| = %.3g\n", name.c_str(), err);
    EXPECT_LE(err, 1e-4);
}

INSTANTIATE_TEST_SUITE_P(Models, ReferenceModel,
                         ::testing::Values("squeezenet1_1", "mobilenet_v2", "shufflenet_v2_x1_0", "efficientnet_b0",
                                           "googlenet"));

}  // namespace
}  // namespace strata::test
