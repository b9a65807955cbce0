// test_models_cli.cpp: acceptance of the foundation: `strata run MODEL.onnx --input MODEL.input.npy --device cpu`
// reproduces PyTorch's logits for every model in ../shared/models (max |got - want| / max |want| <= 1e-4).
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <string>

#include "core/npy.h"
#include "test_support.h"

namespace strata {
namespace {

class ModelsCli : public ::testing::TestWithParam<std::string> {};

TEST_P(ModelsCli, RunMatchesPyTorchLogits) {
    const std::string name = GetParam();
    STRATA_REQUIRE_SHARED_PATH(model, "models/" + name + ".onnx");
    STRATA_REQUIRE_SHARED_PATH(input, "models/" + name + ".input.npy");
    STRATA_REQUIRE_SHARED_PATH(logits, "models/" + name + ".logits.npy");
    auto out = std::filesystem::temp_directory_path() / ("strata_e2e_" + name + "_" + std::to_string(::getpid()) + ".npy");
    auto r = test::run_command(test::cli_path() + " run " + model + " --input " + input + " --device cpu --output " +
                               out.string());
    ASSERT_EQ(r.exit_code, 0) << r.output;
    Tensor got = read_npy(out.string());
    std::filesystem::remove(out);
    Tensor want = read_npy(logits);
    double err = test::max_rel_error(got, want);
    std::cout << name << ": max |got - want| / max |want| = " << err << "\n";
    EXPECT_LE(err, 1e-4);
}

INSTANTIATE_TEST_SUITE_P(SharedModels, ModelsCli,
                         ::testing::Values("squeezenet1_1", "mobilenet_v2", "shufflenet_v2_x1_0", "efficientnet_b0",
                                           "googlenet"));

}  // namespace
}  // namespace strata
