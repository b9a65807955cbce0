// test_device_storage.cpp: the GPU plan's dtype and layout per value (build/device_storage.h): one network layout,
// Casts only at the edges and where a logical-order op meets a 4-D activation.
#include <gtest/gtest.h>

#include "build/device_storage.h"
#include "ir/builder.h"
#include "ir/shape_inference.h"
#include "passes/passes.h"
#include "test_support.h"

namespace strata::build {
namespace {

using strata::test::random_tensor;

// x -> conv -> relu -> flatten -> fc -> logits; and conv's output also reshaped ([N,C,H,W] -> [N, C*H*W]).
std::shared_ptr<ir::Graph> small_net(int64_t spatial) {
    ir::Builder b("net");
    ir::ValueId x = b.input("x", DType::f32, {2, 3, spatial, spatial});
    ir::ValueId c =
        b.relu(b.conv(x, random_tensor(DType::f32, {4, 3, 3, 3}, 1), std::nullopt, ir::conv2d_attrs(3, 1, 1)));
    ir::ValueId f = b.flatten(c);
    b.output(b.linear(f, random_tensor(DType::f32, {5, 4 * spatial * spatial}, 2), std::nullopt), "logits");
    auto g = b.finish();
    ir::infer_shapes(*g);
    return g;
}

size_t count_casts(const ir::Graph& g) {
    size_t n = 0;
    for (const auto& node : g.nodes()) n += node.op == ir::OpKind::Cast;
    return n;
}

TEST(DeviceStorage, Fp16NhwcConvertsAtTheEdgesAndBeforeFlatten) {
    auto g = small_net(5);
    DeviceStorage s = assign_device_storage(*g, DType::f16, Layout::nhwc);
    // input -> fp16 nhwc; conv output (nhwc) -> nchw for Flatten; the fc writes fp32 logits (NOTE [fp32 outputs]).
    EXPECT_EQ(count_casts(*g), 2u);
    EXPECT_EQ(g->nodes().front().op, ir::OpKind::Cast);
    const ir::Value& logits = g->value(g->outputs()[0]);
    EXPECT_EQ(logits.name, "logits");
    EXPECT_EQ(logits.dtype, DType::f32);
    const std::optional<size_t> fc = g->producer(g->outputs()[0]);
    ASSERT_TRUE(fc.has_value());
    EXPECT_EQ(g->nodes()[*fc].op, ir::OpKind::Gemm);
    EXPECT_EQ(g->value(g->nodes()[*fc].inputs[0]).dtype, DType::f16) << "the fc reads fp16 and writes fp32";
    for (const auto& node : g->nodes()) {
        if (node.op == ir::OpKind::Conv) {
            EXPECT_EQ(s.layouts[node.inputs[0]], Layout::nhwc);
            EXPECT_EQ(s.layouts[node.outputs[0]], Layout::nhwc);
            EXPECT_EQ(g->value(node.outputs[0]).dtype, DType::f16);
            EXPECT_EQ(g->value(node.inputs[1]).dtype, DType::f32) << "constants keep their dtype";
        }
        if (node.op == ir::OpKind::Flatten) {
            EXPECT_EQ(s.layouts[node.inputs[0]], Layout::rowmajor);
        }
    }
    // Nodes stay in a valid order: every input is produced before it is read.
    std::vector<bool> ready(g->num_values(), false);
    for (ir::ValueId v : g->inputs()) ready[v] = true;
    for (size_t v = 0; v < g->num_values(); ++v)
        if (g->is_constant(static_cast<ir::ValueId>(v))) ready[v] = true;
    for (const auto& node : g->nodes()) {
        for (ir::ValueId in : node.inputs) EXPECT_TRUE(in == ir::kNoValue || ready[in]) << node.name;
        for (ir::ValueId out : node.outputs) ready[out] = true;
    }
}

// NOTE [fp32 outputs] applies only where the GEMM's output leaves the graph and nothing else reads it, and not to a
// Gemm with C (C would have to be fp32 too) nor to other ops.
TEST(DeviceStorage, OnlyAnOutputOnlyGemmWritesFloat32) {
    auto producer_of_output = [](const ir::Graph& g) -> const ir::Node& {
        return g.nodes()[*g.producer(g.outputs()[0])];
    };
    for (DType compute : {DType::f16, DType::bf16}) {
        // logits also read by a Softmax that is a second output: the fc stays in the compute dtype.
        ir::Builder b("two_heads");
        ir::ValueId x = b.input("x", DType::f32, {2, 8});
        ir::ValueId logits = b.linear(x, random_tensor(DType::f32, {5, 8}, 1), std::nullopt);
        b.output(logits, "logits");
        b.output(b.op(ir::OpKind::Softmax, {logits}, ir::SoftmaxAttrs{.axis = 1}), "probs");
        auto g = b.finish();
        ir::infer_shapes(*g);
        assign_device_storage(*g, compute, Layout::nhwc);
        EXPECT_EQ(count_casts(*g), 3u) << "x in, logits and probs out";
        for (const auto& node : g->nodes()) {
            if (node.op == ir::OpKind::Gemm) {
                EXPECT_EQ(g->value(node.outputs[0]).dtype, compute);
            }
        }

        // A Gemm with C (the bias as Gemm's C) leaves through a Cast.
        ir::Builder c("gemm_c");
        ir::ValueId xc = c.input("x", DType::f32, {2, 8});
        c.output(c.linear(xc, random_tensor(DType::f32, {5, 8}, 1), random_tensor(DType::f32, {5}, 2)), "y");
        auto gc = c.finish();
        ir::infer_shapes(*gc);
        assign_device_storage(*gc, compute, Layout::nhwc);
        EXPECT_EQ(producer_of_output(*gc).op, ir::OpKind::Cast);

        // FullyConnected and MatMul at the end write float32 themselves.
        ir::Builder m("matmul_head");
        ir::ValueId a = m.input("a", DType::f32, {3, 4}), bm = m.input("b", DType::f32, {4, 6});
        m.output(m.op(ir::OpKind::MatMul, {a, bm}), "y");
        auto gm = m.finish();
        ir::infer_shapes(*gm);
        assign_device_storage(*gm, compute, Layout::nhwc);
        EXPECT_EQ(producer_of_output(*gm).op, ir::OpKind::MatMul);
        EXPECT_EQ(gm->value(gm->outputs()[0]).dtype, DType::f32);
    }
}

TEST(DeviceStorage, Fp32NchwNeedsNoCasts) {
    auto g = small_net(4);
    DeviceStorage s = assign_device_storage(*g, DType::f32, Layout::nchw);
    EXPECT_EQ(count_casts(*g), 0u);
    for (Layout l : s.layouts) EXPECT_EQ(l, Layout::rowmajor);
}

TEST(DeviceStorage, OneByOneMapsMakeTheLayoutCastBytewise) {
    auto g = small_net(1);
    DeviceStorage s = assign_device_storage(*g, DType::f16, Layout::nhwc);
    int bytewise = 0;
    for (const auto& node : g->nodes()) bytewise += is_bytewise_cast(*g, s, node);
    EXPECT_EQ(bytewise, 1) << "the nhwc -> nchw Cast of a [N,C,1,1] tensor moves nothing";
}

// A ShuffleNetV2 unit: conv -> channel halves (Slice) -> conv on one half -> Concat -> channel shuffle (Reshape ->
// Transpose -> Reshape, or the Gather that passes::channel_shuffle_gather makes of it) -> conv.
std::shared_ptr<ir::Graph> shuffle_unit(bool as_gather) {
    const int64_t n = 2, c = 8, hw = 5;
    ir::Builder b("unit");
    ir::ValueId x = b.input("x", DType::f32, {n, 3, hw, hw});
    ir::ValueId stem = b.conv(x, random_tensor(DType::f32, {c, 3, 1, 1}, 1), std::nullopt, ir::conv2d_attrs(1));
    ir::ValueId left =
        b.op(ir::OpKind::Slice, {stem}, ir::SliceAttrs{std::vector<int64_t>{0}, std::vector<int64_t>{c / 2}, {1}, {}});
    ir::ValueId right =
        b.op(ir::OpKind::Slice, {stem}, ir::SliceAttrs{std::vector<int64_t>{c / 2}, std::vector<int64_t>{c}, {1}, {}});
    ir::ValueId branch =
        b.relu(b.conv(right, random_tensor(DType::f32, {c / 2, c / 2, 1, 1}, 2), std::nullopt, ir::conv2d_attrs(1)));
    ir::ValueId cat = b.concat({left, branch}, 1);
    ir::ValueId split = b.op(ir::OpKind::Reshape, {cat}, ir::ReshapeAttrs{std::vector<int64_t>{n, 2, c / 2, hw, hw}});
    ir::ValueId t = b.op(ir::OpKind::Transpose, {split}, ir::TransposeAttrs{{0, 2, 1, 3, 4}});
    ir::ValueId shuffled = b.op(ir::OpKind::Reshape, {t}, ir::ReshapeAttrs{std::vector<int64_t>{n, c, hw, hw}});
    b.output(b.conv(shuffled, random_tensor(DType::f32, {4, c, 1, 1}, 3), std::nullopt, ir::conv2d_attrs(1)), "y");
    auto g = b.finish();
    ir::infer_shapes(*g);
    if (as_gather) {
        EXPECT_TRUE(passes::channel_shuffle_gather(*g));
        ir::infer_shapes(*g);
    }
    return g;
}

TEST(DeviceStorage, ChannelShuffleAsGatherRunsInNhwcWithoutCasts) {
    // Exported form: the logical-order Reshapes put an nhwc -> nchw Cast before the shuffle and one back after it.
    auto exported = shuffle_unit(false);
    assign_device_storage(*exported, DType::f16, Layout::nhwc);
    EXPECT_EQ(count_casts(*exported), 4u);

    auto g = shuffle_unit(true);
    DeviceStorage s = assign_device_storage(*g, DType::f16, Layout::nhwc);
    EXPECT_EQ(count_casts(*g), 2u) << "only the input's and the output's";
    int gathers = 0;
    for (const auto& node : g->nodes()) {
        if (node.op == ir::OpKind::Cast) {
            bool edge = g->is_graph_input(node.inputs[0]) || g->is_graph_output(node.outputs[0]);
            EXPECT_TRUE(edge) << "a Cast inside the network: " << node.name;
            continue;
        }
        for (ir::ValueId v : node.outputs) {
            EXPECT_EQ(s.layouts[v], Layout::nhwc) << node.name;
            EXPECT_EQ(g->value(v).dtype, DType::f16) << node.name;
        }
        if (node.op == ir::OpKind::Gather) {
            ++gathers;
            EXPECT_EQ(s.layouts[node.inputs[0]], Layout::nhwc);
            EXPECT_TRUE(g->is_constant(node.inputs[1]));
            EXPECT_EQ(g->value(node.inputs[1]).dtype, DType::i64) << "indices keep their dtype";
        }
        if (node.op == ir::OpKind::Slice || node.op == ir::OpKind::Concat)
            for (ir::ValueId v : node.inputs) EXPECT_EQ(s.layouts[v], Layout::nhwc) << node.name;
    }
    EXPECT_EQ(gathers, 1);
}

}  // namespace
}  // namespace strata::build
