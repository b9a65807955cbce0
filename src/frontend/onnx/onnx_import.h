// onnx_import.h: ONNX ModelProto -> ir::Graph. Opsets 1-21 of the default domain. Every failure is a strata::Error
// naming the file and, where it applies, the node, op, attribute and what is supported.
#pragma once

#include <memory>
#include <string>

#include "ir/graph.h"

namespace strata::frontend {

/// Reads `path`; external initializer data is looked up relative to the model's folder.
std::shared_ptr<ir::Graph> import_onnx_file(const std::string& path);
/// Parses a serialized ModelProto. `name` is used in messages; `base_dir` resolves external data ("" = none allowed).
std::shared_ptr<ir::Graph> import_onnx_bytes(const void* data, size_t size, const std::string& name,
                                             const std::string& base_dir);

/// Reads a serialized onnx.TensorProto (the conformance cases' input_N.pb / output_N.pb).
Tensor read_tensor_proto_file(const std::string& path);

}  // namespace strata::frontend
