// step_binding.cpp: descs, weights and pointers of a GPU plan's steps.
#include "runtime/cuda/step_binding.h"

#include "backends/cuda/cuda_check.h"
#include "backends/cuda/host_pack.h"
#include "backends/cuda/param_forms.h"
#include "core/check.h"

namespace strata::runtime {

namespace {

size_t align_up(size_t n) { return (n + 255) / 256 * 256; }

cuda::TensorDesc input_desc(const build::Plan& plan, const ir::Node& node, size_t i) {
    ir::ValueId v = node.inputs[i];
    if (v == ir::kNoValue) return cuda::TensorDesc{DType::f32, Layout::rowmajor, {}, false};
    const ir::Value& value = plan.graph.value(v);
    if (!value.constant)
        return cuda::TensorDesc{value.dtype, plan.storage.layouts.at(v), value.shape};
    // Constants take the form the reader wants: logical order for logical-order ops, else the network's layout.
    Layout layout = build::needs_logical_order(node.op) ? Layout::rowmajor : plan.storage.layout;
    return cuda::value_desc(value, plan.storage.compute, layout, cuda::keeps_float32(node, i));
}

}  // namespace

DType compute_dtype(Precision p) {
    switch (p) {
        case Precision::fp16: return DType::f16;
        case Precision::bf16: return DType::bf16;
        default: return DType::f32;
    }
}

std::vector<cuda::StepDesc> make_step_descs(const build::Plan& plan, const cuda::DeviceInfo& device) {
    const auto& nodes = plan.graph.nodes();
    std::vector<cuda::StepDesc> descs(nodes.size());
    for (size_t s = 0; s < nodes.size(); ++s) {
        if (plan.memory.aliased[s]) continue;
        const ir::Node& node = nodes[s];
        cuda::StepDesc& d = descs[s];
        d.node = &node;
        d.name = node.name;
        d.device = &device;
        d.allow_tf32 = plan.options.precision == Precision::tf32;
        for (size_t i = 0; i < node.inputs.size(); ++i) d.inputs.push_back(input_desc(plan, node, i));
        for (ir::ValueId v : node.outputs) {
            if (v == ir::kNoValue) {
                d.outputs.push_back(cuda::TensorDesc{DType::f32, Layout::rowmajor, {}, false});
                continue;
            }
            const ir::Value& value = plan.graph.value(v);
            d.outputs.push_back(cuda::TensorDesc{value.dtype, plan.storage.layouts.at(v), value.shape});
        }
    }
    return descs;
}

GpuWeights::GpuWeights(const build::Plan& plan, const std::vector<cuda::StepDesc>& descs) {
    // First pass: where each (constant, form) goes; second: pack them into one host image and copy it once.
    std::vector<std::pair<ir::ValueId, cuda::TensorDesc>> order;
    size_t total = 0;
    for (size_t s = 0; s < descs.size(); ++s) {
        if (!descs[s].node) continue;
        const ir::Node& node = *descs[s].node;
        for (size_t i = 0; i < node.inputs.size(); ++i) {
            ir::ValueId v = node.inputs[i];
            if (v == ir::kNoValue || !plan.graph.is_constant(v)) continue;
            Key k = key(v, descs[s].inputs[i]);
            if (offsets_.count(k)) continue;
            offsets_[k] = total;
            total += align_up(std::max<size_t>(descs[s].inputs[i].bytes(), 1));
            order.emplace_back(v, descs[s].inputs[i]);
        }
    }
    std::vector<uint8_t> image(total);
    for (const auto& [v, desc] : order) {
        auto bytes = cuda::pack_host(*plan.graph.value(v).constant, desc);
        std::copy(bytes.begin(), bytes.end(), image.begin() + static_cast<ptrdiff_t>(offsets_.at(key(v, desc))));
    }
    buffer_ = cuda::DeviceBuffer(total, "the weights");
    if (total)
        STRATA_CUDA_CHECK(cudaMemcpy(buffer_.data(), image.data(), total, cudaMemcpyHostToDevice), "uploading weights");
}

const void* GpuWeights::find(ir::ValueId value, const cuda::TensorDesc& desc) const {
    auto it = offsets_.find(key(value, desc));
    STRATA_ASSERT(it != offsets_.end(), "weight {} in form {} was not uploaded", value, desc.str());
    return static_cast<const uint8_t*>(buffer_.data()) + it->second;
}

ActivationMemory::ActivationMemory(const build::Plan& plan)
    : arena(plan.memory.arena_bytes, "the activations") {
    for (ir::ValueId in : plan.graph.inputs()) {
        const ir::Value& v = plan.graph.value(in);
        inputs.emplace(in, cuda::DeviceBuffer(std::max<size_t>(shape_numel(v.shape) * dtype_size(v.dtype), 1),
                                              "an input"));
    }
}

void* ActivationMemory::pointer(const build::Plan& plan, ir::ValueId v) const {
    if (v == ir::kNoValue) return nullptr;
    if (auto it = inputs.find(v); it != inputs.end()) return it->second.data();
    int64_t offset = plan.memory.offsets.at(v);
    STRATA_ASSERT(offset != build::MemoryPlan::kNotInArena, "value '{}' has no device memory", plan.graph.value(v).name);
    return static_cast<uint8_t*>(arena.data()) + offset;
}

cuda::StepBuffers bind_buffers(const build::Plan& plan, const cuda::StepDesc& desc, size_t s,
                               const ActivationMemory& memory, const GpuWeights& weights) {
    const ir::Node& node = plan.graph.nodes()[s];
    cuda::StepBuffers b;
    for (size_t i = 0; i < node.inputs.size(); ++i) {
        ir::ValueId v = node.inputs[i];
        if (v != ir::kNoValue && plan.graph.is_constant(v))
            b.inputs.push_back(weights.find(v, desc.inputs[i]));
        else
            b.inputs.push_back(memory.pointer(plan, v));
    }
    for (ir::ValueId v : node.outputs) b.outputs.push_back(memory.pointer(plan, v));
    return b;
}

}  // namespace strata::runtime
