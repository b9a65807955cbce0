// pdl_chain.h: a step launched many times in a chain, with and without programmatic dependent launch (NOTE
// [programmatic dependent launch], backends/cuda/pdl.h). Each launch reads the buffer the one before wrote and writes
// the buffer the one before read, on a stream or captured in a CUDA graph; with PDL the result must be bit for bit
// the plain chain's: a kernel that read or wrote before its pdl_wait() would see (or clobber) a half-finished buffer
// of its neighbour.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "backends/cuda/cuda_check.h"
#include "backends/cuda/device_buffer.h"
#include "conv_gpu_check.h"
#include "core/check.h"
#include "unverified_scope.h"

namespace strata::test {

struct ChainResult {
    std::vector<uint8_t> bytes;  ///< the last launch's output
    std::string detail;          ///< the kernel's detail(): says whether it launched with PDL
};

/// `launches` launches of the step, ping-ponging between two buffers (x -> y -> x ...), on a stream or as one CUDA
/// graph; PDL as STRATA_PDL says when the kernel is made.
inline ChainResult run_chain(const ir::Graph& graph, const cuda::StepDesc& desc, const char* tactic_name, int config,
                             int launches, bool pdl, bool in_graph, uint64_t seed) {
    EnvSwitchScope scope("STRATA_PDL", pdl ? "1" : "0");
    const cuda::CudaTactic* tactic = cuda::CudaTacticRegistry::global().find(tactic_name);
    STRATA_ASSERT(tactic != nullptr, "no tactic {}", tactic_name);
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
            cuda::check_launch("a launch of the PDL chain");
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

/// Compares the plain chain of `launches` with the PDL chain on a stream and in a graph (bit for bit), and checks
/// that the kernel says in its detail() whether it launched with PDL (`pdl_device`: sm_90 or newer).
inline void expect_pdl_chain_matches(const ir::Graph& graph, const cuda::StepDesc& desc, const char* tactic_name,
                                     int config, bool pdl_device, uint64_t seed, const std::string& what) {
    constexpr int kLaunches = 24;
    const ChainResult plain = run_chain(graph, desc, tactic_name, config, kLaunches, false, false, seed);
    EXPECT_EQ(plain.detail.find("pdl"), std::string::npos) << what << ": " << plain.detail;
    for (bool in_graph : {false, true}) {
        const ChainResult pdl = run_chain(graph, desc, tactic_name, config, kLaunches, true, in_graph, seed);
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

}  // namespace strata::test
