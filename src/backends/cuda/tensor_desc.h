// tensor_desc.h: how a CUDA step sees a tensor: its element type, its logical shape (ONNX order: N, C, H, W) and
// the physical order of its bytes. Layout::nhwc applies to rank-4 tensors only (physical N, H, W, C; a conv weight
// [K, C, R, S] in nhwc is stored K, R, S, C); every other tensor is stored in logical order (rowmajor == nchw).
// Kernels that only walk elements can use logical_strides() and ignore the layout.
#pragma once

#include <array>
#include <cstdint>
#include <string>

#include "strata/tensor.h"

namespace strata::cuda {

inline constexpr int kMaxRank = 8;

struct TensorDesc {
    DType dtype = DType::f32;
    Layout layout = Layout::rowmajor;
    Shape shape;           ///< logical dims
    bool present = true;   ///< false for an omitted optional input

    int rank() const { return static_cast<int>(shape.size()); }
    int64_t numel() const { return shape_numel(shape); }
    size_t bytes() const { return static_cast<size_t>(numel()) * dtype_size(dtype); }
    bool channels_last() const { return layout == Layout::nhwc && shape.size() == 4; }
    /// The dims in memory order (N, H, W, C for a channels-last tensor).
    Shape physical_shape() const;
    /// Element strides of the logical dims (shape[i] steps stride[i] elements in memory); entries past rank are 0.
    std::array<int64_t, kMaxRank> logical_strides() const;
    /// "float16[1,32,112,112] nhwc"
    std::string str() const;
};

/// True when the two descriptions put every element at the same byte offset (same dtype and shape, and the same
/// physical order: nchw and nhwc agree when H*W == 1 or C == 1).
bool same_bytes(const TensorDesc& a, const TensorDesc& b);

}  // namespace strata::cuda
