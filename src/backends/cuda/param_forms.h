// param_forms.h: the dtype and layout each input and output of a CUDA step gets, given the step's compute dtype
// and the layout of its 4-D activations. One rule for the builder and for the kernel tests:
//   - float tensors take the compute dtype, except the float32 parameters that epilogues read (Conv /
//     ConvTranspose / FullyConnected bias, SeparableConv's two biases, BatchNorm / InstanceNorm scale, bias, mean,
//     var);
//   - integer and bool tensors keep their dtype;
//   - rank-4 tensors take the activation layout; every other tensor is row-major.
#pragma once

#include "backends/cuda/tensor_desc.h"
#include "ir/graph.h"

namespace strata::cuda {

/// True when input `index` of `node` stays float32 whatever the compute dtype.
bool keeps_float32(const ir::Node& node, size_t index);

/// The desc of value `v` at compute dtype `compute` and activation layout `layout` (`fp32_param`: keep float32).
TensorDesc value_desc(const ir::Value& v, DType compute, Layout layout, bool fp32_param = false);

}  // namespace strata::cuda
