// elementwise_ops.cpp: the Unary, Binary and Cast tactics: which steps the kernels of elementwise.h cover and how a
// step's TensorDescs become their parameters (the broadcasting and layout story is in elementwise.h).
#include "backends/cuda/cuda_tactic.h"
#include "backends/cuda/kernels/data/loop_dims.h"
#include "backends/cuda/kernels/elementwise/elementwise.h"

namespace strata::cuda {
namespace {

// Same shape and the same memory order (nchw and nhwc agree when H*W == 1 or C == 1).
bool same_order(const TensorDesc& a, const TensorDesc& b) {
    return a.shape == b.shape && (a.channels_last() == b.channels_last() || (rowmajor_bytes(a) && rowmajor_bytes(b)));
}

std::string unary_can_implement(const StepDesc& desc, int) {
    const TensorDesc &x = desc.inputs[0], &y = desc.outputs[0];
    if (!is_float_dtype(x.dtype) || y.dtype != x.dtype) return "needs one float dtype";
    if (!same_order(x, y)) return "input and output layouts differ";
    return {};
}

void unary_launch(const StepDesc& desc, const StepBuffers& b, cudaStream_t stream) {
    const TensorDesc& y = desc.outputs[0];
    const auto& a = desc.attr<ir::UnaryAttrs>();
    ActivationParams act{static_cast<int>(a.kind), a.alpha, a.beta};
    launch_unary(y.dtype, act, b.inputs[0], b.outputs[0], y.numel(),
                 grid_blocks(y.numel(), kElementwiseThreads, desc.device), stream);
}

std::string binary_can_implement(const StepDesc& desc, int) {
    if (std::string why = check_index_space(desc.inputs, desc.outputs); !why.empty()) return why;
    const TensorDesc &a = desc.inputs[0], &b = desc.inputs[1], &c = desc.outputs[0];
    if (!is_float_dtype(c.dtype) || a.dtype != c.dtype || b.dtype != c.dtype) return "needs one float dtype";
    if (a.rank() > c.rank() || b.rank() > c.rank()) return "an input has a higher rank than the output";
    return {};
}

void binary_launch(const StepDesc& desc, const StepBuffers& b, cudaStream_t stream) {
    BinaryParams p = binary_params(desc);
    launch_binary(desc.outputs[0].dtype, p, b.inputs[0], b.inputs[1], b.outputs[0],
                  grid_blocks(p.total, kElementwiseThreads, desc.device), stream);
}

std::string cast_can_implement(const StepDesc& desc, int) {
    if (std::string why = check_index_space(desc.inputs, desc.outputs); !why.empty()) return why;
    if (desc.inputs[0].shape != desc.outputs[0].shape) return "input and output shapes differ";
    return {};
}

// nchw <-> nhwc between float dtypes: [N, C, HW] <-> [N, HW, C], a batched transpose (the grid's y dim holds rows/32).
bool transposing_cast(const TensorDesc& x, const TensorDesc& y) {
    if (!is_float_dtype(x.dtype) || !is_float_dtype(y.dtype) || x.rank() != 4 || same_order(x, y)) return false;
    int64_t hw = x.shape[2] * x.shape[3], rows = x.channels_last() ? hw : x.shape[1];
    return (rows + 31) / 32 <= 65535;
}

void cast_launch(const StepDesc& desc, const StepBuffers& b, cudaStream_t stream) {
    const TensorDesc &x = desc.inputs[0], &y = desc.outputs[0];
    if (is_float_dtype(x.dtype) && is_float_dtype(y.dtype) && same_order(x, y)) {
        launch_cast_flat(x.dtype, y.dtype, b.inputs[0], b.outputs[0], y.numel(),
                         grid_blocks(y.numel(), kElementwiseThreads, desc.device), stream);
        return;
    }
    if (transposing_cast(x, y)) {
        int64_t c = x.shape[1], hw = x.shape[2] * x.shape[3];
        bool to_nhwc = !x.channels_last();
        launch_cast_transpose(x.dtype, y.dtype, b.inputs[0], b.outputs[0], x.shape[0], to_nhwc ? c : hw,
                              to_nhwc ? hw : c, grid_blocks(y.numel(), kElementwiseThreads, desc.device), stream);
        return;
    }
    LoopDims loop = make_loop(y.shape, memory_order(y), {x.logical_strides(), y.logical_strides()});
    CastParams p;
    p.from = static_cast<int>(x.dtype);
    p.to = static_cast<int>(y.dtype);
    p.rank = loop.rank;
    for (int r = 0; r < loop.rank; ++r) {
        p.size[r] = static_cast<uint32_t>(loop.size[r]);
        p.in_stride[r] = loop.stride[0][r];
    }
    p.total = static_cast<uint32_t>(y.numel());
    launch_cast_any(p, b.inputs[0], b.outputs[0], grid_blocks(p.total, kElementwiseThreads, desc.device), stream);
}

}  // namespace

BinaryParams binary_params(const StepDesc& desc) {
    const TensorDesc &a = desc.inputs[0], &b = desc.inputs[1], &c = desc.outputs[0];
    Strides as = broadcast_strides(a.shape, a.logical_strides(), c.shape);
    Strides bs = broadcast_strides(b.shape, b.logical_strides(), c.shape);
    LoopDims loop = make_loop(c.shape, memory_order(c), {as, bs, c.logical_strides()});
    BinaryParams p;
    p.kind = static_cast<int>(desc.attr<ir::BinaryAttrs>().kind);
    p.rank = loop.rank;
    for (int r = 0; r < loop.rank; ++r) {
        p.size[r] = static_cast<uint32_t>(loop.size[r]);
        p.a_stride[r] = loop.stride[0][r];
        p.b_stride[r] = loop.stride[1][r];
    }
    p.total = static_cast<uint32_t>(c.numel());
    return p;
}

void register_elementwise_tactics(CudaTacticRegistry& registry);

void register_elementwise_tactics(CudaTacticRegistry& registry) {
    registry.add({"cuda.unary", ir::OpKind::Unary, 1, unary_can_implement, make_function_kernel<unary_launch>});
    registry.add({"cuda.binary", ir::OpKind::Binary, 1, binary_can_implement, make_function_kernel<binary_launch>});
    registry.add({"cuda.cast", ir::OpKind::Cast, 1, cast_can_implement, make_function_kernel<cast_launch>});
}

}  // namespace strata::cuda
