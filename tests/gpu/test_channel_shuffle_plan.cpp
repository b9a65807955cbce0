// test_channel_shuffle_plan.cpp: shufflenet_v2_x1_0's GPU plan in fp16 (nhwc): every channel shuffle is one Gather
// step on the whole-channels fast path, no layout Cast runs inside the network (only the input's and the logits'),
// and the channel splits and Concats read and write nhwc. The logits themselves are test_models_gpu.cpp's.
#include <gtest/gtest.h>

#include "build/plan.h"
#include "frontend/onnx/onnx_import.h"
#include "gpu_support.h"
#include "test_support.h"

namespace strata {
namespace {

TEST(GpuChannelShuffle, ShuffleNetPlanHasOneGatherPerShuffleAndNoInnerCasts) {
    STRATA_REQUIRE_GPU();
    STRATA_REQUIRE_SHARED_PATH(onnx, "models/shufflenet_v2_x1_0.onnx");
    auto graph = frontend::import_onnx_file(onnx);
    BuildOptions options{.device = Device::cuda(), .precision = Precision::fp16, .batch = 2, .timing_cache = test::test_timing_cache()};
    const build::Plan plan = build::build_plan(*graph, options);
    const ir::Graph& g = plan.graph;
    ASSERT_EQ(plan.storage.layout, Layout::nhwc);
    int gathers = 0, casts = 0;
    for (const build::Step& step : plan.steps) {
        const ir::Node& node = g.nodes()[step.node];
        EXPECT_NE(node.op, ir::OpKind::Transpose) << ir::node_label(node);
        EXPECT_NE(node.op, ir::OpKind::Reshape) << ir::node_label(node);
        if (node.op == ir::OpKind::Cast) {
            ++casts;
            bool edge = g.is_graph_input(node.inputs[0]) || g.is_graph_output(node.outputs[0]);
            EXPECT_TRUE(edge) << "a Cast inside the network: " << ir::node_label(node);
        }
        if (node.op == ir::OpKind::Gather) {
            ++gathers;
            EXPECT_EQ(step.device_tactic, "cuda.gather");
            EXPECT_EQ(node.attr<ir::AxisAttrs>().axis, 1);
        }
        if (node.op == ir::OpKind::Gather || node.op == ir::OpKind::Slice || node.op == ir::OpKind::Concat) {
            for (ir::ValueId v : node.inputs) {
                if (!g.is_constant(v)) {
                    EXPECT_EQ(plan.storage.layouts[v], Layout::nhwc) << ir::node_label(node);
                }
            }
            EXPECT_EQ(plan.storage.layouts[node.outputs[0]], Layout::nhwc) << ir::node_label(node);
        }
    }
    EXPECT_EQ(gathers, 16);
    EXPECT_EQ(casts, 1) << "the input's only: the classifier writes the fp32 logits itself (NOTE [fp32 outputs])";
}

}  // namespace
}  // namespace strata
