// test_models_gpu.cpp: end to end on the GPU. Each real ONNX CNN of shared/models is built for CUDA at batch 2 in
// fp32 (TF32 off), fp16 and bf16, run on NAME.input.npy and compared with PyTorch's NAME.logits.npy (models/
// README.md: fp32 max |got - want| / max |want| <= 1e-4; fp16/bf16 <= 2e-2 and the same top-1 class per row).
// Beside the five shared models, any torchvision model exported there by export.py (resnet18, resnet50, ...) is
// checked too when present (issue 3, acceptance 1), and the *_rescaled variants of scripts/export_rescaled.py: the
// shared depthwise networks' default init leaves logits of 1e-9 to 1e-14, below fp16's range (those fp16 cases skip,
// saying so: kFp16RepresentableLogits).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>

#include "gpu_support.h"
#include "strata/engine.h"
#include "test_support.h"

namespace strata {
namespace {

struct Case {
    std::string model;
    Precision precision;
};

std::string case_name(const ::testing::TestParamInfo<Case>& info) {
    return info.param.model + "_" + precision_name(info.param.precision);
}

double max_abs(const Tensor& t) {
    const float* p = static_cast<const float*>(t.raw());
    double m = 0;
    for (int64_t i = 0; i < t.numel(); ++i) m = std::max(m, static_cast<double>(std::fabs(p[i])));
    return m;
}

// fp16 stores any value below its smallest subnormal, 2^-24, with an error of up to 2^-25; logits whose largest
// magnitude is under 2^-25 / 2e-2 (1.5e-6) cannot be written to within the tolerance by any fp16 engine (PyTorch's
// own fp16 returns zeros there: scripts/export_rescaled.py prints it), so such a case says nothing about strata.
constexpr double kFp16RepresentableLogits = 0x1p-25 / 2e-2;

// What a low-precision case is held to: 2e-2 and the reference's top-1 on every row (models/README.md). Our own
// *_rescaled stand-ins carry PyTorch's fp16/bf16 logits of the same file (scripts/export_rescaled.py); where PyTorch
// itself misses 2e-2 there (mobilenet_v3_large_rescaled in bf16: 0.0902 on 2026-12-01), the bound is PyTorch's own
// error, and a row whose top-1 PyTorch flips is a near-tie that no bf16 engine owes. The listed models keep 2e-2.
struct LowPrecisionBar {
    double bound = 2e-2;
    double peer_error = -1;         ///< PyTorch's error in this precision, -1 where its logits are absent
    std::vector<bool> check_top1;   ///< per row
};

LowPrecisionBar low_precision_bar(const Case& c, const Tensor& want) {
    LowPrecisionBar bar;
    bar.check_top1.assign(static_cast<size_t>(want.shape()[0]), true);
    const std::string peer_path =
        test::shared_dir() + "/models/" + c.model + ".pytorch_" + precision_name(c.precision) + ".npy";
    if (c.model.find("_rescaled") == std::string::npos || !std::filesystem::exists(peer_path)) return bar;
    auto peer = Tensor::from_npy(peer_path);
    if (!peer.ok() || peer->shape() != want.shape()) return bar;
    bar.peer_error = test::max_rel_error(*peer, want);
    bar.bound = std::max(bar.bound, bar.peer_error);
    for (int64_t row = 0; row < want.shape()[0]; ++row)
        bar.check_top1[static_cast<size_t>(row)] = test::argmax_row(*peer, row) == test::argmax_row(want, row);
    return bar;
}

class GpuModels : public ::testing::TestWithParam<Case> {};

TEST_P(GpuModels, MatchesPyTorchLogitsAtBatch2) {
    STRATA_REQUIRE_GPU();
    const Case c = GetParam();
    const bool extra = c.model.rfind("resnet", 0) == 0 || c.model.find("_v3_") != std::string::npos ||
                       c.model.rfind("regnet", 0) == 0 || c.model.rfind("mnasnet", 0) == 0 ||
                       c.model.rfind("densenet", 0) == 0 || c.model.find("_rescaled") != std::string::npos;
    if (extra && !std::filesystem::exists(test::shared_dir() + "/models/" + c.model + ".onnx"))
        GTEST_SKIP() << c.model << " was not exported (export.py " << c.model << ")";
    STRATA_REQUIRE_SHARED_PATH(onnx, "models/" + c.model + ".onnx");
    STRATA_REQUIRE_SHARED_PATH(input_path, "models/" + c.model + ".input.npy");
    STRATA_REQUIRE_SHARED_PATH(logits_path, "models/" + c.model + ".logits.npy");
    auto want = Tensor::from_npy(logits_path);
    ASSERT_TRUE(want.ok());
    if (c.precision == Precision::fp16 && max_abs(*want) < kFp16RepresentableLogits)
        GTEST_SKIP() << c.model << ": max |logit| " << max_abs(*want) << " is below what fp16 can hold to 2e-2 ("
                     << kFp16RepresentableLogits << "); " << c.model << "_rescaled checks this architecture in fp16";
    auto model = Model::from_onnx(onnx);
    ASSERT_TRUE(model.ok()) << model.status().message();
    BuildOptions options;
    options.device = Device::cuda();
    options.precision = c.precision;
    options.batch = 2;
    auto engine = Engine::build(*model, options);
    ASSERT_TRUE(engine.ok()) << engine.status().message();
    auto input = Tensor::from_npy(input_path);
    ASSERT_TRUE(input.ok());
    auto ctx = engine->make_context();
    ASSERT_TRUE(ctx.ok()) << ctx.status().message();
    const std::string in_name = model->inputs()[0].name, out_name = model->outputs()[0].name;
    auto out = ctx->run({{in_name, *input}});
    ASSERT_TRUE(out.ok()) << out.status().message();
    const Tensor& got = out->at(out_name);
    ASSERT_EQ(got.shape(), want->shape());
    double err = test::max_rel_error(got, *want);
    if (c.precision == Precision::fp32) {
        EXPECT_LE(err, 1e-4) << engine->describe();
    } else {
        const LowPrecisionBar bar = low_precision_bar(c, *want);
        EXPECT_LE(err, bar.bound) << engine->describe();
        for (int64_t row = 0; row < got.shape()[0]; ++row) {
            if (bar.check_top1[static_cast<size_t>(row)])
                EXPECT_EQ(test::argmax_row(got, row), test::argmax_row(*want, row)) << "top-1 of row " << row;
            else
                std::printf("[ model ] %s: PyTorch's own top-1 of row %lld differs, not checked\n", c.model.c_str(),
                            static_cast<long long>(row));
        }
        if (bar.peer_error >= 0)
            std::printf("[ model ] %s %s: PyTorch's own error %.3g, bound %.3g\n", c.model.c_str(),
                        precision_name(c.precision), bar.peer_error, bar.bound);
    }
    std::printf("[ model ] %s %s: max|got-want|/max|want| = %.3g\n", c.model.c_str(), precision_name(c.precision), err);
    // A second run replays the captured CUDA graph: it must give the same bits.
    auto again = ctx->run({{in_name, *input}});
    ASSERT_TRUE(again.ok()) << again.status().message();
    EXPECT_EQ(test::max_rel_error(again->at(out_name), got), 0.0) << "graph replay differs from the first run";
}

std::vector<Case> all_cases() {
    std::vector<Case> cases;
    for (const char* m : {"squeezenet1_1", "mobilenet_v2", "shufflenet_v2_x1_0", "efficientnet_b0", "googlenet",
                          "resnet18", "resnet50", "mobilenet_v3_large", "regnet_y_400mf", "mnasnet1_0", "densenet121",
                          // scripts/export_rescaled.py: activations that fp16 can represent (see there)
                          "mobilenet_v2_rescaled", "efficientnet_b0_rescaled", "mobilenet_v3_large_rescaled",
                          "mnasnet1_0_rescaled", "googlenet_rescaled", "shufflenet_v2_x1_0_rescaled"})
        for (Precision p : {Precision::fp32, Precision::fp16, Precision::bf16}) cases.push_back({m, p});
    return cases;
}

INSTANTIATE_TEST_SUITE_P(Shared, GpuModels, ::testing::ValuesIn(all_cases()), case_name);

}  // namespace
}  // namespace strata
