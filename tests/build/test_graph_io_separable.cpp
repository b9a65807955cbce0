// test_graph_io_separable.cpp: a graph holding SeparableConv nodes (made by fuse_separable_conv from MobileNetV2-like
// blocks, with and without each optional input) saves and loads exactly and runs bit-identically after the reload.
#include <gtest/gtest.h>

#include "backends/reference/reference.h"
#include "build/graph_io.h"
#include "graph_io_test_util.h"
#include "ir/builder.h"
#include "ir/shape_inference.h"
#include "passes/passes.h"

namespace strata::build {
namespace {

TEST(GraphIoSeparable, FusedBlocksRoundTripAndRunIdentically) {
    const uint64_t seed = test::test_seed();
    ir::Builder b("sep");
    ir::ValueId x = b.input("x", DType::f32, {1, 8, 10, 10});
    ir::ConvAttrs dw = ir::conv2d_attrs(3, 1, 1, 8);
    dw.activation = ir::UnaryAttrs{ir::UnaryKind::Relu6};
    ir::ValueId d0 = b.conv(x, test::random_tensor(DType::f32, {8, 1, 3, 3}, seed),
                            test::random_tensor(DType::f32, {8}, seed + 1), dw);
    ir::ValueId wp0 = b.constant("wp0", test::random_tensor(DType::f32, {8, 8, 1, 1}, seed + 2));
    ir::ValueId bp0 = b.constant("bp0", test::random_tensor(DType::f32, {8}, seed + 3));
    ir::ValueId p0 = b.op(ir::OpKind::Conv, {d0, wp0, bp0, x}, ir::conv2d_attrs(1), "pw0");  // with residual
    ir::ConvAttrs dw2 = ir::conv2d_attrs(5, 2, 2, 8);
    ir::ValueId d1 = b.conv(p0, test::random_tensor(DType::f32, {8, 1, 5, 5}, seed + 4), std::nullopt, dw2);
    ir::ConvAttrs pw1 = ir::conv2d_attrs(1);
    pw1.activation = ir::UnaryAttrs{ir::UnaryKind::LeakyRelu, 0.1f};
    b.output(b.conv(d1, test::random_tensor(DType::f32, {12, 8, 1, 1}, seed + 5), std::nullopt, pw1, "pw1"), "y");
    auto g = b.finish();
    ir::infer_shapes(*g);
    ASSERT_TRUE(passes::fuse_separable_conv(*g));
    ASSERT_EQ(g->nodes().size(), 2u);

    const std::vector<uint8_t> bytes = save_graph_bytes(*g);
    ir::Graph back = load_graph_bytes(bytes.data(), bytes.size(), "sep.graph");
    EXPECT_TRUE(test::same_graph(*g, back));
    EXPECT_EQ(save_graph_bytes(back), bytes);
    EXPECT_EQ(back.nodes()[0].attr<ir::SeparableConvAttrs>(), g->nodes()[0].attr<ir::SeparableConvAttrs>());

    std::map<std::string, Tensor> feeds{{"x", test::random_tensor(DType::f32, {1, 8, 10, 10}, seed + 6)}};
    const auto want = backends::run_reference(*g, feeds);
    const auto got = backends::run_reference(back, feeds);
    ASSERT_EQ(want.size(), 1u);
    EXPECT_TRUE(test::same_tensor(want.at("y"), got.at("y"))) << "seed " << seed;
}

}  // namespace
}  // namespace strata::build
