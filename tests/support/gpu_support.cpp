// gpu_support.cpp: the GPU test harness (see gpu_support.h).
#include "gpu_support.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>

#include "backends/cuda/cuda_check.h"
#include "backends/cuda/cuda_tactic.h"
#include "backends/cuda/device.h"
#include "backends/cuda/host_pack.h"
#include "backends/cuda/param_forms.h"
#include "backends/reference/reference.h"
#include "test_support.h"

namespace strata::test {

bool gpu_available() {
    return cuda::device_count() > 0;
}

std::string test_timing_cache() {
    const char* env = std::getenv("STRATA_TEST_TIMING_CACHE");
    return env && *env ? env : "none";
}

DeviceTensor to_device(const Tensor& logical, const cuda::TensorDesc& desc) {
    DeviceTensor t{cuda::DeviceBuffer(std::max<size_t>(desc.bytes(), 1), "a test tensor"), desc};
    auto bytes = cuda::pack_host(logical, desc);
    STRATA_CUDA_CHECK(cudaMemcpy(t.buffer.data(), bytes.data(), bytes.size(), cudaMemcpyHostToDevice), "test upload");
    return t;
}

Tensor from_device(const DeviceTensor& t) {
    std::vector<uint8_t> bytes(t.desc.bytes());
    STRATA_CUDA_CHECK(cudaMemcpy(bytes.data(), t.buffer.data(), bytes.size(), cudaMemcpyDeviceToHost), "test download");
    return cuda::unpack_host(bytes.data(), t.desc);
}

Tensor round_to(const Tensor& t, DType dtype) {
    if (t.dtype() != DType::f32 || dtype == DType::f32 || (dtype != DType::f16 && dtype != DType::bf16)) return t;
    cuda::TensorDesc desc{dtype, Layout::rowmajor, t.shape()};
    auto bytes = cuda::pack_host(t, desc);
    return cuda::unpack_host(bytes.data(), desc);
}

cuda::StepDesc make_desc(const ir::Graph& graph, const ir::Node& node, DType dtype, Layout layout) {
    cuda::StepDesc desc;
    desc.node = &node;
    desc.name = node.name;
    desc.device = &cuda::device_info(0);
    for (size_t i = 0; i < node.inputs.size(); ++i) {
        if (node.inputs[i] == ir::kNoValue) {
            desc.inputs.push_back(cuda::TensorDesc{DType::f32, Layout::rowmajor, {}, false});
            continue;
        }
        desc.inputs.push_back(
            cuda::value_desc(graph.value(node.inputs[i]), dtype, layout, cuda::keeps_float32(node, i)));
    }
    for (ir::ValueId v : node.outputs) desc.outputs.push_back(cuda::value_desc(graph.value(v), dtype, layout));
    return desc;
}

namespace {

int64_t count_unwritten(const Tensor& got, const Tensor& want) {
    if (got.dtype() != DType::f32) return 0;
    const float* g = static_cast<const float*>(got.raw());
    const float* w = static_cast<const float*>(want.raw());
    int64_t n = 0;
    for (int64_t i = 0; i < got.numel(); ++i) n += std::isnan(g[i]) && !std::isnan(w[i]);
    return n;
}

}  // namespace

TacticRun run_tactic(const ir::Graph& graph, size_t node_index, const std::string& tactic_name, int config, DType dtype,
                     Layout layout, uint64_t seed, double lo, double hi, std::optional<DType> output_dtype) {
    const ir::Node& node = graph.nodes().at(node_index);
    const cuda::CudaTactic* tactic = cuda::CudaTacticRegistry::global().find(tactic_name);
    EXPECT_NE(tactic, nullptr) << "no CUDA tactic named " << tactic_name;
    TacticRun result;
    if (!tactic) return result;
    cuda::StepDesc desc = make_desc(graph, node, dtype, layout);
    if (output_dtype)
        for (cuda::TensorDesc& d : desc.outputs)
            if (d.present && is_float_dtype(d.dtype)) d.dtype = *output_dtype;
    if (tactic->can_implement) result.refused = tactic->can_implement(desc, config);
    if (!result.refused.empty()) return result;

    // Inputs: random (graph inputs) or the constant, rounded to what the device will hold.
    std::vector<Tensor> host_inputs;
    std::vector<DeviceTensor> dev_inputs;
    cuda::StepBuffers buffers;
    for (size_t i = 0; i < node.inputs.size(); ++i) {
        if (!desc.inputs[i].present) {
            host_inputs.emplace_back();
            buffers.inputs.push_back(nullptr);
            continue;
        }
        const ir::Value& v = graph.value(node.inputs[i]);
        Tensor t = v.constant ? *v.constant : random_tensor(v.dtype, v.shape, seed + 7919 * i, lo, hi);
        t = round_to(t, desc.inputs[i].dtype);
        dev_inputs.push_back(to_device(t, desc.inputs[i]));
        buffers.inputs.push_back(dev_inputs.back().buffer.data());
        host_inputs.push_back(std::move(t));
    }
    std::vector<DeviceTensor> dev_outputs;
    for (const auto& od : desc.outputs) {
        dev_outputs.push_back({cuda::DeviceBuffer(std::max<size_t>(od.bytes(), 1), "a test output"), od});
        STRATA_CUDA_CHECK(cudaMemset(dev_outputs.back().buffer.data(), 0xFF, od.bytes()), "poisoning an output");
        buffers.outputs.push_back(dev_outputs.back().buffer.data());
    }
    auto kernel = tactic->make(desc, config);
    // What is about to run (for a library: its algorithm, e.g. cuBLASLt's split-K scheme, whose in-place reduction
    // keeps counters in the workspace, which this test does not zero).
    if (test_trace())
        std::fprintf(stderr, "[trace]   %s config %d: %s\n", tactic_name.c_str(), config, kernel->detail().c_str());
    cuda::DeviceBuffer workspace(kernel->workspace_bytes(), "a test workspace");
    buffers.workspace = workspace.data();
    kernel->launch(buffers, nullptr);
    cuda::check_launch(tactic_name);
    STRATA_CUDA_CHECK(cudaDeviceSynchronize(), tactic_name);

    std::vector<Tensor> want = backends::evaluate_node(graph, node, host_inputs);
    result.ran = true;
    for (size_t o = 0; o < want.size(); ++o) {
        Tensor got = from_device(dev_outputs[o]);
        if (got.dtype() == DType::f32 && want[o].dtype() == DType::f32) {
            result.max_rel_error = std::max(result.max_rel_error, max_rel_error(got, want[o]));
            result.unwritten += count_unwritten(got, want[o]);
        } else {
            bool same = got.nbytes() == want[o].nbytes() && std::memcmp(got.raw(), want[o].raw(), got.nbytes()) == 0;
            if (!same) result.max_rel_error = std::numeric_limits<double>::infinity();
        }
    }
    return result;
}

}  // namespace strata::test
