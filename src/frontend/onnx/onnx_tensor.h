// onnx_tensor.h: onnx.TensorProto -> strata Tensor (initializers, Constant values, the conformance .pb files).
// Everything in the proto is validated before a byte is allocated or copied: a malformed file ends in an Error.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "onnx/onnx.pb.h"
#include "strata/tensor.h"

namespace strata::frontend {

/// ONNX TensorProto.DataType -> DType; nullopt for the types strata does not hold (double, int16, string, ...).
std::optional<DType> dtype_from_onnx(int32_t onnx_type);
/// "FLOAT", "INT64", ... for messages ("type 42" for values outside the enum).
std::string onnx_dtype_name(int32_t onnx_type);
/// The dtypes strata holds, for "supported: ..." messages.
const char* supported_dtypes_text();

/// Converts a TensorProto. `where` names it in messages ("initializer 'conv1.weight'"). External data is read
/// relative to `base_dir`; with an empty `base_dir` (a model parsed from memory) external data is refused.
Tensor tensor_from_proto(const onnx::TensorProto& proto, const std::string& where, const std::string& base_dir);

}  // namespace strata::frontend
