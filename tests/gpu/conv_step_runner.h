// conv_step_runner.h: runs one conv tactic on a StepDesc the test builds itself, for what run_tactic() cannot
// express: TF32 (run_tactic leaves allow_tf32 off) and a residual whose activation must come after the sum (the
// reference here is the plain conv, plus z, then ReLU). The checks are run_tactic's: reference backend on the
// same rounded inputs, poisoned outputs.
#pragma once

#include <algorithm>
#include <cmath>

#include "backends/cuda/cuda_check.h"
#include "backends/cuda/cuda_tactic.h"
#include "backends/cuda/device.h"
#include "backends/cuda/param_forms.h"
#include "backends/reference/reference.h"
#include "conv_gpu_check.h"
#include "core/check.h"

namespace strata::test {

struct ConvStepOptions {
    bool residual = false;    ///< add input 3 = z; the case's activation becomes ReLU: y = relu(conv + bias + z)
    bool allow_tf32 = false;  ///< StepDesc::allow_tf32
};

struct ConvStepResult {
    std::string refused;  ///< can_implement's reason; nothing ran when set
    double max_rel_error = 0;
    int64_t unwritten = 0;
};

/// Runs node 0 of `fused` (a one-node graph, shapes inferred) with the tactic; the reference runs node 0 of
/// `plain` (the same node without the activation when opt.residual, else the same graph) on the same inputs.
inline ConvStepResult run_step(const std::shared_ptr<ir::Graph>& fused, const std::shared_ptr<ir::Graph>& plain,
                               const std::string& tactic_name, int config, DType dtype, Layout layout, uint64_t seed,
                               ConvStepOptions opt) {
    const ir::Node& node = fused->nodes()[0];
    const cuda::CudaTactic* tactic = cuda::CudaTacticRegistry::global().find(tactic_name);
    STRATA_ASSERT(tactic != nullptr, "no CUDA tactic named {}", tactic_name);

    cuda::StepDesc desc;
    desc.node = &node;
    desc.name = node.name;
    desc.device = &cuda::device_info(0);
    desc.allow_tf32 = opt.allow_tf32;
    std::vector<Tensor> host;
    for (size_t i = 0; i < node.inputs.size(); ++i) {
        if (node.inputs[i] == ir::kNoValue) {
            desc.inputs.push_back(cuda::TensorDesc{DType::f32, Layout::rowmajor, {}, false});
            host.emplace_back();
            continue;
        }
        const ir::Value& v = fused->value(node.inputs[i]);
        desc.inputs.push_back(cuda::value_desc(v, dtype, layout, cuda::keeps_float32(node, i)));
        Tensor t = v.constant ? *v.constant : random_tensor(v.dtype, v.shape, seed + 31 * i);
        host.push_back(round_to(t, desc.inputs.back().dtype));
    }
    desc.outputs.push_back(cuda::value_desc(fused->value(node.outputs[0]), dtype, layout));
    Tensor z;
    if (opt.residual) {
        while (desc.inputs.size() < 3) desc.inputs.push_back(cuda::TensorDesc{DType::f32, Layout::rowmajor, {}, false});
        desc.inputs.push_back(desc.outputs[0]);  // input 3: in the output's dtype and layout
        z = round_to(random_tensor(DType::f32, desc.outputs[0].shape, seed + 97), dtype);
    }
    ConvStepResult result;
    if (tactic->can_implement) result.refused = tactic->can_implement(desc, config);
    if (!result.refused.empty()) return result;

    std::vector<DeviceTensor> dev;
    cuda::StepBuffers buffers;
    for (size_t i = 0; i < desc.inputs.size(); ++i) {
        if (!desc.inputs[i].present) {
            buffers.inputs.push_back(nullptr);
            continue;
        }
        dev.push_back(to_device(i < host.size() ? host[i] : z, desc.inputs[i]));
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
    if (opt.residual) {
        float* wv = static_cast<float*>(want.raw());
        const float* zv = static_cast<const float*>(z.raw());
        for (int64_t i = 0; i < want.numel(); ++i) wv[i] = std::max(wv[i] + zv[i], 0.0f);
    }
    Tensor got = from_device(y);
    result.max_rel_error = max_rel_error(got, want);
    const float* g = static_cast<const float*>(got.raw());
    for (int64_t i = 0; i < got.numel(); ++i) result.unwritten += std::isnan(g[i]);
    return result;
}

inline ConvStepResult run_conv_step(GpuConvCase cc, const std::string& tactic_name, int config, DType dtype,
                                    Layout layout, uint64_t seed, ConvStepOptions opt) {
    if (opt.residual) cc.act = ir::UnaryKind::Relu;
    auto fused = conv_case_graph(cc, seed);
    GpuConvCase plain_case = cc;
    if (opt.residual) plain_case.act = std::nullopt;
    auto plain = conv_case_graph(plain_case, seed);  // the same weights; the reference's node
    return run_step(fused, plain, tactic_name, config, dtype, layout, seed, opt);
}

}  // namespace strata::test
