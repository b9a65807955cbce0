// host_pack.h: host-side conversion between a logical host Tensor and the bytes a TensorDesc describes (dtype and
// physical order). The builder uses it to upload weights in the form their kernels want; tests use it to feed and
// read kernels. Float tensors convert among f32/f16/bf16; integer and bool tensors keep their dtype.
#pragma once

#include <cstdint>
#include <vector>

#include "backends/cuda/tensor_desc.h"
#include "strata/tensor.h"

namespace strata::cuda {

/// The bytes of `logical` (any dtype, logical order) as `desc` lays them out. `desc.shape` must equal the tensor's.
std::vector<uint8_t> pack_host(const Tensor& logical, const TensorDesc& desc);
/// A logical host tensor from bytes laid out as `desc`: float dtypes come back as f32, others unchanged.
Tensor unpack_host(const void* bytes, const TensorDesc& desc);

}  // namespace strata::cuda
