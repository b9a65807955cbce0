// test_fuse_separable_conv.cpp: depthwise Conv -> 1x1 Conv becomes one SeparableConv that computes the same thing
// on the reference backend, and every near miss (multiplier 2, a shared or exported intermediate, a pointwise Conv
// with stride, pads, a 3x3 kernel or groups, a 1-D pair, a refusing `accept`) is left alone.
#include "pass_test_util.h"

namespace strata::passes::test {
namespace {

using ir::OpKind;
using strata::test::random_tensor;

ir::ConvAttrs with_act(ir::ConvAttrs a, ir::UnaryKind kind) {
    a.activation = ir::UnaryAttrs{kind};
    return a;
}

// x [N,C,H,W] -> depthwise k x k (stride, pad, dw activation) -> 1x1 to k_out (bias, activation) [-> + x].
struct Block {
    int64_t n = 2, c = 8, h = 9, w = 7, k_out = 8, kernel = 3, stride = 1, pad = 1;
    std::optional<ir::UnaryKind> dw_act = ir::UnaryKind::Relu6, pw_act = std::nullopt;
    bool dw_bias = true, pw_bias = true, residual = false;
};

std::shared_ptr<ir::Graph> block_graph(const Block& s) {
    ir::Builder b("g");
    ir::ValueId x = b.input("x", DType::f32, {s.n, s.c, s.h, s.w});
    ir::ConvAttrs da = ir::conv2d_attrs(s.kernel, s.stride, s.pad, s.c);
    if (s.dw_act) da = with_act(da, *s.dw_act);
    ir::ValueId d =
        b.conv(x, random_tensor(DType::f32, {s.c, 1, s.kernel, s.kernel}, seed(1)),
               s.dw_bias ? std::optional(random_tensor(DType::f32, {s.c}, seed(2))) : std::nullopt, da, "dw");
    ir::ConvAttrs pa = ir::conv2d_attrs(1);
    if (s.pw_act) pa = with_act(pa, *s.pw_act);
    std::vector<ir::ValueId> pw_in = {
        d, b.constant("wp", random_tensor(DType::f32, {s.k_out, s.c, 1, 1}, seed(3))),
        s.pw_bias ? b.constant("bp", random_tensor(DType::f32, {s.k_out}, seed(4))) : ir::kNoValue};
    if (s.residual) pw_in.push_back(x);
    b.output(b.op(OpKind::Conv, pw_in, pa, "pw"), "y");
    return b.finish();
}

// Fuses, checks the structure (one SeparableConv named after the 1x1 Conv, no Conv left) and the numbers.
void expect_fused(const Block& s, double lo = -1.0, double hi = 1.0) {
    auto g = block_graph(s);
    ir::infer_shapes(*g);
    ir::Graph before = *g;
    ASSERT_EQ(separable_pairs(*g).size(), 1u);
    EXPECT_TRUE(run_pass(*g, fuse_separable_conv));
    ASSERT_EQ(g->nodes().size(), 1u);
    EXPECT_EQ(count_op(*g, OpKind::Conv), 0);
    const ir::Node& n = g->nodes()[0];
    ASSERT_EQ(n.op, OpKind::SeparableConv);
    EXPECT_EQ(n.name, "pw/separable");
    EXPECT_EQ(n.outputs, before.nodes()[1].outputs);
    EXPECT_EQ(n.input(0), before.nodes()[0].inputs[0]);
    EXPECT_EQ(n.input(1), before.nodes()[0].inputs[1]);
    EXPECT_EQ(n.input(2), before.nodes()[0].input(2));
    EXPECT_EQ(n.input(3), before.nodes()[1].inputs[1]);
    EXPECT_EQ(n.input(4), before.nodes()[1].input(2));
    EXPECT_EQ(n.input(5), before.nodes()[1].input(3));
    EXPECT_NE(n.inputs.back(), ir::kNoValue) << "trailing absent inputs are trimmed";
    const auto& a = n.attr<ir::SeparableConvAttrs>();
    EXPECT_EQ(a.depthwise, before.nodes()[0].attr<ir::ConvAttrs>());
    EXPECT_EQ(a.pointwise, before.nodes()[1].attr<ir::ConvAttrs>());
    ir::infer_shapes(*g);
    expect_same_results(before, *g, random_inputs(before, seed(5), lo, hi));
}

TEST(FuseSeparableConv, MobileNetV2BlockWithResidual) {
    expect_fused({.n = 2, .c = 16, .h = 10, .w = 9, .k_out = 16, .residual = true}, -4.0, 4.0);
}

TEST(FuseSeparableConv, FiveByFiveStrideTwoWithoutBiases) {
    expect_fused({.c = 12,
                  .h = 13,
                  .w = 11,
                  .k_out = 20,
                  .kernel = 5,
                  .stride = 2,
                  .pad = 2,
                  .dw_bias = false,
                  .pw_bias = false});
}

TEST(FuseSeparableConv, PointwiseActivationAndNoDepthwiseActivation) {
    expect_fused({.c = 6, .k_out = 10, .dw_act = std::nullopt, .pw_act = ir::UnaryKind::Relu}, -3.0, 3.0);
    expect_fused({.c = 5, .k_out = 3, .dw_act = ir::UnaryKind::SiLU, .pw_act = ir::UnaryKind::HardSwish});
}

// Only the depthwise bias present: the pointwise bias slot stays absent, the depthwise one is kept.
TEST(FuseSeparableConv, OnlyDepthwiseBiasLeavesFourInputs) {
    auto g = block_graph({.pw_bias = false});
    EXPECT_TRUE(run_pass(*g, fuse_separable_conv));
    ASSERT_EQ(g->nodes().size(), 1u);
    EXPECT_EQ(g->nodes()[0].inputs.size(), 4u);
    EXPECT_NE(g->nodes()[0].inputs[2], ir::kNoValue);
}

// Two blocks in a row, with a Relu between: both fuse, in order, and the graph stays topological.
TEST(FuseSeparableConv, TwoBlocksInARow) {
    ir::Builder b("g");
    ir::ValueId x = b.input("x", DType::f32, {1, 4, 8, 8});
    ir::ValueId v = x;
    for (int i = 0; i < 2; ++i) {
        v = b.conv(v, random_tensor(DType::f32, {4, 1, 3, 3}, seed(10 + i)), std::nullopt, ir::conv2d_attrs(3, 1, 1, 4),
                   "dw" + std::to_string(i));
        v = b.conv(v, random_tensor(DType::f32, {4, 4, 1, 1}, seed(20 + i)),
                   random_tensor(DType::f32, {4}, seed(30 + i)), ir::conv2d_attrs(1), "pw" + std::to_string(i));
        v = b.relu(v);
    }
    b.output(v, "y");
    auto g = b.finish();
    ir::Graph before = *g;
    EXPECT_TRUE(run_pass(*g, fuse_separable_conv));
    EXPECT_EQ(count_op(*g, OpKind::SeparableConv), 2);
    EXPECT_EQ(count_op(*g, OpKind::Conv), 0);
    EXPECT_EQ(g->nodes().size(), 4u);
    expect_same_results(before, *g, random_inputs(before, seed(40)));
}

// `accept` sees each pair and decides; refusing all leaves the graph as it was.
TEST(FuseSeparableConv, AcceptDecidesPerPair) {
    auto g = block_graph({});
    ir::infer_shapes(*g);
    std::string before = fingerprint(*g);
    int asked = 0;
    EXPECT_FALSE(fuse_separable_conv(*g, [&](const ir::Graph&, const ir::Node& dw, const ir::Node& pw) {
        ++asked;
        EXPECT_EQ(dw.name, "dw");
        EXPECT_EQ(pw.name, "pw");
        return false;
    }));
    EXPECT_EQ(asked, 1);
    EXPECT_EQ(fingerprint(*g), before);
    EXPECT_TRUE(fuse_separable_conv(*g, [](const ir::Graph&, const ir::Node&, const ir::Node&) { return true; }));
    EXPECT_EQ(count_op(*g, OpKind::SeparableConv), 1);
}

TEST(FuseSeparableConv, ChannelMultiplierTwoIsNotFused) {
    ir::Builder b("g");
    ir::ValueId x = b.input("x", DType::f32, {1, 4, 6, 6});
    ir::ValueId d =
        b.conv(x, random_tensor(DType::f32, {8, 1, 3, 3}, seed(1)), std::nullopt, ir::conv2d_attrs(3, 1, 1, 4));
    b.output(b.conv(d, random_tensor(DType::f32, {5, 8, 1, 1}, seed(2)), std::nullopt, ir::conv2d_attrs(1)), "y");
    auto g = b.finish();
    expect_not_applied(*g, fuse_separable_conv);
}

TEST(FuseSeparableConv, SharedOrExportedIntermediateIsNotFused) {
    for (bool export_mid : {false, true}) {
        ir::Builder b("g");
        ir::ValueId x = b.input("x", DType::f32, {1, 4, 6, 6});
        ir::ValueId d =
            b.conv(x, random_tensor(DType::f32, {4, 1, 3, 3}, seed(1)), std::nullopt, ir::conv2d_attrs(3, 1, 1, 4));
        b.output(b.conv(d, random_tensor(DType::f32, {5, 4, 1, 1}, seed(2)), std::nullopt, ir::conv2d_attrs(1)), "y");
        if (export_mid)
            b.output(d, "mid");
        else
            b.output(b.relu(d), "r");
        auto g = b.finish();
        SCOPED_TRACE(export_mid ? "intermediate is a graph output" : "intermediate has two readers");
        expect_not_applied(*g, fuse_separable_conv);
    }
}

// The 1x1 Conv reads the intermediate as its residual too: not input 0 alone.
TEST(FuseSeparableConv, IntermediateReadTwiceByThePointwiseIsNotFused) {
    ir::Builder b("g");
    ir::ValueId x = b.input("x", DType::f32, {1, 4, 6, 6});
    ir::ValueId d =
        b.conv(x, random_tensor(DType::f32, {4, 1, 3, 3}, seed(1)), std::nullopt, ir::conv2d_attrs(3, 1, 1, 4));
    ir::ValueId wp = b.constant("wp", random_tensor(DType::f32, {4, 4, 1, 1}, seed(2)));
    b.output(b.op(OpKind::Conv, {d, wp, ir::kNoValue, d}, ir::conv2d_attrs(1)), "y");
    auto g = b.finish();
    expect_not_applied(*g, fuse_separable_conv);
}

TEST(FuseSeparableConv, PointwiseThatIsNotPlainOneByOneIsNotFused) {
    struct Case {
        const char* what;
        int64_t kernel, stride, pad, group;
    };
    for (const Case& c : {Case{"stride 2", 1, 2, 0, 1}, Case{"padding", 1, 1, 1, 1}, Case{"3x3 kernel", 3, 1, 1, 1},
                          Case{"grouped", 1, 1, 0, 2}}) {
        ir::Builder b("g");
        ir::ValueId x = b.input("x", DType::f32, {1, 4, 6, 6});
        ir::ValueId d =
            b.conv(x, random_tensor(DType::f32, {4, 1, 3, 3}, seed(1)), std::nullopt, ir::conv2d_attrs(3, 1, 1, 4));
        b.output(b.conv(d, random_tensor(DType::f32, {6, 4 / c.group, c.kernel, c.kernel}, seed(2)), std::nullopt,
                        ir::conv2d_attrs(c.kernel, c.stride, c.pad, c.group)),
                 "y");
        auto g = b.finish();
        SCOPED_TRACE(c.what);
        expect_not_applied(*g, fuse_separable_conv);
    }
}

TEST(FuseSeparableConv, PointwiseWithDilationAttributeStillFusesWhenOne) {
    ir::ConvAttrs pa = ir::conv2d_attrs(1);
    pa.dilations = {1, 1};
    ir::Builder b("g");
    ir::ValueId x = b.input("x", DType::f32, {1, 3, 5, 5});
    ir::ValueId d =
        b.conv(x, random_tensor(DType::f32, {3, 1, 3, 3}, seed(1)), std::nullopt, ir::conv2d_attrs(3, 2, 1, 3, 2));
    b.output(b.conv(d, random_tensor(DType::f32, {2, 3, 1, 1}, seed(2)), std::nullopt, pa), "y");
    auto g = b.finish();
    ir::Graph before = *g;
    EXPECT_TRUE(run_pass(*g, fuse_separable_conv));
    EXPECT_EQ(count_op(*g, OpKind::SeparableConv), 1);
    expect_same_results(before, *g, random_inputs(before, seed(3)));
}

TEST(FuseSeparableConv, OneDimensionalPairIsNotFused) {
    ir::ConvAttrs da;
    da.kernel = {3};
    da.pads_begin = da.pads_end = {1};
    da.group = 4;
    ir::ConvAttrs pa;
    pa.kernel = {1};
    ir::Builder b("g");
    ir::ValueId x = b.input("x", DType::f32, {1, 4, 9});
    ir::ValueId d = b.conv(x, random_tensor(DType::f32, {4, 1, 3}, seed(1)), std::nullopt, da);
    b.output(b.conv(d, random_tensor(DType::f32, {5, 4, 1}, seed(2)), std::nullopt, pa), "y");
    auto g = b.finish();
    expect_not_applied(*g, fuse_separable_conv);
}

// A depthwise Conv that already has a residual (fuse_conv_residual) has nowhere to put it in a SeparableConv.
TEST(FuseSeparableConv, DepthwiseWithResidualIsNotFused) {
    ir::Builder b("g");
    ir::ValueId x = b.input("x", DType::f32, {1, 4, 6, 6});
    ir::ValueId wd = b.constant("wd", random_tensor(DType::f32, {4, 1, 3, 3}, seed(1)));
    ir::ValueId d = b.op(OpKind::Conv, {x, wd, ir::kNoValue, x}, ir::conv2d_attrs(3, 1, 1, 4));
    b.output(b.conv(d, random_tensor(DType::f32, {5, 4, 1, 1}, seed(2)), std::nullopt, ir::conv2d_attrs(1)), "y");
    auto g = b.finish();
    expect_not_applied(*g, fuse_separable_conv);
}

// One channel: a 1x1 Conv is both depthwise and pointwise. In a chain of three, (0, 1) is a pair and node 1 is not
// paired again with node 2.
TEST(FuseSeparableConv, SingleChannelChainPairsEachNodeOnce) {
    ir::Builder b("g");
    ir::ValueId v = b.input("x", DType::f32, {1, 1, 5, 5});
    for (int i = 0; i < 3; ++i)  // the last one's output is not a graph output: (1, 2) would match on its own
        v = b.conv(v, random_tensor(DType::f32, {1, 1, 1, 1}, seed(i + 1)), std::nullopt, ir::conv2d_attrs(1));
    b.output(b.relu(v), "y");
    auto g = b.finish();
    ir::infer_shapes(*g);
    std::vector<SeparablePair> pairs = separable_pairs(*g);
    ASSERT_EQ(pairs.size(), 1u);
    EXPECT_EQ(pairs[0].dw, 0u);
    EXPECT_EQ(pairs[0].pw, 1u);
    ir::Graph before = *g;
    EXPECT_TRUE(fuse_separable_conv(*g));
    EXPECT_EQ(g->nodes().size(), 3u);
    expect_same_results(before, *g, random_inputs(before, seed(9)));
}

// Not in the default pipeline: the builder decides where it pays.
TEST(FuseSeparableConv, NotInTheDefaultPipeline) {
    EXPECT_EQ(find_pass("fuse_separable_conv"), nullptr);
    auto g = block_graph({});
    run_pipeline(*g, default_pipeline());
    EXPECT_EQ(count_op(*g, OpKind::SeparableConv), 0);
}

}  // namespace
}  // namespace strata::passes::test
