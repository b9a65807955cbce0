// test_pipeline.cpp: set_batch, run_pipeline with the default passes on a small network, and on a real exported
// model (shufflenet_v2_x1_0, whose channel shuffles are Shape -> Gather -> Concat -> Reshape chains).
#include <algorithm>
#include <limits>

#include "frontend/onnx/onnx_import.h"
#include "pass_test_util.h"

namespace strata::passes::test {
namespace {

using ir::BinaryKind;
using ir::OpKind;
using ir::UnaryKind;
using strata::test::random_tensor;

TEST(SetBatch, FixesADynamicBatch) {
    ir::Builder b("g");
    ir::ValueId x = b.input("x", DType::f32, {-1, 3, 5});
    ir::ValueId s = b.input("s", DType::f32, {});
    b.output(b.add(x, s), "y");
    auto g = b.finish();
    set_batch(*g, 4);
    EXPECT_EQ(g->value(x).shape, (Shape{4, 3, 5}));
    EXPECT_TRUE(g->value(s).shape.empty());
    set_batch(*g, 4);  // a static batch that matches is fine
}

TEST(SetBatch, RefusesADifferentStaticBatch) {
    ir::Builder b("g");
    ir::ValueId x = b.input("images", DType::f32, {2, 3, 5});
    b.output(b.relu(x), "y");
    auto g = b.finish();
    try {
        set_batch(*g, 8);
        FAIL() << "set_batch accepted batch 8 for an input of batch 2";
    } catch (const Error& e) {
        std::string msg = e.what();
        EXPECT_EQ(e.code(), StatusCode::invalid_argument);
        EXPECT_NE(msg.find("images"), std::string::npos) << msg;
        EXPECT_NE(msg.find("[2,3,5]"), std::string::npos) << msg;
        EXPECT_NE(msg.find("8"), std::string::npos) << msg;
    }
    EXPECT_THROW(set_batch(*g, 0), Error);
}

// conv -> identity -> bn -> clip(0,6) -> conv -> x*sigmoid(x) -> global pool -> flatten -> gemm -> clip(0, inf)
std::shared_ptr<ir::Graph> small_network() {
    ir::Builder b("small");
    ir::ValueId x = b.input("x", DType::f32, {-1, 3, 13, 11});
    ir::ValueId c = b.conv(x, random_tensor(DType::f32, {6, 3, 3, 3}, seed(1)), random_tensor(DType::f32, {6}, seed(2)),
                           ir::conv2d_attrs(3, 2, 1));
    ir::ValueId i = b.op(OpKind::Identity, {c});
    ir::ValueId bn = b.batch_norm(i, random_tensor(DType::f32, {6}, seed(3), 0.5, 1.5),
                                  random_tensor(DType::f32, {6}, seed(4)), random_tensor(DType::f32, {6}, seed(5)),
                                  random_tensor(DType::f32, {6}, seed(6), 0.2, 2.0));
    ir::ValueId r6 = b.unary(UnaryKind::Clip, bn, 0.0f, 6.0f);
    ir::ValueId c2 = b.conv(r6, random_tensor(DType::f32, {6, 1, 3, 3}, seed(7)), std::nullopt,
                            ir::conv2d_attrs(3, 1, 1, 6));
    ir::ValueId si = b.binary(BinaryKind::Mul, b.unary(UnaryKind::Sigmoid, c2), c2);
    ir::ValueId f = b.flatten(b.global_avg_pool(si));
    ir::ValueId fc = b.linear(f, random_tensor(DType::f32, {5, 6}, seed(8)), random_tensor(DType::f32, {5}, seed(9)));
    b.output(b.unary(UnaryKind::Clip, fc, 0.0f, std::numeric_limits<float>::infinity()), "y");
    return b.finish();
}

TEST(DefaultPipeline, SmallNetworkFusesAndMatches) {
    auto g = small_network();
    ir::Graph before = *g;
    set_batch(*g, 3);
    run_pipeline(*g, default_pipeline());

    for (OpKind gone : {OpKind::Identity, OpKind::BatchNorm, OpKind::Gemm, OpKind::Binary})
        EXPECT_EQ(count_op(*g, gone), 0) << ir::op_name(gone);
    EXPECT_EQ(count_op(*g, OpKind::Unary), 0);  // all three activations fused
    ASSERT_EQ(count_op(*g, OpKind::Conv), 2);
    EXPECT_EQ(g->nodes()[0].attr<ir::ConvAttrs>().activation->kind, UnaryKind::Relu6);
    EXPECT_EQ(g->nodes()[1].attr<ir::ConvAttrs>().activation->kind, UnaryKind::SiLU);
    ASSERT_EQ(g->nodes().back().op, OpKind::FullyConnected);
    EXPECT_EQ(g->nodes().back().attr<ir::FullyConnectedAttrs>().activation->kind, UnaryKind::Relu);
    expect_same_results(before, *g, random_inputs(before, seed(10), -1.0, 1.0, 3));
}

TEST(DefaultPipeline, EveryPassIsFoundByName) {
    for (const Pass& p : default_pipeline()) {
        ASSERT_NE(find_pass(p.name), nullptr) << p.name;
        EXPECT_EQ(find_pass(p.name)->run, p.run);
    }
    EXPECT_EQ(find_pass("no_such_pass"), nullptr);
}

// A pass that breaks the graph (a node reading a value nothing defines) must be caught by run_pipeline's verify and
// reported as a bug naming the pass, not left for a kernel to trip over.
bool break_graph(ir::Graph& graph) {
    ir::ValueId ghost = graph.add_value("ghost", DType::f32, {3, 5});
    graph.nodes()[0].inputs[0] = ghost;
    return true;
}

TEST(RunPipeline, ReportsAPassThatLeavesAnInvalidGraph) {
    ir::Builder b("g");
    b.output(b.relu(b.input("x", DType::f32, {3, 5})), "y");
    auto g = b.finish();
    try {
        run_pipeline(*g, {{"break_graph", break_graph}});
        FAIL() << "run_pipeline accepted an invalid graph";
    } catch (const Error& e) {
        EXPECT_EQ(e.code(), StatusCode::internal);
        EXPECT_NE(std::string(e.what()).find("break_graph"), std::string::npos) << e.what();
    }
}

TEST(RunPipeline, LeavesEveryValueWithAShape) {
    auto g = small_network();
    set_batch(*g, 2);
    run_pipeline(*g, default_pipeline());
    for (const ir::Node& n : g->nodes())
        for (ir::ValueId out : n.outputs) {
            EXPECT_TRUE(g->value(out).has_shape) << ir::node_label(n);
            EXPECT_EQ(g->value(out).shape.empty() ? 2 : g->value(out).shape[0], 2) << ir::node_label(n);
        }
}

// The exported models of shared/models through set_batch and the default pipeline: what must be gone afterwards
// (shape arithmetic, identities, unfused activations, Gemm) and the logits against PyTorch's.
class ExportedModel : public ::testing::TestWithParam<const char*> {};

TEST_P(ExportedModel, DefaultPipelineFoldsFusesAndMatchesPyTorch) {
    const std::string name = GetParam();
    STRATA_REQUIRE_SHARED_PATH(model, "models/" + name + ".onnx");
    STRATA_REQUIRE_SHARED_PATH(input_path, "models/" + name + ".input.npy");
    STRATA_REQUIRE_SHARED_PATH(logits_path, "models/" + name + ".logits.npy");
    Tensor input = Tensor::from_npy(input_path).value();
    Tensor logits = Tensor::from_npy(logits_path).value();

    auto g = frontend::import_onnx_file(model);
    set_batch(*g, input.dim(0));
    run_pipeline(*g, default_pipeline());
    for (OpKind gone : {OpKind::Shape, OpKind::Gather, OpKind::Cast, OpKind::Identity, OpKind::Dropout,
                        OpKind::ConstantOfShape, OpKind::Gemm, OpKind::BatchNorm})
        EXPECT_EQ(count_op(*g, gone), 0) << ir::op_name(gone);
    for (const ir::Node& n : g->nodes()) {
        if (n.op == OpKind::Reshape || n.op == OpKind::Slice)
            EXPECT_EQ(n.inputs.size(), 1u) << ir::node_label(n) << " kept a computed parameter";
        // Every activation in these networks follows a Conv or the classifier: all of them end up fused.
        EXPECT_NE(n.op, OpKind::Unary) << ir::node_label(n) << " was not fused";
    }

    ASSERT_EQ(g->inputs().size(), 1u);
    auto out = backends::run_reference(*g, {{g->value(g->inputs()[0]).name, input}});
    ASSERT_EQ(out.size(), 1u);
    EXPECT_LE(strata::test::max_rel_error(out.begin()->second, logits), 1e-4);
}

// shufflenet_v2_x1_0: channel shuffles and splits computed by Shape -> Gather -> Concat -> Reshape/Slice chains;
// mobilenet_v2: ReLU6 as Clip; efficientnet_b0: SiLU as x * Sigmoid(x); the others for breadth.
INSTANTIATE_TEST_SUITE_P(SharedModels, ExportedModel,
                         ::testing::Values("shufflenet_v2_x1_0", "mobilenet_v2", "efficientnet_b0", "squeezenet1_1",
                                           "googlenet"),
                         [](const auto& info) { return std::string(info.param); });

}  // namespace
}  // namespace strata::passes::test
