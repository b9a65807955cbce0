// test_conformance.cpp: the ONNX operator conformance cases (shared/conformance, README there) on the reference
// backend. Each case either passes (rtol 1e-3, atol 1e-7, the ONNX runner's defaults) or ends in a clean
// strata::Error with code `unsupported`: never a crash or a wrong answer. kSupported lists the cases that must pass,
// so a regression fails here; a case outside the list that starts passing fails too, until it is added.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include "backends/reference/reference.h"
#include "frontend/onnx/onnx_import.h"
#include "test_support.h"

namespace strata::test {
namespace {

namespace fs = std::filesystem;

// Cases the reference backend passes (folder names under pytorch-converted/ and pytorch-operator/).
const std::set<std::string> kSupported = {
    "test_AvgPool1d",
    "test_AvgPool1d_stride",
    "test_AvgPool2d",
    "test_AvgPool2d_stride",
    "test_BatchNorm1d_3d_input_eval",
    "test_BatchNorm2d_eval",
    "test_BatchNorm2d_momentum_eval",
    "test_BatchNorm3d_eval",
    "test_BatchNorm3d_momentum_eval",
    "test_ConstantPad2d",
    "test_Conv1d",
    "test_Conv1d_dilated",
    "test_Conv1d_groups",
    "test_Conv1d_pad1",
    "test_Conv1d_pad1size1",
    "test_Conv1d_pad2",
    "test_Conv1d_pad2size1",
    "test_Conv1d_stride",
    "test_Conv2d",
    "test_Conv2d_depthwise",
    "test_Conv2d_depthwise_padded",
    "test_Conv2d_depthwise_strided",
    "test_Conv2d_depthwise_with_multiplier",
    "test_Conv2d_dilated",
    "test_Conv2d_groups",
    "test_Conv2d_groups_thnn",
    "test_Conv2d_no_bias",
    "test_Conv2d_padding",
    "test_Conv2d_strided",
    "test_ConvTranspose2d",
    "test_ConvTranspose2d_no_bias",
    "test_ELU",
    "test_Embedding",
    "test_Embedding_sparse",
    "test_GLU",
    "test_GLU_dim",
    "test_LeakyReLU",
    "test_LeakyReLU_with_negval",
    "test_Linear",
    "test_Linear_no_bias",
    "test_LogSoftmax",
    "test_MaxPool1d",
    "test_MaxPool1d_stride",
    "test_MaxPool1d_stride_padding_dilation",
    "test_MaxPool2d",
    "test_MaxPool2d_stride_padding_dilation",
    "test_PReLU_1d",
    "test_PReLU_1d_multiparam",
    "test_PReLU_2d",
    "test_PReLU_2d_multiparam",
    "test_PReLU_3d",
    "test_PReLU_3d_multiparam",
    "test_PixelShuffle",
    "test_PoissonNLLLLoss_no_reduce",
    "test_ReLU",
    "test_ReflectionPad2d",
    "test_ReplicationPad2d",
    "test_SELU",
    "test_Sigmoid",
    "test_Softmax",
    "test_Softmin",
    "test_Softplus",
    "test_Softsign",
    "test_Tanh",
    "test_ZeroPad2d",
    "test_log_softmax_dim3",
    "test_log_softmax_lastdim",
    "test_softmax_functional_dim3",
    "test_softmax_lastdim",
    "test_operator_addmm",
    "test_operator_basic",
    "test_operator_chunk",
    "test_operator_clip",
    "test_operator_concat2",
    "test_operator_conv",
    "test_operator_convtranspose",
    "test_operator_exp",
    "test_operator_flatten",
    "test_operator_index",
    "test_operator_max",
    "test_operator_maxpool",
    "test_operator_min",
    "test_operator_mm",
    "test_operator_non_float_params",
    "test_operator_pad",
    "test_operator_params",
    "test_operator_permute2",
    "test_operator_pow",
    "test_operator_reduced_mean",
    "test_operator_reduced_mean_keepdim",
    "test_operator_reduced_sum",
    "test_operator_reduced_sum_keepdim",
    "test_operator_repeat",
    "test_operator_repeat_dim_overflow",
    "test_operator_selu",
    "test_operator_sqrt",
    "test_operator_symbolic_override",
    "test_operator_symbolic_override_nested",
    "test_operator_view",
};

std::vector<std::string> case_names() {
    std::vector<std::string> names;
    for (const char* group : {"pytorch-converted", "pytorch-operator"}) {
        auto dir = shared_path(std::string("conformance/") + group);
        if (!dir) continue;
        for (const auto& entry : fs::directory_iterator(*dir))
            if (fs::exists(entry.path() / "model.onnx")) names.push_back(std::string(group) + "/" + entry.path().filename().string());
    }
    std::sort(names.begin(), names.end());
    return names;
}

// Outcome of one case: empty when it passed, else why not.
struct Outcome {
    bool passed = false;
    bool unsupported = false;
    std::string detail;
};

Outcome run_case(const std::string& dir) {
    Outcome r;
    try {
        auto graph = frontend::import_onnx_file(dir + "/model.onnx");
        std::map<std::string, Tensor> inputs;
        for (size_t i = 0; i < graph->inputs().size(); ++i)
            inputs[graph->value(graph->inputs()[i]).name] =
                frontend::read_tensor_proto_file(dir + "/test_data_set_0/input_" + std::to_string(i) + ".pb");
        auto outputs = backends::run_reference(*graph, inputs);
        for (size_t i = 0; i < graph->outputs().size(); ++i) {
            Tensor want = frontend::read_tensor_proto_file(dir + "/test_data_set_0/output_" + std::to_string(i) + ".pb");
            const Tensor& got = outputs.at(graph->value(graph->outputs()[i]).name);
            int64_t bad = count_mismatches(got, want, 1e-3, 1e-7);
            if (bad) {
                r.detail = "output " + std::to_string(i) + ": " + std::to_string(bad) + " mismatches";
                return r;
            }
        }
        r.passed = true;
    } catch (const Error& e) {
        r.unsupported = e.code() == StatusCode::unsupported;
        r.detail = e.what();
    }
    return r;
}

TEST(ReferenceConformance, EveryCasePassesOrIsCleanlyUnsupported) {
    STRATA_REQUIRE_SHARED_PATH(root, "conformance");
    std::vector<std::string> names = case_names();
    ASSERT_FALSE(names.empty()) << root;
    int passed = 0;
    for (const std::string& name : names) {
        std::string short_name = name.substr(name.find('/') + 1);
        Outcome r = run_case(root + "/" + name);
        bool listed = kSupported.count(short_name) > 0;
        if (listed) {
            EXPECT_TRUE(r.passed) << name << ": " << r.detail;
        } else {
            EXPECT_FALSE(r.passed) << name << " now passes: add it to kSupported";
            EXPECT_TRUE(r.passed || r.unsupported) << name << " failed without a clean unsupported error: " << r.detail;
        }
        passed += r.passed;
        if (!r.passed) std::printf("not passing: %s: %s\n", name.c_str(), r.detail.c_str());
    }
    std::printf("%d of %zu conformance cases pass on the reference backend\n", passed, names.size());
}

}  // namespace
}  // namespace strata::test
