// test_shape_inference_onnx.cpp: shape inference on real ONNX graphs. Every operator conformance case the frontend
// imports must infer the shapes and dtypes of the expected outputs; the shared CNNs infer [-1,1000] logits with the
// dynamic batch, except where a parameter is computed from the batch (ShuffleNet's Reshape), which is refused.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>

#include "frontend/onnx/onnx_import.h"
#include "ir/shape_inference.h"
#include "ir/verify.h"
#include "test_support.h"

namespace strata::ir {
namespace {

namespace fs = std::filesystem;

// Imports one case; nullptr when the frontend refuses it as unsupported (3-D convolution, float64, ...).
std::shared_ptr<Graph> import_or_null(const fs::path& model) {
    try {
        return frontend::import_onnx_file(model.string());
    } catch (const Error& e) {
        if (e.code() == StatusCode::unsupported) return nullptr;
        throw;
    }
}

// Sets each graph input's shape from its input_N.pb (the cases declare them, but the data is what runs).
void bind_case_inputs(Graph& g, const fs::path& data) {
    for (size_t i = 0; i < g.inputs().size(); ++i) {
        Tensor t = frontend::read_tensor_proto_file((data / ("input_" + std::to_string(i) + ".pb")).string());
        g.value(g.inputs()[i]).shape = t.shape();
    }
}

TEST(ShapeInferenceOnnx, ConformanceCasesInferTheExpectedOutputs) {
    STRATA_REQUIRE_SHARED_PATH(root, "conformance");
    std::vector<fs::path> cases;
    for (const char* suite : {"pytorch-converted", "pytorch-operator"})
        for (const auto& e : fs::directory_iterator(fs::path(root) / suite)) cases.push_back(e.path());
    std::sort(cases.begin(), cases.end());
    size_t inferred = 0;
    for (const fs::path& c : cases) {
        SCOPED_TRACE(c.filename().string());
        auto g = import_or_null(c / "model.onnx");
        if (!g) continue;
        verify(*g);
        bind_case_inputs(*g, c / "test_data_set_0");
        infer_shapes(*g);
        for (size_t i = 0; i < g->outputs().size(); ++i) {
            Tensor want = frontend::read_tensor_proto_file(
                (c / "test_data_set_0" / ("output_" + std::to_string(i) + ".pb")).string());
            const Value& got = g->value(g->outputs()[i]);
            EXPECT_EQ(shape_str(got.shape), shape_str(want.shape())) << "output " << i;
            EXPECT_EQ(got.dtype, want.dtype()) << "output " << i;
        }
        ++inferred;
    }
    EXPECT_GE(inferred, 99u) << "fewer conformance cases imported than when this test was written";
}

class ShapeInferenceOnnxModel : public ::testing::TestWithParam<const char*> {};

TEST_P(ShapeInferenceOnnxModel, DynamicBatchLogits) {
    STRATA_REQUIRE_SHARED_PATH(path, std::string("models/") + GetParam() + ".onnx");
    auto g = frontend::import_onnx_file(path);
    verify(*g);
    infer_shapes(*g);
    EXPECT_EQ(g->value(g->outputs()[0]).shape, (Shape{-1, 1000}));
    g->value(g->inputs()[0]).shape[0] = 5;
    infer_shapes(*g);
    EXPECT_EQ(g->value(g->outputs()[0]).shape, (Shape{5, 1000}));
}

INSTANTIATE_TEST_SUITE_P(SharedModels, ShapeInferenceOnnxModel,
                         ::testing::Values("squeezenet1_1", "mobilenet_v2", "efficientnet_b0", "googlenet"),
                         [](const auto& info) { return std::string(info.param); });

// ShuffleNet's channel shuffle reshapes by a shape computed from the input (Shape -> Gather -> Concat): with the
// batch still dynamic that parameter is not a constant, and inference says so instead of guessing.
TEST(ShapeInferenceOnnx, ShuffleNetComputedReshapeIsUnsupportedUntilFolded) {
    STRATA_REQUIRE_SHARED_PATH(path, "models/shufflenet_v2_x1_0.onnx");
    auto g = frontend::import_onnx_file(path);
    verify(*g);
    try {
        infer_shapes(*g);
        FAIL() << "expected unsupported";
    } catch (const Error& e) {
        EXPECT_EQ(e.code(), StatusCode::unsupported);
        EXPECT_NE(std::string(e.what()).find("dynamic shape of Reshape"), std::string::npos) << e.what();
    }
}

}  // namespace
}  // namespace strata::ir
