// test_channel_shuffle_gather.cpp: Reshape -> Transpose -> Reshape channel shuffles become one Gather on axis 1 whose
// indices are the permutation the three nodes perform (read back from the reference backend, not re-derived), with
// the same results bit for bit; near misses stay; shufflenet_v2_x1_0 loses every Transpose.
#include <fmt/format.h>

#include "frontend/onnx/onnx_import.h"
#include "pass_test_util.h"

namespace strata::passes::test {
namespace {

using ir::OpKind;

struct ShuffleCase {
    int64_t n, channels, groups, h, w;
    std::string str() const { return fmt::format("[{},{},{},{}] g={}", n, channels, h, w, groups); }
};

// x [N, C, H, W] -> Reshape [N, g, C/g, H, W] -> Transpose `perm` -> Reshape `back` -> Relu -> y. The first Reshape
// uses torch's literal dims, the second torch's view(N, -1, H, W).
std::shared_ptr<ir::Graph> shuffle_graph(const ShuffleCase& c, std::vector<int64_t> perm = {0, 2, 1, 3, 4},
                                         std::vector<int64_t> back = {}) {
    if (back.empty()) back = {c.n, -1, c.h, c.w};
    ir::Builder b("shuffle");
    ir::ValueId x = b.input("x", DType::f32, {c.n, c.channels, c.h, c.w});
    ir::ValueId split = b.op(OpKind::Reshape, {x},
                             ir::ReshapeAttrs{std::vector<int64_t>{c.n, c.groups, c.channels / c.groups, c.h, c.w}});
    ir::ValueId t = b.op(OpKind::Transpose, {split}, ir::TransposeAttrs{perm}, "shuffle_t");
    ir::ValueId merged = b.op(OpKind::Reshape, {t}, ir::ReshapeAttrs{back});
    b.output(b.relu(merged), "y");
    return b.finish();
}

// The channel of x each output channel of `g` holds: run on x[n, c, h, w] = c (all other dims constant).
std::vector<int64_t> observed_permutation(const ir::Graph& g, const ShuffleCase& c) {
    Tensor x = Tensor::empty(DType::f32, {c.n, c.channels, c.h, c.w});
    for (int64_t i = 0; i < x.numel(); ++i) x.data<float>()[i] = static_cast<float>((i / (c.h * c.w)) % c.channels);
    ir::Graph copy = g;
    Tensor y = backends::run_reference(copy, {{"x", x}}).at("y");
    std::vector<int64_t> perm(static_cast<size_t>(c.channels));
    for (int64_t j = 0; j < c.channels; ++j) {
        perm[j] = static_cast<int64_t>(y.data<float>()[j * c.h * c.w]);
        for (int64_t i = 0; i < c.n * c.h * c.w; ++i) {  // every pixel of every image holds the same channel
            int64_t at = (i / (c.h * c.w)) * c.channels * c.h * c.w + j * c.h * c.w + i % (c.h * c.w);
            EXPECT_EQ(y.data<float>()[at], static_cast<float>(perm[j])) << c.str() << " channel " << j;
        }
    }
    return perm;
}

TEST(ChannelShuffleGather, ShufflesBecomeOneGatherWithTheirPermutation) {
    const ShuffleCase cases[] = {{2, 8, 2, 3, 5}, {1, 12, 3, 4, 4}, {3, 24, 4, 2, 3}, {2, 116, 2, 3, 3},
                                 {2, 6, 1, 3, 2}, {2, 6, 6, 3, 2},  {1, 15, 5, 1, 1}, {2, 10, 5, 7, 1}};
    for (const ShuffleCase& c : cases) {
        SCOPED_TRACE(c.str());
        auto g = shuffle_graph(c);
        ir::Graph before = *g;
        ir::infer_shapes(before);
        std::vector<int64_t> want = observed_permutation(before, c);

        EXPECT_TRUE(run_pass(*g, channel_shuffle_gather));
        EXPECT_EQ(count_op(*g, OpKind::Reshape), 0);
        EXPECT_EQ(count_op(*g, OpKind::Transpose), 0);
        ASSERT_EQ(count_op(*g, OpKind::Gather), 1);
        const ir::Node& gather = g->nodes()[0];
        ASSERT_EQ(gather.op, OpKind::Gather);
        EXPECT_EQ(gather.name, "shuffle_t");
        EXPECT_EQ(gather.attr<ir::AxisAttrs>().axis, 1);
        ASSERT_EQ(gather.inputs.size(), 2u);
        EXPECT_EQ(gather.inputs[0], g->inputs()[0]);
        ASSERT_TRUE(g->is_constant(gather.inputs[1]));
        const Tensor& idx = *g->value(gather.inputs[1]).constant;
        ASSERT_EQ(idx.dtype(), DType::i64);
        ASSERT_EQ(idx.shape(), (Shape{c.channels}));
        std::vector<int64_t> got(idx.data<int64_t>(), idx.data<int64_t>() + c.channels);
        EXPECT_EQ(got, want);
        EXPECT_EQ(g->nodes()[1].inputs[0], gather.outputs[0]) << "the Relu reads the Gather";

        ir::infer_shapes(*g);
        EXPECT_EQ(g->value(gather.outputs[0]).shape, (Shape{c.n, c.channels, c.h, c.w}));
        expect_same_results(before, *g, random_inputs(before, seed(c.channels * 31 + c.groups)), 0.0);
    }
}

// Two shuffles in a row, the second reading the first's result, and a shuffle whose result is a graph output.
TEST(ChannelShuffleGather, ChainedShufflesAndAnOutputShuffle) {
    const ShuffleCase c{2, 12, 3, 3, 4};
    ir::Builder b("two");
    ir::ValueId x = b.input("x", DType::f32, {c.n, c.channels, c.h, c.w});
    ir::ValueId v = x;
    for (int64_t groups : {3, 4}) {
        ir::ValueId r = b.op(OpKind::Reshape, {v},
                             ir::ReshapeAttrs{std::vector<int64_t>{c.n, groups, c.channels / groups, c.h, c.w}});
        ir::ValueId t = b.op(OpKind::Transpose, {r}, ir::TransposeAttrs{{0, 2, 1, 3, 4}});
        v = b.op(OpKind::Reshape, {t}, ir::ReshapeAttrs{std::vector<int64_t>{c.n, c.channels, c.h, c.w}});
    }
    b.output(v, "y");
    auto g = b.finish();
    ir::Graph before = *g;
    EXPECT_TRUE(run_pass(*g, channel_shuffle_gather));
    ASSERT_EQ(g->nodes().size(), 2u);
    EXPECT_EQ(count_op(*g, OpKind::Gather), 2);
    EXPECT_EQ(g->value(g->outputs()[0]).name, "y");
    EXPECT_EQ(g->producer(g->outputs()[0]), std::optional<size_t>(1));
    expect_same_results(before, *g, random_inputs(before, seed(1)), 0.0);
}

TEST(ChannelShuffleGather, NearMissesAreLeftAlone) {
    const ShuffleCase c{2, 8, 2, 3, 5};
    // Another permutation of the five dims.
    expect_not_applied(*shuffle_graph(c, {0, 2, 1, 4, 3}), channel_shuffle_gather);
    expect_not_applied(*shuffle_graph(c, {0, 1, 2, 3, 4}), channel_shuffle_gather);
    // The result is not [N, C, H, W] again.
    expect_not_applied(*shuffle_graph(c, {0, 2, 1, 3, 4}, {c.n, c.channels, c.h * c.w}), channel_shuffle_gather);
    expect_not_applied(*shuffle_graph(c, {0, 2, 1, 3, 4}, {c.n, c.channels * c.h, c.w, 1}), channel_shuffle_gather);

    // The split view (or the transposed one) is read by another node, or is a graph output.
    for (int reader : {0, 1}) {
        ir::Builder b("shared");
        ir::ValueId x = b.input("x", DType::f32, {c.n, c.channels, c.h, c.w});
        ir::ValueId r = b.op(OpKind::Reshape, {x}, ir::ReshapeAttrs{std::vector<int64_t>{c.n, 2, 4, c.h, c.w}});
        ir::ValueId t = b.op(OpKind::Transpose, {r}, ir::TransposeAttrs{{0, 2, 1, 3, 4}});
        b.output(b.op(OpKind::Reshape, {t}, ir::ReshapeAttrs{std::vector<int64_t>{c.n, c.channels, c.h, c.w}}), "y");
        b.output(reader == 0 ? b.relu(r) : t, "also");
        expect_not_applied(*b.finish(), channel_shuffle_gather);
    }

    // A 5-D split of the spatial dims, [N, C, H, W] -> [N, C, H, a, b], transposed the same way.
    ir::Builder b("spatial");
    ir::ValueId x = b.input("x", DType::f32, {2, 4, 3, 6});
    ir::ValueId r = b.op(OpKind::Reshape, {x}, ir::ReshapeAttrs{std::vector<int64_t>{2, 4, 3, 2, 3}});
    ir::ValueId t = b.op(OpKind::Transpose, {r}, ir::TransposeAttrs{{0, 2, 1, 3, 4}});
    b.output(b.op(OpKind::Reshape, {t}, ir::ReshapeAttrs{std::vector<int64_t>{2, 4, 3, 6}}), "y");
    expect_not_applied(*b.finish(), channel_shuffle_gather);
}

// The real export: every channel shuffle of shufflenet_v2_x1_0 (16, after the default pipeline has folded their
// Shape -> Gather -> Concat shape arithmetic) becomes a Gather; no Transpose or Reshape is left and the logits are the
// same bits as before the pass.
TEST(ChannelShuffleGather, ShuffleNetV2LosesEveryTranspose) {
    STRATA_REQUIRE_SHARED_PATH(model, "models/shufflenet_v2_x1_0.onnx");
    STRATA_REQUIRE_SHARED_PATH(input_path, "models/shufflenet_v2_x1_0.input.npy");
    Tensor input = Tensor::from_npy(input_path).value();
    auto g = frontend::import_onnx_file(model);
    set_batch(*g, input.dim(0));
    run_pipeline(*g, default_pipeline());
    const int shuffles = count_op(*g, OpKind::Transpose);
    EXPECT_EQ(shuffles, 16);
    EXPECT_EQ(count_op(*g, OpKind::Gather), 0);
    ir::Graph before = *g;

    run_pipeline(*g, {{"channel_shuffle_gather", channel_shuffle_gather}, {"remove_unused", remove_unused}});
    EXPECT_EQ(count_op(*g, OpKind::Transpose), 0);
    EXPECT_EQ(count_op(*g, OpKind::Reshape), 0);
    EXPECT_EQ(count_op(*g, OpKind::Gather), shuffles);
    for (const ir::Node& n : g->nodes()) {
        if (n.op != OpKind::Gather) continue;
        EXPECT_EQ(n.attr<ir::AxisAttrs>().axis, 1) << ir::node_label(n);
        EXPECT_EQ(g->value(n.outputs[0]).shape.size(), 4u) << ir::node_label(n);
    }

    const std::string in = g->value(g->inputs()[0]).name;
    auto want = backends::run_reference(before, {{in, input}});
    auto got = backends::run_reference(*g, {{in, input}});
    ASSERT_EQ(got.size(), 1u);
    EXPECT_TRUE(strata::test::same_bits(got.begin()->second, want.at(got.begin()->first)));
}

}  // namespace
}  // namespace strata::passes::test
