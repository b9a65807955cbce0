// test_zoo.cpp: the built-in networks: torchvision's parameter counts, shapes at a fixed batch, a clean verify,
// deterministic weights, and the not-found error.
#include <gtest/gtest.h>

#include <cstring>

#include "ir/cost.h"
#include "ir/shape_inference.h"
#include "ir/verify.h"
#include "test_support.h"
#include "zoo/zoo.h"
#include "zoo/zoo_layers.h"

namespace strata::zoo {
namespace {

// Learnable parameters as torchvision counts them: every constant except BatchNorm's running statistics.
int64_t learnable_params(const ir::Graph& g) {
    std::vector<bool> running_stat(g.num_values(), false);
    for (const ir::Node& n : g.nodes())
        if (n.op == ir::OpKind::BatchNorm) running_stat[n.inputs[3]] = running_stat[n.inputs[4]] = true;
    int64_t count = 0;
    for (size_t i = 0; i < g.num_values(); ++i)
        if (g.value(static_cast<ir::ValueId>(i)).constant && !running_stat[i])
            count += g.value(static_cast<ir::ValueId>(i)).constant->numel();
    return count;
}

struct ZooCase {
    const char* name;
    int64_t params;
    double gmacs;
};

class ZooNetwork : public ::testing::TestWithParam<ZooCase> {};

TEST_P(ZooNetwork, MatchesTorchvisionParameterCount) {
    auto g = build(GetParam().name);
    EXPECT_EQ(learnable_params(*g), GetParam().params);
}

TEST_P(ZooNetwork, VerifiesAndInfersLogitsAtBatch2) {
    auto g = build(GetParam().name);
    ASSERT_EQ(g->inputs().size(), 1u);
    ASSERT_EQ(g->outputs().size(), 1u);
    ir::Value& input = g->value(g->inputs()[0]);
    EXPECT_EQ(input.name, "input");
    EXPECT_EQ(input.shape, (Shape{-1, 3, 224, 224}));
    ir::verify(*g);
    ir::infer_shapes(*g);
    EXPECT_EQ(g->value(g->outputs()[0]).name, "logits");
    EXPECT_EQ(g->value(g->outputs()[0]).shape, (Shape{-1, 1000}));
    input.shape[0] = 2;
    ir::infer_shapes(*g);
    EXPECT_EQ(g->value(g->outputs()[0]).shape, (Shape{2, 1000}));
    EXPECT_EQ(g->value(g->outputs()[0]).dtype, DType::f32);
    ir::verify(*g);
}

TEST_P(ZooNetwork, WeightsAreDeterministic) {
    auto a = build(GetParam().name);
    auto b = build(GetParam().name);
    ASSERT_EQ(a->num_values(), b->num_values());
    for (size_t i = 0; i < a->num_values(); ++i) {
        const auto& ca = a->value(static_cast<ir::ValueId>(i)).constant;
        const auto& cb = b->value(static_cast<ir::ValueId>(i)).constant;
        ASSERT_EQ(ca.has_value(), cb.has_value());
        if (ca) {
            ASSERT_EQ(std::memcmp(ca->raw(), cb->raw(), ca->nbytes()), 0) << a->value(i).name;
        }
    }
}

// Multiply-adds of the convolutions and the classifier at batch 1, from node_cost (FLOPs less bias adds, halved).
double conv_linear_macs(ir::Graph& g) {
    g.value(g.inputs()[0]).shape[0] = 1;
    ir::infer_shapes(g);
    double macs = 0;
    for (const ir::Node& n : g.nodes()) {
        if (n.op != ir::OpKind::Conv && n.op != ir::OpKind::Gemm) continue;
        double outputs = static_cast<double>(shape_numel(g.value(n.outputs[0]).shape));
        double bias_adds = n.input(2) == ir::kNoValue ? 0 : outputs;
        macs += (ir::node_cost(g, n).flops - bias_adds) / 2;
    }
    return macs;
}

TEST_P(ZooNetwork, MultiplyAddsMatchTorchvisionGflops) {
    auto g = build(GetParam().name);
    // torchvision's model table lists GFLOPS (multiply-adds) rounded to two decimals.
    EXPECT_NEAR(conv_linear_macs(*g) / 1e9, GetParam().gmacs, 0.005);
}

INSTANTIATE_TEST_SUITE_P(Zoo, ZooNetwork,
                         ::testing::Values(ZooCase{"squeezenet1_1", 1235496, 0.35},
                                           ZooCase{"mobilenet_v2", 3504872, 0.30},
                                           ZooCase{"resnet50", 25557032, 4.09}),
                         [](const auto& info) { return std::string(info.param.name); });

// Ceil-mode pools (squeezenet), strided stages and the stem must land on torchvision's feature map sizes.
TEST(Zoo, FeatureMapSizesAtBatch3) {
    struct Probe {
        const char* net;
        const char* value;
        Shape shape;
    };
    const Probe probes[] = {{"squeezenet1_1", "features.2", {3, 64, 55, 55}},
                            {"squeezenet1_1", "features.12.cat", {3, 512, 13, 13}},
                            {"mobilenet_v2", "features.0.2", {3, 32, 112, 112}},
                            {"mobilenet_v2", "features.18.2", {3, 1280, 7, 7}},
                            {"resnet50", "maxpool", {3, 64, 56, 56}},
                            {"resnet50", "layer2.0.relu", {3, 512, 28, 28}},
                            {"resnet50", "layer4.2.relu", {3, 2048, 7, 7}}};
    for (const Probe& p : probes) {
        auto g = build(p.net);
        g->value(g->inputs()[0]).shape[0] = 3;
        ir::infer_shapes(*g);
        auto id = g->find_value(p.value);
        ASSERT_TRUE(id) << p.net << " " << p.value;
        EXPECT_EQ(g->value(*id).shape, p.shape) << p.net << " " << p.value;
    }
}

// splitmix64's published first output for seed 0: the weights are the same on every platform.
TEST(Zoo, WeightRngIsSplitmix64) {
    WeightRng rng(0);
    EXPECT_EQ(rng.next(), 0xe220a8397b1dcdafULL);
    WeightRng unit(12345);
    for (int i = 0; i < 1000; ++i) {
        double u = unit.uniform();
        ASSERT_GE(u, -1.0);
        ASSERT_LT(u, 1.0);
    }
}

TEST(Zoo, NamesListsTheNetworks) {
    EXPECT_EQ(names(), (std::vector<std::string>{"squeezenet1_1", "mobilenet_v2", "resnet50"}));
}

TEST(Zoo, UnknownNameIsNotFoundAndListsNames) {
    try {
        build("resnet51");
        FAIL() << "expected an Error";
    } catch (const Error& e) {
        EXPECT_EQ(e.code(), StatusCode::not_found);
        EXPECT_NE(std::string(e.what()).find("resnet51"), std::string::npos);
        EXPECT_NE(std::string(e.what()).find("mobilenet_v2"), std::string::npos);
    }
}

TEST(Zoo, TorchvisionLayerNames) {
    auto r = build("resnet50");
    EXPECT_TRUE(r->find_value("layer1.0.conv1.weight"));
    EXPECT_TRUE(r->find_value("layer4.2.bn3.running_var"));
    EXPECT_TRUE(r->find_value("layer2.0.downsample.0.weight"));
    EXPECT_TRUE(r->find_value("fc.weight"));
    auto m = build("mobilenet_v2");
    EXPECT_TRUE(m->find_value("features.0.0.weight"));
    EXPECT_TRUE(m->find_value("features.1.conv.0.0.weight"));  // expand ratio 1: depthwise first
    EXPECT_TRUE(m->find_value("features.2.conv.3.weight"));
    EXPECT_TRUE(m->find_value("features.18.1.bias"));
    EXPECT_TRUE(m->find_value("classifier.1.weight"));
    auto s = build("squeezenet1_1");
    EXPECT_TRUE(s->find_value("features.3.expand3x3.weight"));
    EXPECT_TRUE(s->find_value("classifier.1.bias"));
}

}  // namespace
}  // namespace strata::zoo
