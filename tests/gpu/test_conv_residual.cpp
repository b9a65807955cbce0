// test_conv_residual.cpp: the fused residual of every conv tactic, y = relu(conv(x) + bias + z), ahead of the IR:
// Conv has no 4th input yet, so the test builds the StepDesc with one (as the builder will) and checks the kernel
// against the reference conv plus z, with the ReLU applied after the sum (not before it).
#include <algorithm>

#include "backends/cuda/cuda_check.h"
#include "backends/cuda/cuda_tactic.h"
#include "backends/cuda/device.h"
#include "backends/cuda/kernels/conv/implicit_gemm.h"
#include "backends/cuda/param_forms.h"
#include "backends/reference/reference.h"
#include "conv_gpu_check.h"

namespace strata::test {
namespace {

void expect_residual_matches(GpuConvCase cc, const std::string& tactic_name, int config, DType dtype, Layout layout,
                             uint64_t seed) {
    const std::string what = fmt::format("{} config {} {} {} residual + Relu: {} (seed {})", tactic_name, config,
                                         dtype_name(dtype), layout_name(layout), cc.str(), seed);
    cc.act = std::nullopt;
    auto plain = conv_case_graph(cc, seed);  // the reference: conv + bias, no activation
    cc.act = ir::UnaryKind::Relu;
    auto fused = conv_case_graph(cc, seed);  // the same weights; its node carries the activation
    const ir::Node& node = fused->nodes()[0];
    const cuda::CudaTactic* tactic = cuda::CudaTacticRegistry::global().find(tactic_name);
    ASSERT_NE(tactic, nullptr) << what;

    cuda::StepDesc desc;
    desc.node = &node;
    desc.name = node.name;
    desc.device = &cuda::device_info(0);
    std::vector<Tensor> host;
    for (size_t i = 0; i < node.inputs.size(); ++i) {
        const ir::Value& v = fused->value(node.inputs[i]);
        desc.inputs.push_back(cuda::value_desc(v, dtype, layout, cuda::keeps_float32(node, i)));
        Tensor t = v.constant ? *v.constant : random_tensor(v.dtype, v.shape, seed + 31 * i);
        host.push_back(round_to(t, desc.inputs.back().dtype));
    }
    ASSERT_EQ(host.size(), 3u) << what << ": the case must have a bias";
    desc.outputs.push_back(cuda::value_desc(fused->value(node.outputs[0]), dtype, layout));
    desc.inputs.push_back(desc.outputs[0]);  // input 3: the residual, in the output's dtype and layout
    Tensor z = round_to(random_tensor(DType::f32, desc.outputs[0].shape, seed + 97), dtype);
    ASSERT_EQ(tactic->can_implement ? tactic->can_implement(desc, config) : "", "") << what;

    std::vector<DeviceTensor> dev;
    cuda::StepBuffers buffers;
    for (size_t i = 0; i < 4; ++i) {
        dev.push_back(to_device(i < 3 ? host[i] : z, desc.inputs[i]));
        buffers.inputs.push_back(dev.back().buffer.data());
    }
    DeviceTensor y{cuda::DeviceBuffer(desc.outputs[0].bytes(), "a test output"), desc.outputs[0]};
    STRATA_CUDA_CHECK(cudaMemset(y.buffer.data(), 0xFF, desc.outputs[0].bytes()), "poisoning an output");
    buffers.outputs.push_back(y.buffer.data());
    auto kernel = tactic->make(desc, config);
    cuda::DeviceBuffer workspace(kernel->workspace_bytes(), "a test workspace");
    buffers.workspace = workspace.data();
    kernel->launch(buffers, nullptr);
    cuda::check_launch(tactic_name);
    STRATA_CUDA_CHECK(cudaDeviceSynchronize(), tactic_name);

    Tensor want = backends::evaluate_node(*plain, plain->nodes()[0], host).at(0);
    float* wv = static_cast<float*>(want.raw());
    const float* zv = static_cast<const float*>(z.raw());
    for (int64_t i = 0; i < want.numel(); ++i) wv[i] = std::max(wv[i] + zv[i], 0.0f);
    Tensor got = from_device(y);
    EXPECT_LE(max_rel_error(got, want), gpu_tolerance(dtype)) << what;
}

// n c h w m | kh kw sh sw dh dw | pt pl pb pr | group bias
const GpuConvCase kResidualCase{2, 16, 11, 9, 24, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1, true};
const GpuConvCase kStemResidualCase{1, 3, 21, 19, 12, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 1, true};

TEST(GpuConvResidual, DirectAddsResidualBeforeActivation) {
    STRATA_REQUIRE_GPU();
    uint64_t seed = test_seed();
    for (DType dt : {DType::f32, DType::f16, DType::bf16})
        for (Layout layout : {Layout::nchw, Layout::nhwc})
            expect_residual_matches(kResidualCase, "cuda.conv.direct", 0, dt, layout, seed += 10);
}

TEST(GpuConvResidual, StemAddsResidualBeforeActivation) {
    STRATA_REQUIRE_GPU();
    uint64_t seed = test_seed() + 1000;
    for (DType dt : {DType::f32, DType::f16, DType::bf16})
        for (Layout layout : {Layout::nchw, Layout::nhwc})
            expect_residual_matches(kStemResidualCase, "cuda.conv.direct_stem", 0, dt, layout, seed += 10);
}

TEST(GpuConvResidual, ImplicitGemmAddsResidualBeforeActivation) {
    STRATA_REQUIRE_GPU();
    uint64_t seed = test_seed() + 2000;
    for (int config = 0; config < cuda::kImplicitGemmNumConfigs; ++config)
        for (DType dt : {DType::f16, DType::bf16})
            expect_residual_matches(kResidualCase, "cuda.conv.implicit_gemm", config, dt, Layout::nhwc, seed += 10);
}

}  // namespace
}  // namespace strata::test
