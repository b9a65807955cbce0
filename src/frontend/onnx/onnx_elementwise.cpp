// onnx_elementwise.cpp: converters for the elementwise ops: the unary activations and math functions (-> Unary),
// Clip, the binary arithmetic ops with opset < 7's broadcast/axis attributes, PRelu, and the n-ary Sum/Max/Min
// (-> chains of Binary).
#include <cmath>
#include <limits>

#include "core/check.h"
#include "frontend/onnx/onnx_context.h"

namespace strata::frontend {
namespace {

using ir::BinaryKind;
using ir::UnaryKind;

// One unary op: its kind and the ONNX attributes (with their defaults) that fill alpha and beta.
struct UnarySpec {
    UnaryKind kind;
    const char* alpha_name = nullptr;
    float alpha_default = 0.0f;
    const char* beta_name = nullptr;
    float beta_default = 0.0f;
};

const UnarySpec* find_unary(const std::string& op) {
    static const std::unordered_map<std::string, UnarySpec> specs = {
        {"Relu", {UnaryKind::Relu}},
        {"LeakyRelu", {UnaryKind::LeakyRelu, "alpha", 0.01f}},
        {"Elu", {UnaryKind::Elu, "alpha", 1.0f}},
        {"Selu", {UnaryKind::Selu, "alpha", 1.67326319217681884765625f, "gamma", 1.05070102214813232421875f}},
        {"Sigmoid", {UnaryKind::Sigmoid}},
        {"HardSigmoid", {UnaryKind::HardSigmoid, "alpha", 0.2f, "beta", 0.5f}},
        {"HardSwish", {UnaryKind::HardSwish}},
        {"Tanh", {UnaryKind::Tanh}},
        {"Softplus", {UnaryKind::Softplus}},
        {"Softsign", {UnaryKind::Softsign}},
        {"Exp", {UnaryKind::Exp}},
        {"Log", {UnaryKind::Log}},
        {"Sqrt", {UnaryKind::Sqrt}},
        {"Neg", {UnaryKind::Neg}},
        {"Abs", {UnaryKind::Abs}},
        {"Reciprocal", {UnaryKind::Reciprocal}},
    };
    auto it = specs.find(op);
    return it == specs.end() ? nullptr : &it->second;
}

void convert_unary(NodeContext& ctx) {
    const UnarySpec* spec = find_unary(ctx.op_type());
    STRATA_ASSERT(spec != nullptr, "no unary spec for {}", ctx.op_type());
    ctx.expect_inputs(1, 1);
    ir::UnaryAttrs a;
    a.kind = spec->kind;
    if (spec->alpha_name) a.alpha = ctx.attr_float(spec->alpha_name, spec->alpha_default);
    if (spec->beta_name) a.beta = ctx.attr_float(spec->beta_name, spec->beta_default);
    ctx.emit(ir::OpKind::Unary, {ctx.input(0, "X")}, a);
}

// Opset < 11: min/max attributes. From 11: optional inputs, kept on the node until they are known constants
// (NOTE [constant parameters]); absent bounds are -inf/+inf.
void convert_clip(NodeContext& ctx) {
    ir::UnaryAttrs a;
    a.kind = UnaryKind::Clip;
    a.alpha = -std::numeric_limits<float>::infinity();
    a.beta = std::numeric_limits<float>::infinity();
    if (ctx.opset() < 11) {
        ctx.expect_inputs(1, 1);
        a.alpha = ctx.attr_float("min", a.alpha);
        a.beta = ctx.attr_float("max", a.beta);
        ctx.emit(ir::OpKind::Unary, {ctx.input(0, "X")}, a);
        return;
    }
    ctx.expect_inputs(1, 3);
    ctx.emit(ir::OpKind::Unary, {ctx.input(0, "X"), ctx.optional_input(1), ctx.optional_input(2)}, a);
}

// Opset < 7 broadcasting: with broadcast=1 and an `axis`, B's dims line up with A's starting at `axis`. numpy
// broadcasting aligns trailing dims instead, so B gets trailing 1-dims: a reshaped copy when B is a constant,
// else an Unsqueeze. Both ranks must be known at import.
ir::ValueId align_at_axis(NodeContext& ctx, ir::ValueId a, ir::ValueId b, int64_t axis) {
    std::optional<size_t> rank_a = ctx.known_rank(a), rank_b = ctx.known_rank(b);
    if (!rank_a || !rank_b)
        STRATA_UNSUPPORTED("{} broadcast with axis={} on an operand whose rank is unknown at import ({})",
                           ctx.op_type(), axis, ctx.label());
    const auto ra = static_cast<int64_t>(*rank_a), rb = static_cast<int64_t>(*rank_b);
    if (axis < 0) axis += ra;
    if (axis < 0 || axis > ra - rb)  // not axis + rb > ra: axis comes from the file and may be near INT64_MAX
        ctx.bad_attr("axis", fmt::format("does not fit B of rank {} into A of rank {}", rb, ra));
    const int64_t trailing = ra - axis - rb;
    if (trailing == 0) return b;
    if (ctx.graph().is_constant(b)) {
        const Tensor& c = *ctx.graph().value(b).constant;
        Shape shape = c.shape();
        shape.insert(shape.end(), static_cast<size_t>(trailing), 1);
        return ctx.add_internal_constant("aligned", c.reshaped(shape));
    }
    ir::AxesAttrs unsq;
    unsq.axes = std::vector<int64_t>();
    for (int64_t i = 0; i < trailing; ++i) unsq.axes->push_back(rb + i);
    return ctx.emit_internal(ir::OpKind::Unsqueeze, {b}, unsq, "aligned");
}

BinaryKind binary_kind(const std::string& op) {
    static const std::unordered_map<std::string, BinaryKind> kinds = {
        {"Add", BinaryKind::Add}, {"Sub", BinaryKind::Sub}, {"Mul", BinaryKind::Mul}, {"Div", BinaryKind::Div},
        {"Pow", BinaryKind::Pow}, {"Max", BinaryKind::Max}, {"Min", BinaryKind::Min}, {"Sum", BinaryKind::Add},
    };
    auto it = kinds.find(op);
    STRATA_ASSERT(it != kinds.end(), "no binary kind for {}", op);
    return it->second;
}

void convert_binary(NodeContext& ctx) {
    ctx.expect_inputs(2, 2);
    ir::ValueId a = ctx.input(0, "A"), b = ctx.input(1, "B");
    // Before opset 7 broadcasting was opt-in; broadcast=0 demands equal shapes, which numpy rules also accept.
    if (ctx.opset() < 7 && ctx.attr_int("broadcast", 0) != 0) {
        if (auto axis = ctx.attr_int("axis")) b = align_at_axis(ctx, a, b, *axis);
    }
    ctx.emit(ir::OpKind::Binary, {a, b}, ir::BinaryAttrs{binary_kind(ctx.op_type())});
}

// Before opset 7 a 1-D slope of size C applies per channel (axis 1); numpy rules would align it with the last dim.
void convert_prelu(NodeContext& ctx) {
    ctx.expect_inputs(2, 2);
    ir::ValueId x = ctx.input(0, "X"), slope = ctx.input(1, "slope");
    if (ctx.opset() < 7 && ctx.known_rank(slope) == std::optional<size_t>(1)) {
        const ir::Value& s = ctx.graph().value(slope);
        if (s.shape[0] != 1) slope = align_at_axis(ctx, x, slope, 1);
    }
    ctx.emit(ir::OpKind::Binary, {x, slope}, ir::BinaryAttrs{BinaryKind::PRelu});
}

// Sum, Max and Min take any number of inputs: a left-to-right chain of Binary nodes, the last bound to the output.
void convert_variadic(NodeContext& ctx) {
    STRATA_CHECK(ctx.num_inputs() >= 1, StatusCode::parse_error, "{} has no inputs", ctx.label());
    const size_t n = ctx.num_inputs();
    const BinaryKind kind = binary_kind(ctx.op_type());
    if (n == 1) {
        ctx.emit(ir::OpKind::Identity, {ctx.input(0, "data_0")}, ir::NoAttrs{});
        return;
    }
    ir::ValueId acc = ctx.input(0, "data_0");
    for (size_t i = 1; i + 1 < n; ++i)
        acc = ctx.emit_internal(ir::OpKind::Binary, {acc, ctx.input(i, "data_i")}, ir::BinaryAttrs{kind},
                                fmt::format("partial{}", i));
    ctx.emit(ir::OpKind::Binary, {acc, ctx.input(n - 1, "data_i")}, ir::BinaryAttrs{kind});
}

}  // namespace

void add_elementwise_converters(ConverterTable& table) {
    for (const char* op : {"Relu", "LeakyRelu", "Elu", "Selu", "Sigmoid", "HardSigmoid", "HardSwish", "Tanh",
                           "Softplus", "Softsign", "Exp", "Log", "Sqrt", "Neg", "Abs", "Reciprocal"})
        table[op] = convert_unary;
    table["Clip"] = convert_clip;
    for (const char* op : {"Add", "Sub", "Mul", "Div", "Pow"}) table[op] = convert_binary;
    table["PRelu"] = convert_prelu;
    for (const char* op : {"Sum", "Max", "Min"}) table[op] = convert_variadic;
}

}  // namespace strata::frontend
