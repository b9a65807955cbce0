// softmax_ops.cpp: the cuda.softmax and cuda.logsoftmax tactics: the node's axis (and coerce_2d) become the
// [outer, n, inner] memory-order description of softmax.h.
#include <algorithm>

#include "backends/cuda/cuda_tactic.h"
#include "backends/cuda/kernels/data/loop_dims.h"
#include "backends/cuda/kernels/softmax/softmax.h"
#include "backends/reference/common.h"

namespace strata::cuda {
namespace {

// Positions in memory order of the dims normalised over; they must be adjacent.
bool normalised_span(const StepDesc& desc, int* first, int* last) {
    const TensorDesc& x = desc.inputs[0];
    const auto& a = desc.attr<ir::SoftmaxAttrs>();
    int rank = x.rank();
    int axis = static_cast<int>(backends::reference::normalize_axis(*desc.node, a.axis, rank));
    std::vector<int> order = memory_order(x);
    *first = rank, *last = -1;
    for (int p = 0; p < rank; ++p) {
        bool normalised = a.coerce_2d ? order[p] >= axis : order[p] == axis;
        if (normalised) *first = std::min(*first, p), *last = std::max(*last, p);
    }
    for (int p = *first; p <= *last; ++p)
        if (a.coerce_2d ? order[p] < axis : order[p] != axis) return false;
    return true;
}

std::string softmax_can_implement(const StepDesc& desc, int) {
    const TensorDesc &x = desc.inputs[0], &y = desc.outputs[0];
    bool is_float = is_float_dtype(x.dtype);
    if (!is_float || y.dtype != x.dtype) return "needs one float dtype";
    if (x.channels_last() != y.channels_last()) return "input and output layouts differ";
    int first = 0, last = 0;
    if (x.rank() > 0 && !normalised_span(desc, &first, &last)) return "normalised dims not adjacent in memory";
    return {};
}

void softmax_launch(const StepDesc& desc, const StepBuffers& b, cudaStream_t stream) {
    launch_softmax(desc.inputs[0].dtype, softmax_params(desc), b.inputs[0], b.outputs[0],
                   desc.device ? desc.device->sm_count : 132, stream);
}

}  // namespace

SoftmaxParams softmax_params(const StepDesc& desc) {
    const TensorDesc& x = desc.inputs[0];
    SoftmaxParams p;
    p.log = desc.node->op == ir::OpKind::LogSoftmax;
    if (x.rank() == 0) return p;
    int first = 0, last = 0;
    normalised_span(desc, &first, &last);
    Shape phys = x.physical_shape();
    for (int i = 0; i < x.rank(); ++i) (i < first ? p.outer : i <= last ? p.n : p.inner) *= phys[i];
    return p;
}

void register_softmax_tactics(CudaTacticRegistry& registry);

void register_softmax_tactics(CudaTacticRegistry& registry) {
    registry.add({"cuda.softmax", ir::OpKind::Softmax, 1, softmax_can_implement, make_function_kernel<softmax_launch>});
    registry.add(
        {"cuda.logsoftmax", ir::OpKind::LogSoftmax, 1, softmax_can_implement, make_function_kernel<softmax_launch>});
}

}  // namespace strata::cuda
