// test_depthwise_pdl.cpp: the depthwise kernels launched with programmatic dependent launch (NOTE [programmatic
// dependent launch], backends/cuda/pdl.h). A chain of launches in which each one reads the buffer the one before
// wrote and writes the buffer the one before read, on a stream and captured in a CUDA graph, must give bit for bit
// what the same chain gives launched plainly: a kernel that read or wrote before its pdl_wait() would see (or
// clobber) a half-finished buffer of its neighbour.
#include <cstdlib>
#include <cstring>

#include "backends/cuda/cuda_check.h"
#include "backends/cuda/device.h"
#include "backends/cuda/device_buffer.h"
#include "backends/cuda/pdl.h"
#include "conv_gpu_check.h"
#include "core/check.h"
#include "unverified_scope.h"

namespace strata::test {
namespace {

const char* kTactic = "cuda.conv.depthwise";

struct ChainResult {
    std::vector<uint8_t> bytes;  ///< the last launch's output
    std::string detail;          ///< the kernel's detail(): says whether it launched with PDL
};

/// `launches` launches of the step, ping-ponging between two buffers (x -> y -> x ...), on a stream or as one CUDA
/// graph; PDL as STRATA_PDL says when the kernel is made.
ChainResult run_chain(const ir::Graph& graph, const cuda::StepDesc& desc, int config, int launches, bool pdl,
                      bool in_graph, uint64_t seed) {
    EnvSwitchScope scope("STRATA_PDL", pdl ? "1" : "0");
    const cuda::CudaTactic* tactic = cuda::CudaTacticRegistry::global().find(kTactic);
    STRATA_ASSERT(tactic != nullptr, "no tactic {}", kTactic);
    std::unique_ptr<cuda::CudaKernel> kernel = tactic->make(desc, config);
    const ir::Node& node = graph.nodes()[0];
    std::vector<DeviceTensor> consts;
    std::vector<const void*> const_ptrs(node.inputs.size(), nullptr);
    for (size_t i = 1; i < node.inputs.size(); ++i) {
        if (node.inputs[i] == ir::kNoValue) continue;
        consts.push_back(
            to_device(round_to(*graph.value(node.inputs[i]).constant, desc.inputs[i].dtype), desc.inputs[i]));
        const_ptrs[i] = consts.back().buffer.data();
    }
    const Tensor x0 = round_to(random_tensor(DType::f32, desc.inputs[0].shape, seed), desc.inputs[0].dtype);
    DeviceTensor a = to_device(x0, desc.inputs[0]);
    cuda::DeviceBuffer b(desc.outputs[0].bytes(), "the chain's second buffer");
    STRATA_CUDA_CHECK(cudaMemset(b.data(), 0xFF, b.bytes()), "poisoning the chain's second buffer");
    STRATA_CUDA_CHECK(cudaDeviceSynchronize(), "the chain's uploads");
    cuda::Stream stream;
    auto enqueue = [&] {
        for (int i = 0; i < launches; ++i) {
            cuda::StepBuffers buffers;
            buffers.inputs = const_ptrs;
            buffers.inputs[0] = i % 2 ? b.data() : a.buffer.data();
            buffers.outputs = {i % 2 ? a.buffer.data() : b.data()};
            kernel->launch(buffers, stream.get());
            cuda::check_launch("a depthwise launch of the PDL chain");
        }
    };
    if (in_graph) {
        cudaGraph_t captured = nullptr;
        cudaGraphExec_t exec = nullptr;
        STRATA_CUDA_CHECK(cudaStreamBeginCapture(stream.get(), cudaStreamCaptureModeThreadLocal),
                          "capturing the chain");
        enqueue();
        STRATA_CUDA_CHECK(cudaStreamEndCapture(stream.get(), &captured), "capturing the chain");
        const cudaError_t made = cudaGraphInstantiate(&exec, captured, 0);
        cudaGraphDestroy(captured);
        STRATA_CUDA_CHECK(made, "instantiating the chain's graph");
        STRATA_CUDA_CHECK(cudaGraphLaunch(exec, stream.get()), "launching the chain's graph");
        stream.synchronize("the chain's graph");
        cudaGraphExecDestroy(exec);
    } else {
        enqueue();
        stream.synchronize("the chain");
    }
    ChainResult r;
    r.detail = kernel->detail();
    r.bytes.resize(desc.outputs[0].bytes());
    const void* last = launches % 2 ? b.data() : a.buffer.data();
    STRATA_CUDA_CHECK(cudaMemcpy(r.bytes.data(), last, r.bytes.size(), cudaMemcpyDeviceToHost), "reading the chain");
    return r;
}

struct PdlCase {
    GpuConvCase conv;
    DType dtype;
    Layout layout;
    int config;  ///< 0 = the selector's tile; 3 = a forced strip; 9 / 11 = staged, one block per tile / persistent
};

TEST(GpuDepthwisePdl, ChainsGiveThePlainLaunchesBitForBit) {
    STRATA_REQUIRE_GPU();
    const bool pdl_device = cuda::device_info(0).compute_capability() >= 90;
    auto dw = [](int64_t n, int64_t c, int64_t hw, int64_t k) {
        const int64_t p = k / 2;
        return GpuConvCase{n, c, hw, hw, c, k, k, 1, 1, 1, 1, p, p, p, p, c, true, ir::UnaryKind::Relu6};
    };
    // Batch 1 (one wave: the next launch's blocks can be resident while this one runs) and a multi-wave batch.
    const PdlCase cases[] = {
        {dw(1, 64, 28, 3), DType::f16, Layout::nhwc, 0},   {dw(16, 64, 56, 3), DType::f16, Layout::nhwc, 0},
        {dw(2, 96, 29, 5), DType::f32, Layout::nhwc, 3},   {dw(1, 32, 40, 3), DType::f16, Layout::nchw, 0},
        {dw(8, 48, 33, 7), DType::bf16, Layout::nchw, 0},  {dw(1, 128, 14, 3), DType::f16, Layout::nhwc, 9},
        {dw(16, 64, 56, 5), DType::f16, Layout::nhwc, 11}, {dw(4, 72, 30, 3), DType::bf16, Layout::nhwc, 11},
    };
    uint64_t seed = test_seed() + 7000;
    for (const PdlCase& pc : cases) {
        seed += 10;
        auto graph = conv_case_graph(pc.conv, seed);
        const cuda::StepDesc desc = make_desc(*graph, graph->nodes()[0], pc.dtype, pc.layout);
        const std::string what = fmt::format("{} config {} {} {}: {} (seed {})", kTactic, pc.config,
                                             dtype_name(pc.dtype), layout_name(pc.layout), pc.conv.str(), seed);
        const cuda::CudaTactic* tactic = cuda::CudaTacticRegistry::global().find(kTactic);
        ASSERT_NE(tactic, nullptr);
        ASSERT_EQ(tactic->can_implement(desc, pc.config), "") << what;
        constexpr int kLaunches = 24;
        const ChainResult plain = run_chain(*graph, desc, pc.config, kLaunches, false, false, seed);
        EXPECT_EQ(plain.detail.find("pdl"), std::string::npos) << what << ": " << plain.detail;
        for (bool in_graph : {false, true}) {
            const ChainResult pdl = run_chain(*graph, desc, pc.config, kLaunches, true, in_graph, seed);
            if (pdl_device) {
                EXPECT_NE(pdl.detail.find("pdl"), std::string::npos) << what << ": " << pdl.detail;
            }
            size_t differ = 0, first = 0;
            for (size_t i = 0; i < plain.bytes.size(); ++i)
                if (plain.bytes[i] != pdl.bytes[i] && differ++ == 0) first = i;
            EXPECT_EQ(differ, 0u) << what << (in_graph ? " in a graph" : " on a stream") << ": " << differ
                                  << " bytes differ from the plain chain, the first at byte " << first;
        }
    }
}

// The policy: off unless STRATA_PDL=1 asks for it (pdl.h says why), and never before sm_90 (no griddepcontrol there).
TEST(GpuDepthwisePdl, PolicyNeedsTheSwitchAndSm90) {
    unsetenv("STRATA_PDL");
    EXPECT_FALSE(cuda::use_pdl(90));
    {
        EnvSwitchScope off("STRATA_PDL", "0");
        EXPECT_FALSE(cuda::use_pdl(90));
    }
    EnvSwitchScope on("STRATA_PDL", "1");
    EXPECT_TRUE(cuda::use_pdl(90));
    EXPECT_TRUE(cuda::use_pdl(100));
    EXPECT_FALSE(cuda::use_pdl(89));
    EXPECT_FALSE(cuda::use_pdl(80));
}

}  // namespace
}  // namespace strata::test
