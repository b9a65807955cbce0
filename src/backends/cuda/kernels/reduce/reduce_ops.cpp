// reduce_ops.cpp: the cuda.reduce tactic: which dims are reduced (the reference's rules: empty axes = all, unless
// noop_with_empty_axes, which reduces none and so copies) and the loops of reduce.h built from the TensorDescs.
#include <vector>

#include "backends/cuda/cuda_tactic.h"
#include "backends/cuda/kernels/data/loop_dims.h"
#include "backends/cuda/kernels/reduce/reduce.h"
#include "backends/reference/common.h"

namespace strata::cuda {
namespace {

std::vector<bool> reduced_dims(const StepDesc& desc) {
    const auto& a = desc.attr<ir::ReduceAttrs>();
    int rank = desc.inputs[0].rank();
    std::vector<bool> reduced(rank, a.axes.empty() && !a.noop_with_empty_axes);
    for (int64_t axis : a.axes) reduced[backends::reference::normalize_axis(*desc.node, axis, rank)] = true;
    return reduced;
}

std::string reduce_can_implement(const StepDesc& desc, int) {
    const TensorDesc &x = desc.inputs[0], &y = desc.outputs[0];
    bool is_float = is_float_dtype(x.dtype);
    if (!is_float || y.dtype != x.dtype) return "needs one float dtype";
    if (std::string why = check_index_space(desc.inputs, desc.outputs); !why.empty()) return why;
    return {};
}

void reduce_launch(const StepDesc& desc, const StepBuffers& b, cudaStream_t stream) {
    launch_reduce(desc.inputs[0].dtype, reduce_params(desc), b.inputs[0], b.outputs[0],
                  desc.device ? desc.device->sm_count : 132, stream);
}

}  // namespace

ReduceParams reduce_params(const StepDesc& desc) {
    const TensorDesc &x = desc.inputs[0], &y = desc.outputs[0];
    std::vector<bool> reduced = reduced_dims(desc);
    bool keepdims = desc.attr<ir::ReduceAttrs>().keepdims;
    Strides xs = x.logical_strides(), ys = y.logical_strides(), out_stride{};
    Shape kept_shape = x.shape, reduced_shape = x.shape;
    for (int d = 0, o = 0; d < x.rank(); ++d) {
        if (reduced[d]) {
            kept_shape[d] = 1;
            if (keepdims) ++o;
            continue;
        }
        reduced_shape[d] = 1;
        out_stride[d] = ys[o++];
    }
    std::vector<int> order = memory_order(x);
    LoopDims kept = make_loop(kept_shape, order, {xs, out_stride});
    LoopDims red = make_loop(reduced_shape, order, {xs});
    ReduceParams p;
    p.kind = static_cast<int>(desc.attr<ir::ReduceAttrs>().kind);
    p.kept_rank = kept.rank;
    for (int r = 0; r < kept.rank; ++r) {
        p.kept_size[r] = static_cast<uint32_t>(kept.size[r]);
        p.kept_in_stride[r] = kept.stride[0][r];
        p.kept_out_stride[r] = kept.stride[1][r];
    }
    p.reduced_rank = red.rank;
    for (int r = 0; r < red.rank; ++r) {
        p.reduced_size[r] = static_cast<uint32_t>(red.size[r]);
        p.reduced_stride[r] = red.stride[0][r];
    }
    p.outputs = static_cast<uint32_t>(kept.numel());
    p.count = static_cast<uint32_t>(red.numel());
    // Lanes share an output when they would otherwise read far apart: the innermost reduced run is contiguous.
    p.warp_per_output = red.rank > 0 && red.stride[0][red.rank - 1] == 1 && p.count >= 32;
    return p;
}

void register_reduce_tactics(CudaTacticRegistry& registry);

void register_reduce_tactics(CudaTacticRegistry& registry) {
    registry.add({"cuda.reduce", ir::OpKind::Reduce, 1, reduce_can_implement, make_function_kernel<reduce_launch>});
}

}  // namespace strata::cuda
