// kernels.h: the reference kernels, one per op in ops.def. register.cpp lists them in its one table; each is defined
// in the file of its op family (conv.cpp, pool.cpp, ...). All follow backends::KernelFn.
#pragma once

#include "backends/kernel.h"

namespace strata::backends::reference {

#define STRATA_REFERENCE_KERNEL(fn) \
    void fn(const ir::Node& node, std::span<const Tensor> inputs, std::span<Tensor> outputs, const KernelContext& ctx)

STRATA_REFERENCE_KERNEL(conv_kernel);
STRATA_REFERENCE_KERNEL(conv_transpose_kernel);
STRATA_REFERENCE_KERNEL(batch_norm_kernel);
STRATA_REFERENCE_KERNEL(instance_norm_kernel);
STRATA_REFERENCE_KERNEL(unary_kernel);
STRATA_REFERENCE_KERNEL(binary_kernel);
STRATA_REFERENCE_KERNEL(max_pool_kernel);
STRATA_REFERENCE_KERNEL(average_pool_kernel);
STRATA_REFERENCE_KERNEL(global_average_pool_kernel);
STRATA_REFERENCE_KERNEL(global_max_pool_kernel);
STRATA_REFERENCE_KERNEL(gemm_kernel);
STRATA_REFERENCE_KERNEL(matmul_kernel);
STRATA_REFERENCE_KERNEL(fully_connected_kernel);
STRATA_REFERENCE_KERNEL(softmax_kernel);
STRATA_REFERENCE_KERNEL(log_softmax_kernel);
STRATA_REFERENCE_KERNEL(reduce_kernel);
STRATA_REFERENCE_KERNEL(copy_kernel);  // Flatten, Reshape, Squeeze, Unsqueeze, Identity, Dropout
STRATA_REFERENCE_KERNEL(transpose_kernel);
STRATA_REFERENCE_KERNEL(concat_kernel);
STRATA_REFERENCE_KERNEL(split_kernel);
STRATA_REFERENCE_KERNEL(slice_kernel);
STRATA_REFERENCE_KERNEL(pad_kernel);
STRATA_REFERENCE_KERNEL(tile_kernel);
STRATA_REFERENCE_KERNEL(expand_kernel);
STRATA_REFERENCE_KERNEL(shape_kernel);
STRATA_REFERENCE_KERNEL(gather_kernel);
STRATA_REFERENCE_KERNEL(constant_of_shape_kernel);
STRATA_REFERENCE_KERNEL(cast_kernel);
STRATA_REFERENCE_KERNEL(separable_conv_kernel);  // the depthwise Conv, then the 1x1 Conv (separable_conv.cpp)

#undef STRATA_REFERENCE_KERNEL

/// The reference kernel for an op (every op has one).
KernelFn reference_kernel(ir::OpKind op);

}  // namespace strata::backends::reference
