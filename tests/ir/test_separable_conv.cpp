// test_separable_conv.cpp: the SeparableConv op's shape inference (attrs completed, each malformed input refused
// with a message naming it), its arity in verify, and its cost (the two Convs' FLOPs, without the intermediate's
// bytes), checked by hand and against the unfused pair.
#include <gtest/gtest.h>

#include "ir/cost.h"
#include "ir/verify.h"
#include "passes/passes.h"
#include "shape_test_util.h"
#include "test_support.h"

namespace strata::ir {
namespace {

using test::expect_error;

// The shapes of X, Wd, Bd, Wp, Bp, Z; an empty shape marks the input absent.
struct SepShapes {
    Shape x{2, 8, 9, 7}, wd{8, 1, 3, 3}, bd{8}, wp{16, 8, 1, 1}, bp{16}, z{};
};

SeparableConvAttrs sep_attrs(int64_t kernel = 3, int64_t stride = 2, int64_t pad = 1) {
    return {conv2d_attrs(kernel, stride, pad, 8), conv2d_attrs(1)};
}

std::shared_ptr<Graph> sep_graph(const SepShapes& s, SeparableConvAttrs attrs) {
    Builder b("g");
    std::vector<ValueId> in;
    int i = 0;
    for (const Shape* sh : {&s.x, &s.wd, &s.bd, &s.wp, &s.bp, &s.z})
        in.push_back(sh->empty() ? kNoValue : b.input("in" + std::to_string(i++), DType::f32, *sh));
    while (in.size() > 4 && in.back() == kNoValue) in.pop_back();
    b.output(b.op(OpKind::SeparableConv, in, std::move(attrs), "n"));
    return b.finish();
}

void expect_sep_error(const SepShapes& s, SeparableConvAttrs attrs, std::initializer_list<std::string> parts) {
    auto g = sep_graph(s, std::move(attrs));
    expect_error([&] { infer_shapes(*g); }, StatusCode::invalid_argument, parts);
}

TEST(SeparableConvShapes, DepthwiseStrideThenPointwise) {
    SepShapes s;
    s.z = {2, 16, 5, 4};
    auto g = sep_graph(s, sep_attrs());
    infer_shapes(*g);
    const Node& n = g->nodes()[0];
    EXPECT_EQ(g->value(n.outputs[0]).shape, (Shape{2, 16, 5, 4}));  // (9 + 2 - 3) / 2 + 1, (7 + 2 - 3) / 2 + 1
    const auto& a = n.attr<SeparableConvAttrs>();
    EXPECT_EQ(a.depthwise.kernel, (std::vector<int64_t>{3, 3}));
    EXPECT_EQ(a.pointwise.kernel, (std::vector<int64_t>{1, 1}));
    EXPECT_EQ(a.pointwise.dilations, (std::vector<int64_t>{1, 1}));
}

TEST(SeparableConvShapes, KernelFromWeightsAutoPadAndDynamicBatch) {
    SepShapes s{.x = {-1, 8, 10, 10}, .wd = {8, 1, 5, 5}, .bd = {}, .wp = {3, 8, 1, 1}, .bp = {}};
    SeparableConvAttrs a{ConvAttrs{}, ConvAttrs{}};
    a.depthwise.group = 8;
    a.depthwise.strides = {2, 2};
    a.depthwise.auto_pad = AutoPad::same_upper;
    auto g = sep_graph(s, a);
    infer_shapes(*g);
    const Node& n = g->nodes()[0];
    EXPECT_EQ(g->value(n.outputs[0]).shape, (Shape{-1, 3, 5, 5}));
    const auto& got = n.attr<SeparableConvAttrs>();
    EXPECT_EQ(got.depthwise.kernel, (std::vector<int64_t>{5, 5}));
    EXPECT_EQ(got.depthwise.auto_pad, AutoPad::explicit_pads);
    EXPECT_EQ(got.depthwise.pads_begin, (std::vector<int64_t>{1, 1}));  // total 3: 1 before, 2 after
    EXPECT_EQ(got.depthwise.pads_end, (std::vector<int64_t>{2, 2}));
}

TEST(SeparableConvShapes, WrongDepthwiseWeightIsRefused) {
    SepShapes s;
    s.wd = {8, 2, 3, 3};
    expect_sep_error(s, sep_attrs(), {"SeparableConv 'n'", "depthwise weight [8,2,3,3]", "[C,1,R,S]"});
    s.wd = {6, 1, 3, 3};
    expect_sep_error(s, sep_attrs(), {"depthwise weight [6,1,3,3]", "8 input channels"});
    s.wd = {8, 1, 3};
    expect_sep_error(s, sep_attrs(), {"depthwise weight [8,1,3]"});
    s = {};
    SeparableConvAttrs a = sep_attrs();
    a.depthwise.group = 4;
    expect_sep_error(s, a, {"depthwise group 4", "8 channels"});
    expect_sep_error(s, sep_attrs(5), {"depthwise kernel_shape [5,5]", "[8,1,3,3]"});
}

TEST(SeparableConvShapes, WrongPointwiseWeightIsRefused) {
    SepShapes s;
    s.wp = {16, 8, 3, 3};
    expect_sep_error(s, sep_attrs(), {"SeparableConv 'n'", "pointwise weight [16,8,3,3]", "[K,C,1,1]"});
    s.wp = {16, 4, 1, 1};
    expect_sep_error(s, sep_attrs(), {"pointwise weight [16,4,1,1]", "C = 8"});
}

TEST(SeparableConvShapes, PointwiseMustBePlainOneByOne) {
    for (int c = 0; c < 4; ++c) {
        SeparableConvAttrs a = sep_attrs();
        if (c == 0) a.pointwise.strides = {2, 2};
        if (c == 1) a.pointwise.pads_begin = a.pointwise.pads_end = {1, 1};
        if (c == 2) a.pointwise.dilations = {1, 2};
        if (c == 3) a.pointwise.group = 2;
        SCOPED_TRACE(c);
        expect_sep_error({}, a, {"SeparableConv 'n'", "pointwise half must be 1x1"});
    }
}

TEST(SeparableConvShapes, BiasesResidualAndRankAreChecked) {
    SepShapes s;
    s.bd = {16};
    expect_sep_error(s, sep_attrs(), {"bias [16]", "8 output channels"});
    s = {};
    s.bp = {8};
    expect_sep_error(s, sep_attrs(), {"bias [8]", "16 output channels"});
    s = {};
    s.z = {2, 16, 9, 7};
    expect_sep_error(s, sep_attrs(), {"residual [2,16,9,7]", "[2,16,5,4]"});
    s = {};
    s.x = {2, 8, 9};
    expect_sep_error(s, sep_attrs(), {"input [2,8,9]", "[N,C,H,W]"});
}

TEST(SeparableConvVerify, ArityAndTheOptionalDepthwiseBias) {
    SepShapes s;
    s.bd = {}, s.bp = {};
    auto g = sep_graph(s, sep_attrs());
    ASSERT_EQ(g->nodes()[0].inputs.size(), 4u);
    EXPECT_EQ(g->nodes()[0].inputs[2], kNoValue);
    EXPECT_NO_THROW(verify(*g));  // Bd may be absent although Wp follows it

    auto short_g = sep_graph({}, sep_attrs());
    short_g->nodes()[0].inputs.resize(3);
    expect_error([&] { verify(*short_g); }, StatusCode::invalid_argument, {"SeparableConv 'n'", "3 inputs", "4 to 6"});

    auto no_wp = sep_graph({}, sep_attrs());
    no_wp->nodes()[0].inputs[3] = kNoValue;
    expect_error([&] { verify(*no_wp); }, StatusCode::invalid_argument, {"SeparableConv 'n'", "required input 3"});

    auto long_g = sep_graph({}, sep_attrs());
    long_g->nodes()[0].inputs.resize(7, long_g->inputs()[0]);
    expect_error([&] { verify(*long_g); }, StatusCode::invalid_argument, {"7 inputs", "4 to 6"});

    auto wrong_attrs = sep_graph({}, sep_attrs());
    wrong_attrs->nodes()[0].attrs = ConvAttrs{};
    expect_error([&] { verify(*wrong_attrs); }, StatusCode::invalid_argument, {"SeparableConv 'n'", "attrs"});
}

Tensor weights(const Shape& shape, uint64_t salt) {
    return strata::test::random_tensor(DType::f32, shape, strata::test::test_seed() + salt);
}

TEST(SeparableConvCost, TheTwoConvsWithoutTheIntermediate) {
    // X [1,4,6,6] -> dw 3x3 pad 1 (+Bd, Relu6) -> mid [1,4,6,6] = 144 -> 1x1 to 8 (+Bp, Relu) -> Y [1,8,6,6] = 288.
    Builder b("g");
    ValueId x = b.input("x", DType::f32, {1, 4, 6, 6});
    ConvAttrs da = conv2d_attrs(3, 1, 1, 4);
    da.activation = UnaryAttrs{UnaryKind::Relu6};
    ConvAttrs pa = conv2d_attrs(1);
    pa.activation = UnaryAttrs{UnaryKind::Relu};
    ValueId mid = b.conv(x, weights({4, 1, 3, 3}, 1), weights({4}, 2), da, "dw");
    b.output(b.conv(mid, weights({8, 4, 1, 1}, 3), weights({8}, 4), pa, "pw"));
    auto g = b.finish();
    infer_shapes(*g);
    NodeCost dw = node_cost(*g, g->nodes()[0]), pw = node_cost(*g, g->nodes()[1]);
    ASSERT_TRUE(passes::fuse_separable_conv(*g));
    ASSERT_EQ(g->nodes().size(), 1u);
    NodeCost sep = node_cost(*g, g->nodes()[0]);
    // 2*144*9 (dw) + 144 (Bd) + 144 (Relu6) + 2*288*4 (pw) + 288 (Bp) + 288 (Relu).
    EXPECT_EQ(sep.flops, 2592 + 144 + 144 + 2304 + 288 + 288);
    EXPECT_EQ(sep.flops, dw.flops + pw.flops);
    EXPECT_EQ(sep.params, 36 + 4 + 32 + 8);
    EXPECT_EQ(sep.bytes, 4.0 * (144 + 36 + 4 + 32 + 8 + 288));
    EXPECT_EQ(sep.bytes, dw.bytes + pw.bytes - 2 * 4.0 * 144);  // mid: written by dw, read by pw
}

}  // namespace
}  // namespace strata::ir
