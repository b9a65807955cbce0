// test_onnx_models.cpp: imports the five real CNNs in shared/models and checks the IR they become: the dynamic
// batch input, the output, the op counts, and that constant parameters (weights, Clip bounds, Unsqueeze axes) were
// absorbed where the exporter made them constants.
#include <map>

#include "ir/graph.h"
#include "onnx_test_model.h"

namespace strata::test {
namespace {

using ir::OpKind;

struct ModelCase {
    const char* name;
    std::map<OpKind, size_t> ops;  // every IR op kind in the imported graph and its count
};

void PrintTo(const ModelCase& c, std::ostream* os) {
    *os << c.name;
}

class OnnxModelImport : public ::testing::TestWithParam<ModelCase> {};

TEST_P(OnnxModelImport, InputsOutputsAndOpCounts) {
    const ModelCase& c = GetParam();
    STRATA_REQUIRE_SHARED_PATH(path, std::string("models/") + c.name + ".onnx");
    auto g = frontend::import_onnx_file(path);

    ASSERT_EQ(g->inputs().size(), 1u);
    const ir::Value& in = g->value(g->inputs()[0]);
    EXPECT_EQ(in.name, "input");
    EXPECT_EQ(in.dtype, DType::f32);
    EXPECT_TRUE(in.has_shape);
    EXPECT_EQ(in.shape, (Shape{-1, 3, 224, 224}));
    ASSERT_EQ(g->outputs().size(), 1u);
    EXPECT_EQ(g->value(g->outputs()[0]).name, "logits");
    EXPECT_TRUE(g->producer(g->outputs()[0]).has_value());

    std::map<OpKind, size_t> got;
    for (const ir::Node& n : g->nodes()) ++got[n.op];
    EXPECT_EQ(got, c.ops);

    for (const ir::Node& n : g->nodes()) {
        if (n.op != OpKind::Conv) continue;
        EXPECT_TRUE(g->is_constant(n.input(1))) << ir::node_label(n) << ": weight should be a constant";
        EXPECT_EQ(n.attr<ir::ConvAttrs>().kernel.size(), 2u) << ir::node_label(n);
    }
}

INSTANTIATE_TEST_SUITE_P(SharedModels, OnnxModelImport,
                         ::testing::Values(ModelCase{"squeezenet1_1",
                                                     {{OpKind::Concat, 8},
                                                      {OpKind::Conv, 26},
                                                      {OpKind::Flatten, 1},
                                                      {OpKind::GlobalAveragePool, 1},
                                                      {OpKind::MaxPool, 3},
                                                      {OpKind::Unary, 26}}},
                                           ModelCase{"mobilenet_v2",
                                                     {{OpKind::Binary, 10},
                                                      {OpKind::Conv, 52},
                                                      {OpKind::Flatten, 1},
                                                      {OpKind::Gemm, 1},
                                                      {OpKind::GlobalAveragePool, 1},
                                                      {OpKind::Unary, 35}}},
                                           ModelCase{"shufflenet_v2_x1_0",
                                                     {{OpKind::Binary, 68},
                                                      {OpKind::Cast, 32},
                                                      {OpKind::Concat, 48},
                                                      {OpKind::Conv, 56},
                                                      {OpKind::Gather, 77},
                                                      {OpKind::Gemm, 1},
                                                      {OpKind::MaxPool, 1},
                                                      {OpKind::Reduce, 1},
                                                      {OpKind::Reshape, 32},
                                                      {OpKind::Shape, 77},
                                                      {OpKind::Slice, 26},
                                                      {OpKind::Transpose, 16},
                                                      {OpKind::Unary, 37},
                                                      {OpKind::Unsqueeze, 128}}},
                                           ModelCase{"efficientnet_b0",
                                                     {{OpKind::Binary, 74},
                                                      {OpKind::Conv, 81},
                                                      {OpKind::Flatten, 1},
                                                      {OpKind::Gemm, 1},
                                                      {OpKind::GlobalAveragePool, 17},
                                                      {OpKind::Unary, 65}}},
                                           ModelCase{"googlenet",
                                                     {{OpKind::Concat, 9},
                                                      {OpKind::Conv, 57},
                                                      {OpKind::Flatten, 1},
                                                      {OpKind::Gemm, 1},
                                                      {OpKind::GlobalAveragePool, 1},
                                                      {OpKind::MaxPool, 13},
                                                      {OpKind::Unary, 57}}}),
                         [](const ::testing::TestParamInfo<ModelCase>& info) { return std::string(info.param.name); });

// MobileNetV2's ReLU6 is Clip(x, Constant 0, Constant 6): the bounds become attrs and the inputs go away.
TEST(OnnxModelImport, MobileNetClipBoundsAbsorbed) {
    STRATA_REQUIRE_SHARED_PATH(path, "models/mobilenet_v2.onnx");
    auto g = frontend::import_onnx_file(path);
    size_t clips = 0;
    for (const ir::Node& n : g->nodes()) {
        if (n.op != OpKind::Unary || n.attr<ir::UnaryAttrs>().kind != ir::UnaryKind::Clip) continue;
        ++clips;
        EXPECT_EQ(n.inputs.size(), 1u) << ir::node_label(n);
        EXPECT_EQ(n.attr<ir::UnaryAttrs>().alpha, 0.0f);
        EXPECT_EQ(n.attr<ir::UnaryAttrs>().beta, 6.0f);
    }
    EXPECT_EQ(clips, 35u);
}

// ShuffleNet's channel shuffle computes Reshape's shape from Shape/Gather/Unsqueeze/Concat: the Unsqueeze axes are
// constants (absorbed), the Reshape shape is computed (kept as an input until the batch is fixed and folded).
TEST(OnnxModelImport, ShuffleNetParametersAbsorbedOrKept) {
    STRATA_REQUIRE_SHARED_PATH(path, "models/shufflenet_v2_x1_0.onnx");
    auto g = frontend::import_onnx_file(path);
    for (const ir::Node& n : g->nodes()) {
        if (n.op == OpKind::Unsqueeze) {
            EXPECT_EQ(n.inputs.size(), 1u) << ir::node_label(n);
            EXPECT_TRUE(n.attr<ir::AxesAttrs>().axes.has_value()) << ir::node_label(n);
        }
        if (n.op == OpKind::Reshape) {
            ASSERT_EQ(n.inputs.size(), 2u) << ir::node_label(n);
            EXPECT_FALSE(g->is_constant(n.inputs[1]));
            EXPECT_FALSE(n.attr<ir::ReshapeAttrs>().shape.has_value());
        }
        if (n.op == OpKind::Shape) {
            EXPECT_EQ(g->value(n.outputs[0]).dtype, DType::i64);
        }
    }
}

}  // namespace
}  // namespace strata::test
