// onnx_external_data.h: reading a tensor's bytes from the file its external_data entries name (large models store
// weights beside the .onnx). The path must stay inside the model's folder.
#pragma once

#include <cstddef>
#include <string>

#include "onnx/onnx.pb.h"
#include "strata/tensor.h"

namespace strata::frontend {

/// A tensor of `dtype` and `shape` read from the proto's external file (keys location, offset, length); the
/// length is checked against the file before allocating. Refuses absolute paths, `..` components and symlinks
/// leading out of `base_dir`; an empty `base_dir` refuses external data altogether.
Tensor read_external_data(const onnx::TensorProto& proto, const std::string& where, const std::string& base_dir,
                          DType dtype, const Shape& shape);

}  // namespace strata::frontend
