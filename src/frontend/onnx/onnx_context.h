// onnx_context.h: what an op converter sees while importing one ONNX node: typed attribute access with checked
// types, its inputs as IR values, and emission of IR nodes bound to the node's outputs. The converters
// (onnx_conv.cpp, onnx_elementwise.cpp, ...) are free functions over a NodeContext, listed in one table
// (onnx_converters.cpp) from op type to function.
#pragma once

#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "ir/graph.h"
#include "onnx/onnx.pb.h"

namespace strata::frontend {

/// State shared by all nodes of one import.
struct ImportState {
    ir::Graph* graph = nullptr;
    std::string file;                                     ///< for messages
    std::string base_dir;                                 ///< resolves external data of Constant values
    int64_t opset = 0;                                    ///< default-domain opset
    std::unordered_map<std::string, ir::ValueId> values;  ///< ONNX name -> IR value, as defined so far
    std::unordered_set<std::string> onnx_names;           ///< every name in the model (fresh names avoid them)
    std::unordered_set<std::string> used_names;           ///< names read by some node or listed as graph output
};

class NodeContext {
public:
    NodeContext(ImportState& state, const onnx::NodeProto& node);

    const onnx::NodeProto& proto() const { return node_; }
    const std::string& op_type() const { return node_.op_type(); }
    const std::string& name() const { return name_; }
    int64_t opset() const { return state_.opset; }
    ir::Graph& graph() { return *state_.graph; }
    const ir::Graph& graph() const { return *state_.graph; }
    /// "Conv 'conv1'" (ONNX op type and node name) for messages.
    std::string label() const;

    // --- Inputs. An empty input name is an omitted optional input.
    size_t num_inputs() const { return static_cast<size_t>(node_.input_size()); }
    bool has_input(size_t i) const { return i < num_inputs() && !node_.input(static_cast<int>(i)).empty(); }
    /// A required input; its absence is a parse error naming `what` ("X", "W").
    ir::ValueId input(size_t i, const char* what) const;
    /// An optional input, kNoValue when omitted.
    ir::ValueId optional_input(size_t i) const;
    /// Checks the input count is in [lo, hi].
    void expect_inputs(size_t lo, size_t hi) const;
    /// The constant data of input i, or nullptr when it is omitted or computed.
    const Tensor* constant_input(size_t i) const;
    /// The rank of a value when it is known at import time (graph inputs with a shape, constants).
    std::optional<size_t> known_rank(ir::ValueId v) const;

    // --- Attributes. A present attribute of the wrong type is a parse error naming it.
    bool has_attr(const char* name) const { return find_attr(name) != nullptr; }
    std::optional<int64_t> attr_int(const char* name) const;
    int64_t attr_int(const char* name, int64_t fallback) const { return attr_int(name).value_or(fallback); }
    std::optional<float> attr_float(const char* name) const;
    float attr_float(const char* name, float fallback) const { return attr_float(name).value_or(fallback); }
    std::optional<std::string> attr_string(const char* name) const;
    std::optional<std::vector<int64_t>> attr_ints(const char* name) const;
    std::optional<std::vector<float>> attr_floats(const char* name) const;
    const onnx::TensorProto* attr_tensor(const char* name) const;
    /// A TENSOR attribute converted (external data resolved as for initializers).
    Tensor attr_tensor_value(const char* name) const;
    /// Parse error "<label>: attribute '<name>' ...<what>" for invalid values.
    [[noreturn]] void bad_attr(const char* name, const std::string& what) const;

    // --- Outputs.
    size_t num_outputs() const { return static_cast<size_t>(node_.output_size()); }
    bool has_output(size_t i) const { return i < num_outputs() && !node_.output(static_cast<int>(i)).empty(); }
    /// True when output i is named and read by a node or listed as a graph output.
    bool output_used(size_t i) const;
    /// Appends an IR node bound to this node's first `n_outputs` outputs, then moves constant parameter
    /// inputs into its attrs (ir::absorb_constant_params). Trailing omitted inputs are dropped.
    ir::Node& emit(ir::OpKind op, std::vector<ir::ValueId> inputs, ir::Attrs attrs, size_t n_outputs = 1);
    /// Appends an IR node whose one output is internal (not an ONNX name); returns that output.
    ir::ValueId emit_internal(ir::OpKind op, std::vector<ir::ValueId> inputs, ir::Attrs attrs,
                              const std::string& suffix);
    /// A new constant value named after this node (not an ONNX name).
    ir::ValueId add_internal_constant(const std::string& suffix, Tensor data);
    /// Binds output i to an existing value (Constant nodes, Identity of a constant): no IR node.
    void bind_output(size_t i, ir::ValueId v);
    /// Binds output i to a new constant value carrying the output's name.
    void bind_constant_output(size_t i, Tensor data);

private:
    const onnx::AttributeProto* find_attr(const char* name) const;
    const onnx::AttributeProto* typed_attr(const char* name, onnx::AttributeProto_AttributeType type,
                                           bool has_field) const;
    ir::ValueId new_output_value(size_t i);
    std::string fresh_name(const std::string& base) const;

    ImportState& state_;
    const onnx::NodeProto& node_;
    std::string name_;
};

/// One converter per ONNX op type (or family sharing one function that looks at op_type()).
using Converter = void (*)(NodeContext& ctx);

/// The converter for `op_type` in the default domain, or nullptr.
Converter find_converter(const std::string& op_type);
/// "Abs, Add, AveragePool, ..." for the unknown-op message.
std::string supported_ops_text();

// Each family registers its converters into the table (called once, from onnx_converters.cpp).
using ConverterTable = std::unordered_map<std::string, Converter>;
void add_conv_converters(ConverterTable& table);
void add_elementwise_converters(ConverterTable& table);
void add_pool_converters(ConverterTable& table);
void add_math_converters(ConverterTable& table);
void add_tensor_op_converters(ConverterTable& table);
void add_misc_converters(ConverterTable& table);

// Helpers several families share.
/// ONNX auto_pad string -> AutoPad ("NOTSET"/absent = explicit pads).
ir::AutoPad read_auto_pad(const NodeContext& ctx);

/// The sliding-window attributes convolutions and pools share, one entry per spatial dim.
struct WindowAttrs {
    std::vector<int64_t> kernel, strides, dilations, pads_begin, pads_end;
    ir::AutoPad auto_pad = ir::AutoPad::explicit_pads;
};
/// Reads strides, dilations, pads and auto_pad for `kernel.size()` spatial dims (1 or 2, else "unsupported:
/// <op> N-D kernel"), checking every count and sign.
WindowAttrs read_window(const NodeContext& ctx, std::vector<int64_t> kernel);

}  // namespace strata::frontend
