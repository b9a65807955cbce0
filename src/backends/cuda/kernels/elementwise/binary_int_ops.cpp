// binary_int_ops.cpp: the tactic cuda.binary_int (Binary on int32 / int64).
#include "backends/cuda/cuda_tactic.h"
#include "backends/cuda/kernels/data/loop_dims.h"
#include "backends/cuda/kernels/elementwise/binary_int.h"

namespace strata::cuda {

namespace {

std::string binary_int_can_implement(const StepDesc& desc, int) {
    if (std::string why = check_index_space(desc.inputs, desc.outputs); !why.empty()) return why;
    const TensorDesc &a = desc.inputs[0], &b = desc.inputs[1], &c = desc.outputs[0];
    if ((c.dtype != DType::i32 && c.dtype != DType::i64) || a.dtype != c.dtype || b.dtype != c.dtype)
        return "needs one integer dtype (int32 or int64)";
    if (a.rank() > c.rank() || b.rank() > c.rank()) return "an input has a higher rank than the output";
    return {};
}

void binary_int_launch(const StepDesc& desc, const StepBuffers& b, cudaStream_t stream) {
    BinaryParams p = binary_params(desc);
    launch_binary_int(desc.outputs[0].dtype, p, b.inputs[0], b.inputs[1], b.outputs[0],
                      grid_blocks(p.total, 256, desc.device), stream);
}

}  // namespace

void register_binary_int_tactics(CudaTacticRegistry& registry) {
    registry.add(CudaTactic{.name = "cuda.binary_int",
                            .op = ir::OpKind::Binary,
                            .can_implement = binary_int_can_implement,
                            .make = make_function_kernel<binary_int_launch>});
}

}  // namespace strata::cuda
