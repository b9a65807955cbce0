// norm_ops.cpp: the cuda.batchnorm and cuda.instancenorm tactics: where the channel of an element is, per layout.
#include "backends/cuda/cuda_tactic.h"
#include "backends/cuda/kernels/data/loop_dims.h"
#include "backends/cuda/kernels/norm/norm.h"

namespace strata::cuda {
namespace {

std::string norm_can_implement(const StepDesc& desc, int) {
    const TensorDesc &x = desc.inputs[0], &y = desc.outputs[0];
    bool is_float = is_float_dtype(x.dtype);
    if (!is_float || y.dtype != x.dtype) return "needs one float dtype";
    if (x.rank() < 2) return "X must be [N, C, ...]";
    if (x.numel() >= (int64_t{1} << 31)) return "2^31 or more elements";
    if (x.channels_last() != y.channels_last()) return "input and output layouts differ";
    for (size_t i = 1; i < desc.inputs.size(); ++i) {
        const TensorDesc& t = desc.inputs[i];
        if (!t.present || t.dtype != DType::f32 || t.numel() != x.shape[1]) return "parameters must be float32 [C]";
    }
    return {};
}

int64_t spatial_size(const TensorDesc& x) {
    int64_t inner = 1;
    for (int d = 2; d < x.rank(); ++d) inner *= x.shape[d];
    return inner;
}

void batch_norm_launch(const StepDesc& desc, const StepBuffers& b, cudaStream_t stream) {
    const TensorDesc& x = desc.inputs[0];
    BatchNormParams p;
    p.scale = static_cast<const float*>(b.inputs[1]);
    p.bias = static_cast<const float*>(b.inputs[2]);
    p.mean = static_cast<const float*>(b.inputs[3]);
    p.var = static_cast<const float*>(b.inputs[4]);
    p.epsilon = desc.attr<ir::BatchNormAttrs>().epsilon;
    p.total = x.numel();
    p.channels = x.shape[1];
    p.inner = x.channels_last() ? 1 : spatial_size(x);
    launch_batch_norm(x.dtype, p, b.inputs[0], b.outputs[0], grid_blocks(p.total, kNormThreads, desc.device), stream);
}

void instance_norm_launch(const StepDesc& desc, const StepBuffers& b, cudaStream_t stream) {
    const TensorDesc& x = desc.inputs[0];
    InstanceNormParams p;
    p.scale = static_cast<const float*>(b.inputs[1]);
    p.bias = static_cast<const float*>(b.inputs[2]);
    p.epsilon = desc.attr<ir::BatchNormAttrs>().epsilon;
    p.batch = x.shape[0];
    p.channels = x.shape[1];
    p.plane = spatial_size(x);
    p.batch_step = p.channels * p.plane;
    p.channel_step = x.channels_last() ? 1 : p.plane;
    p.elem_step = x.channels_last() ? p.channels : 1;
    launch_instance_norm(x.dtype, p, b.inputs[0], b.outputs[0], stream);
}

}  // namespace

void register_norm_tactics(CudaTacticRegistry& registry);

void register_norm_tactics(CudaTacticRegistry& registry) {
    registry.add(
        {"cuda.batchnorm", ir::OpKind::BatchNorm, 1, norm_can_implement, make_function_kernel<batch_norm_launch>});
    registry.add({"cuda.instancenorm", ir::OpKind::InstanceNorm, 1, norm_can_implement,
                  make_function_kernel<instance_norm_launch>});
}

}  // namespace strata::cuda
