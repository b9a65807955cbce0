// attrs.h: one typed attribute struct per op family (ops.def names which op uses which). Never positional params.
// Parameters that ONNX passes as constant inputs (Reshape's shape, Slice's starts, Pad's pads, ...) live here once
// they are known; see NOTE [constant parameters] in graph.h. Every struct compares field by field (operator==).
// A field added here must also be serialized: see fields() in build/graph_io_attrs.cpp.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "strata/tensor.h"

namespace strata::ir {

struct NoAttrs {
    bool operator==(const NoAttrs&) const = default;
};

/// Elementwise functions of one input. alpha/beta carry each kind's parameters (noted per kind).
enum class UnaryKind : uint8_t {
    Relu,
    Relu6,
    Clip,         ///< clamp to [alpha, beta] (alpha = min, beta = max; +-inf where absent)
    LeakyRelu,    ///< alpha = negative slope
    Elu,          ///< alpha
    Selu,         ///< alpha, beta = gamma
    Sigmoid,
    HardSigmoid,  ///< max(0, min(1, alpha*x + beta))
    HardSwish,    ///< x * max(0, min(1, x/6 + 1/2))
    SiLU,         ///< x * sigmoid(x)
    Tanh,
    Softplus,
    Softsign,
    Exp,
    Log,
    Sqrt,
    Neg,
    Abs,
    Reciprocal,
};
const char* unary_kind_name(UnaryKind k);

struct UnaryAttrs {
    bool operator==(const UnaryAttrs&) const = default;
    UnaryKind kind = UnaryKind::Relu;
    float alpha = 0.0f;
    float beta = 0.0f;
};

/// Elementwise functions of two inputs with numpy broadcasting.
enum class BinaryKind : uint8_t { Add, Sub, Mul, Div, Pow, Max, Min, PRelu };
const char* binary_kind_name(BinaryKind k);

struct BinaryAttrs {
    bool operator==(const BinaryAttrs&) const = default;
    BinaryKind kind = BinaryKind::Add;
};

/// How ONNX's auto_pad resolves; `explicit_pads` means the pads fields are final. Shape inference resolves the
/// others into pads_begin/pads_end (it knows the input size) and sets explicit_pads.
enum class AutoPad : uint8_t { explicit_pads, same_upper, same_lower, valid };

/// Convolution over 1 or 2 spatial dims. All vectors have one entry per spatial dim.
struct ConvAttrs {
    bool operator==(const ConvAttrs&) const = default;
    std::vector<int64_t> kernel;      ///< kernel size (from W's shape when the attribute is absent)
    std::vector<int64_t> strides;
    std::vector<int64_t> dilations;
    std::vector<int64_t> pads_begin;
    std::vector<int64_t> pads_end;
    int64_t group = 1;
    AutoPad auto_pad = AutoPad::explicit_pads;
    std::optional<UnaryAttrs> activation;  ///< fused epilogue, applied after bias
};

struct ConvTransposeAttrs {
    bool operator==(const ConvTransposeAttrs&) const = default;
    std::vector<int64_t> kernel;
    std::vector<int64_t> strides;
    std::vector<int64_t> dilations;
    std::vector<int64_t> pads_begin;
    std::vector<int64_t> pads_end;
    std::vector<int64_t> output_padding;
    std::vector<int64_t> output_shape;  ///< spatial output size if given (pads are then derived)
    int64_t group = 1;
    AutoPad auto_pad = AutoPad::explicit_pads;
};

struct BatchNormAttrs {
    bool operator==(const BatchNormAttrs&) const = default;
    float epsilon = 1e-5f;
};

/// Max and average pooling over 1 or 2 spatial dims.
struct PoolAttrs {
    bool operator==(const PoolAttrs&) const = default;
    std::vector<int64_t> kernel;
    std::vector<int64_t> strides;
    std::vector<int64_t> dilations;
    std::vector<int64_t> pads_begin;
    std::vector<int64_t> pads_end;
    bool ceil_mode = false;
    bool count_include_pad = false;  ///< average pooling only
    AutoPad auto_pad = AutoPad::explicit_pads;
};

struct GemmAttrs {
    bool operator==(const GemmAttrs&) const = default;
    float alpha = 1.0f;
    float beta = 1.0f;
    bool trans_a = false;
    bool trans_b = false;
};

struct FullyConnectedAttrs {
    bool operator==(const FullyConnectedAttrs&) const = default;
    std::optional<UnaryAttrs> activation;
};

struct SoftmaxAttrs {
    bool operator==(const SoftmaxAttrs&) const = default;
    int64_t axis = -1;
    /// ONNX opset < 13: the input is viewed as 2-D [prod(dims[:axis]), prod(dims[axis:])] and normalised over the
    /// second dim (all dims from `axis` on), not over `axis` alone.
    bool coerce_2d = false;
};

enum class ReduceKind : uint8_t { Mean, Sum, Max, Min };
struct ReduceAttrs {
    bool operator==(const ReduceAttrs&) const = default;
    ReduceKind kind = ReduceKind::Mean;
    std::vector<int64_t> axes;  ///< empty = all axes (unless noop_with_empty_axes)
    bool keepdims = true;
    bool noop_with_empty_axes = false;
};

struct FlattenAttrs {
    bool operator==(const FlattenAttrs&) const = default;
    int64_t axis = 1;
};

struct ReshapeAttrs {
    bool operator==(const ReshapeAttrs&) const = default;
    std::optional<std::vector<int64_t>> shape;  ///< ONNX semantics: 0 copies the input dim (unless allowzero), -1 infers
    bool allowzero = false;
};

struct TransposeAttrs {
    bool operator==(const TransposeAttrs&) const = default;
    std::vector<int64_t> perm;  ///< empty = reverse the dims
};

struct AxisAttrs {
    bool operator==(const AxisAttrs&) const = default;
    int64_t axis = 0;
};

struct SplitAttrs {
    bool operator==(const SplitAttrs&) const = default;
    int64_t axis = 0;
    std::optional<std::vector<int64_t>> split;  ///< sizes; absent = equal parts, one per output
};

struct SliceAttrs {
    bool operator==(const SliceAttrs&) const = default;
    std::optional<std::vector<int64_t>> starts;
    std::optional<std::vector<int64_t>> ends;
    std::vector<int64_t> axes;   ///< empty = 0..len(starts)-1
    std::vector<int64_t> steps;  ///< empty = all 1
};

enum class PadMode : uint8_t { constant, reflect, edge };
struct PadAttrs {
    bool operator==(const PadAttrs&) const = default;
    PadMode mode = PadMode::constant;
    std::optional<std::vector<int64_t>> pads;  ///< ONNX order: all begins, then all ends (negative crops)
    float value = 0.0f;
};

struct AxesAttrs {
    bool operator==(const AxesAttrs&) const = default;
    std::optional<std::vector<int64_t>> axes;  ///< Squeeze: absent = every dim of size 1
};

struct TileAttrs {
    bool operator==(const TileAttrs&) const = default;
    std::optional<std::vector<int64_t>> repeats;
};

struct ExpandAttrs {
    bool operator==(const ExpandAttrs&) const = default;
    std::optional<std::vector<int64_t>> shape;
};

struct ShapeAttrs {
    bool operator==(const ShapeAttrs&) const = default;
    int64_t start = 0;
    std::optional<int64_t> end;
};

struct ConstantOfShapeAttrs {
    bool operator==(const ConstantOfShapeAttrs&) const = default;
    std::optional<std::vector<int64_t>> shape;
    DType dtype = DType::f32;
    double value = 0.0;
};

struct CastAttrs {
    bool operator==(const CastAttrs&) const = default;
    DType to = DType::f32;
};

/// A depthwise Conv (group == C, multiplier 1) then a 1x1 Conv (stride 1, no pads, group 1) as one op: each half
/// keeps its Conv attrs, its fused activation included. Wd is [C,1,R,S], Wp is [K,C,1,1] (fuse_separable_conv).
struct SeparableConvAttrs {
    bool operator==(const SeparableConvAttrs&) const = default;
    ConvAttrs depthwise;
    ConvAttrs pointwise;
};

/// One alternative per struct, in the order they are first used in ops.def.
using Attrs = std::variant<NoAttrs, ConvAttrs, ConvTransposeAttrs, BatchNormAttrs, UnaryAttrs, BinaryAttrs, PoolAttrs,
                           GemmAttrs, FullyConnectedAttrs, SoftmaxAttrs, ReduceAttrs, FlattenAttrs, ReshapeAttrs,
                           TransposeAttrs, AxisAttrs, SplitAttrs, SliceAttrs, PadAttrs, AxesAttrs, TileAttrs,
                           ExpandAttrs, ShapeAttrs, ConstantOfShapeAttrs, CastAttrs, SeparableConvAttrs>;

}  // namespace strata::ir
