// test_gemm_problem.cpp: the host-side reductions the GEMM and ConvTranspose tactics rest on (no GPU needed):
// MatMul's batch broadcast strides and folding, Gemm's C broadcast, FullyConnected's form, the refusal of
// channels-last rank-4 operands, and ConvTranspose's leading pads derived from output_shape.
#include "backends/cuda/kernels/conv_transpose/conv_transpose.h"
#include "backends/cuda/kernels/gemm/gemm_problem.h"
#include "backends/cuda/param_forms.h"
#include "libs_checks.h"

namespace strata::test {
namespace {

// The StepDesc the builder would make for node 0 (as gpu_support's make_desc, without a device).
cuda::StepDesc host_desc(const ir::Graph& graph, DType dtype, Layout layout) {
    const ir::Node& node = graph.nodes().at(0);
    cuda::StepDesc desc;
    desc.node = &node;
    desc.name = node.name;
    for (size_t i = 0; i < node.inputs.size(); ++i)
        desc.inputs.push_back(
            cuda::value_desc(graph.value(node.inputs[i]), dtype, layout, cuda::keeps_float32(node, i)));
    for (ir::ValueId v : node.outputs) desc.outputs.push_back(cuda::value_desc(graph.value(v), dtype, layout));
    return desc;
}

cuda::GemmProblem problem_of(const ir::Graph& graph, Layout layout = Layout::nchw) {
    cuda::GemmProblem p;
    std::string why = cuda::gemm_problem(host_desc(graph, DType::f16, layout), p);
    EXPECT_TRUE(why.empty()) << why;
    return p;
}

TEST(GemmProblem, MatMulTwoSidedBroadcastKeepsPerDimStrides) {
    auto p = problem_of(*MatMulCase{{2, 1, 5, 7}, {1, 3, 7, 4}}.graph());
    ASSERT_EQ(p.batch_rank, 2);
    EXPECT_EQ(p.batch_dims[0], 2);
    EXPECT_EQ(p.batch_dims[1], 3);
    EXPECT_EQ(p.a_batch_stride[0], 35);
    EXPECT_EQ(p.a_batch_stride[1], 0);
    EXPECT_EQ(p.b_batch_stride[0], 0);
    EXPECT_EQ(p.b_batch_stride[1], 28);
    EXPECT_FALSE(p.linear_batch_stride(false).has_value());
    EXPECT_FALSE(p.linear_batch_stride(true).has_value());
    EXPECT_EQ(p.dtype, DType::f16);
}

TEST(GemmProblem, MatMulWithUnbatchedBFoldsIntoRows) {
    auto p = problem_of(*MatMulCase{{2, 3, 5, 7}, {7, 4}}.graph());
    EXPECT_EQ(p.batch_rank, 0);
    EXPECT_EQ(p.m, 30);
    EXPECT_EQ(p.n, 4);
    EXPECT_EQ(p.k, 7);
}

TEST(GemmProblem, MatMulBroadcastAIsOneStridedBatch) {
    auto p = problem_of(*MatMulCase{{5, 7}, {2, 3, 7, 4}}.graph());
    EXPECT_EQ(p.batch(), 6);
    EXPECT_EQ(p.linear_batch_stride(false), std::optional<int64_t>(0));
    EXPECT_EQ(p.linear_batch_stride(true), std::optional<int64_t>(28));
    auto q = problem_of(*MatMulCase{{3, 5, 7}, {3, 7, 6}}.graph());
    EXPECT_EQ(q.linear_batch_stride(false), std::optional<int64_t>(35));
    EXPECT_EQ(q.linear_batch_stride(true), std::optional<int64_t>(42));
}

TEST(GemmProblem, MatMulOneDimensionalOperands) {
    auto a = problem_of(*MatMulCase{{7}, {7, 3}}.graph());
    EXPECT_EQ(a.m, 1);
    EXPECT_EQ(a.n, 3);
    auto b = problem_of(*MatMulCase{{4, 7}, {7}}.graph());
    EXPECT_EQ(b.m, 4);
    EXPECT_EQ(b.n, 1);
    auto dot = problem_of(*MatMulCase{{7}, {7}}.graph());
    EXPECT_EQ(dot.m * dot.n, 1);
    EXPECT_EQ(dot.k, 7);
}

TEST(GemmProblem, GemmCBroadcastStrides) {
    auto row = problem_of(*GemmCase{13, 4, 6, true, false, 0.5f, 2.0f, Shape{4}}.graph());
    EXPECT_EQ(row.c, cuda::GemmC::broadcast);
    EXPECT_EQ(row.c_row, 0);
    EXPECT_EQ(row.c_col, 1);
    EXPECT_TRUE(row.trans_a);
    EXPECT_EQ(row.m, 13);
    EXPECT_EQ(row.k, 6);
    auto col = problem_of(*GemmCase{17, 65, 33, false, true, 1.5f, 0.25f, Shape{17, 1}}.graph());
    EXPECT_EQ(col.c, cuda::GemmC::broadcast);
    EXPECT_EQ(col.c_row, 1);
    EXPECT_EQ(col.c_col, 0);
    EXPECT_EQ(col.beta, 0.25f);
    auto full = problem_of(*GemmCase{5, 7, 9, false, false, 1.0f, 1.0f, Shape{5, 7}}.graph());
    EXPECT_EQ(full.c, cuda::GemmC::full);
    EXPECT_EQ(full.c_row, 7);
    EXPECT_EQ(full.c_col, 1);
    auto scalar = problem_of(*GemmCase{8, 8, 8, false, false, 1.0f, 1.0f, Shape{}}.graph());
    EXPECT_EQ(scalar.c, cuda::GemmC::broadcast);
    EXPECT_EQ(scalar.c_row, 0);
    EXPECT_EQ(scalar.c_col, 0);
}

TEST(GemmProblem, FullyConnectedIsXTimesWTransposed) {
    auto p = problem_of(*FcCase{3, 64, 100, true, ir::UnaryKind::Relu}.graph());
    EXPECT_EQ(p.m, 3);
    EXPECT_EQ(p.n, 100);
    EXPECT_EQ(p.k, 64);
    EXPECT_TRUE(p.trans_b);
    EXPECT_FALSE(p.trans_a);
    EXPECT_TRUE(p.has_bias);
    EXPECT_EQ(p.act.kind, static_cast<int>(ir::UnaryKind::Relu));
}

// NOTE [fp32 outputs]: a network's logits leave its last GEMM in float32 from fp16/bf16 operands; nothing else mixes.
TEST(GemmProblem, SixteenBitOperandsMayGiveAFloat32Result) {
    auto graph = FcCase{2, 64, 10, true}.graph();
    for (DType in : {DType::f16, DType::bf16}) {
        cuda::StepDesc desc = host_desc(*graph, in, Layout::rowmajor);
        desc.outputs[0].dtype = DType::f32;
        cuda::GemmProblem p;
        EXPECT_EQ(cuda::gemm_problem(desc, p), "") << dtype_name(in);
        EXPECT_EQ(p.dtype, in);
        EXPECT_EQ(p.out_dtype, DType::f32);
        EXPECT_NE(p.str().find("->float32"), std::string::npos) << p.str();
    }
    auto refused = [&](DType a, DType b, DType y) {
        cuda::StepDesc desc = host_desc(*graph, a, Layout::rowmajor);
        desc.inputs[1].dtype = b;
        desc.outputs[0].dtype = y;
        cuda::GemmProblem p;
        return cuda::gemm_problem(desc, p).find("dtypes differ") != std::string::npos;
    };
    EXPECT_TRUE(refused(DType::f16, DType::bf16, DType::f32));  // operands differ
    EXPECT_TRUE(refused(DType::f32, DType::f32, DType::f16));   // a narrowed result
    EXPECT_TRUE(refused(DType::f16, DType::f16, DType::bf16));  // another 16-bit type
    auto same = problem_of(*graph);
    EXPECT_EQ(same.out_dtype, DType::f16);
}

TEST(GemmProblem, ChannelsLastRank4OperandIsRefused) {
    auto graph = MatMulCase{{2, 3, 5, 7}, {2, 3, 7, 4}}.graph();
    cuda::GemmProblem p;
    std::string why = cuda::gemm_problem(host_desc(*graph, DType::f32, Layout::nhwc), p);
    EXPECT_NE(why.find("channels-last"), std::string::npos) << why;
}

TEST(ConvTransposeParams, OutputShapeDerivesLeadingPads) {
    // in 4, kernel 3, stride 2: the full output is 9; output_shape 8 x 7 leaves total pads 1 and 2, the larger half
    // first (auto_pad not SAME_UPPER), so the leading pads are 1 and 1.
    ConvTransposeCase cc{1, 3, 4, 4, 2, 3, 3, 2, 2, 1, 1, 0, 0, 0, 0, 0, 0, 1, true, {8, 7}};
    auto graph = cc.graph();
    auto desc = host_desc(*graph, DType::f32, Layout::nhwc);
    ASSERT_EQ(cuda::conv_transpose_unsupported(desc), "");
    auto p = cuda::conv_transpose_params(desc);
    EXPECT_EQ(p.p, 8);
    EXPECT_EQ(p.q, 7);
    EXPECT_EQ(p.pad_h, 1);
    EXPECT_EQ(p.pad_w, 1);
    EXPECT_TRUE(p.nhwc);
    EXPECT_EQ(p.m, 2);
    EXPECT_EQ(p.mg, 2);
}

TEST(ConvTransposeParams, OneDimensionalIsHeightOne) {
    ConvTransposeCase cc{2, 5, 0, 9, 3, 1, 3, 1, 2, 1, 1, 0, 1, 0, 1, 0, 1, 1, true};
    auto graph = cc.graph();
    auto p = cuda::conv_transpose_params(host_desc(*graph, DType::f32, Layout::nhwc));
    EXPECT_EQ(p.h, 1);
    EXPECT_EQ(p.r, 1);
    EXPECT_EQ(p.p, 1);
    EXPECT_EQ(p.w, 9);
    EXPECT_EQ(p.q, 2 * 8 + 1 + 2 + 1 - 2);  // stride*(in-1) + output_padding + kernel - pads
    EXPECT_EQ(p.pad_w, 1);
    EXPECT_EQ(p.stride_w, 2);
    EXPECT_FALSE(p.nhwc);
}

// The GPU tests' shapes, checked where there is no GPU: each is accepted by strata's own tactic (so a GPU run that
// refuses one is a regression, not a table error).
TEST(GemmProblem, OwnTacticsAcceptEveryTestShape) {
    const auto& registry = cuda::CudaTacticRegistry::global();
    auto accepts = [&](const ir::Graph& graph, const char* tactic, const std::string& what) {
        const cuda::CudaTactic* t = registry.find(tactic);
        ASSERT_NE(t, nullptr) << tactic;
        for (DType dt : {DType::f32, DType::f16, DType::bf16})
            EXPECT_EQ(t->can_implement(host_desc(graph, dt, Layout::nchw), 0), "") << tactic << " " << what;
    };
    for (const auto& c : matmul_cases()) accepts(*c.graph(), "cuda.matmul", c.str());
    for (const auto& c : gemm_cases()) accepts(*c.graph(), "cuda.gemm", c.str());
    for (const auto& c : fc_cases()) accepts(*c.graph(), "cuda.gemm.fc", c.str());
}

}  // namespace
}  // namespace strata::test
