// onnx_misc_ops.cpp: converters for Constant (a constant value, no node), ConstantOfShape, Shape, Gather, Cast,
// Identity and Dropout (inference: both pass X through; the passes remove them).
#include <algorithm>

#include "core/check.h"
#include "core/half.h"
#include "frontend/onnx/onnx_context.h"
#include "frontend/onnx/onnx_tensor.h"

namespace strata::frontend {
namespace {

template <class T>
Tensor vector_tensor(DType dtype, const std::vector<T>& values, bool scalar) {
    Tensor t = Tensor::empty(dtype, scalar ? Shape{} : Shape{static_cast<int64_t>(values.size())});
    std::copy(values.begin(), values.end(), t.data<T>());
    return t;
}

// Exactly one of value, value_float(s), value_int(s); sparse and string values are not supported.
void convert_constant(NodeContext& ctx) {
    ctx.expect_inputs(0, 0);
    STRATA_CHECK(ctx.proto().attribute_size() == 1, StatusCode::parse_error,
                 "{} has {} attributes, expected exactly one value attribute", ctx.label(),
                 ctx.proto().attribute_size());
    const std::string& attr = ctx.proto().attribute(0).name();
    Tensor value;
    if (attr == "value")
        value = ctx.attr_tensor_value("value");
    else if (attr == "value_float")
        value = vector_tensor<float>(DType::f32, {ctx.attr_float("value_float").value_or(0)}, true);
    else if (attr == "value_floats")
        value = vector_tensor<float>(DType::f32, *ctx.attr_floats("value_floats"), false);
    else if (attr == "value_int")
        value = vector_tensor<int64_t>(DType::i64, {ctx.attr_int("value_int").value_or(0)}, true);
    else if (attr == "value_ints")
        value = vector_tensor<int64_t>(DType::i64, *ctx.attr_ints("value_ints"), false);
    else if (attr == "sparse_value" || attr == "value_string" || attr == "value_strings")
        STRATA_UNSUPPORTED("Constant attribute '{}' in {}", attr, ctx.label());
    else
        ctx.bad_attr(attr.c_str(), "is not a Constant value attribute");
    ctx.bind_constant_output(0, std::move(value));
}

// The fill value is a one-element tensor attribute (default float32 0).
void convert_constant_of_shape(NodeContext& ctx) {
    ctx.expect_inputs(1, 1);
    ir::ConstantOfShapeAttrs a;
    if (ctx.attr_tensor("value")) {
        Tensor v = ctx.attr_tensor_value("value");
        if (v.numel() != 1) ctx.bad_attr("value", fmt::format("has {} elements, expected 1", v.numel()));
        a.dtype = v.dtype();
        switch (v.dtype()) {
            case DType::f32:
                a.value = v.data<float>()[0];
                break;
            case DType::f16:
                a.value = fp16_to_float(v.data<uint16_t>()[0]);
                break;
            case DType::bf16:
                a.value = bf16_to_float(v.data<uint16_t>()[0]);
                break;
            case DType::i8:
                a.value = v.data<int8_t>()[0];
                break;
            case DType::u8:
            case DType::boolean:
                a.value = v.data<uint8_t>()[0];
                break;
            case DType::i32:
                a.value = v.data<int32_t>()[0];
                break;
            case DType::i64:
                a.value = static_cast<double>(v.data<int64_t>()[0]);
                break;
        }
    }
    ir::Node& node = ctx.emit(ir::OpKind::ConstantOfShape, {ctx.input(0, "input")}, a);
    ctx.graph().value(node.outputs[0]).dtype = a.dtype;
}

void convert_shape(NodeContext& ctx) {
    ctx.expect_inputs(1, 1);
    ir::ShapeAttrs a;
    a.start = ctx.attr_int("start", 0);
    a.end = ctx.attr_int("end");
    ir::Node& node = ctx.emit(ir::OpKind::Shape, {ctx.input(0, "data")}, a);
    ctx.graph().value(node.outputs[0]).dtype = DType::i64;
}

void convert_gather(NodeContext& ctx) {
    ctx.expect_inputs(2, 2);
    ctx.emit(ir::OpKind::Gather, {ctx.input(0, "data"), ctx.input(1, "indices")},
             ir::AxisAttrs{ctx.attr_int("axis", 0)});
}

// `to` is a DataType number from opset 6, a type name ("FLOAT") before.
DType read_cast_target(const NodeContext& ctx) {
    int32_t to = 0;
    if (ctx.opset() < 6) {
        std::string name = ctx.attr_string("to").value_or("");
        onnx::TensorProto_DataType parsed{};
        if (!onnx::TensorProto_DataType_Parse(name, &parsed))
            ctx.bad_attr("to", fmt::format("names no type ('{}')", name));
        to = parsed;
    } else {
        auto v = ctx.attr_int("to");
        STRATA_CHECK(v.has_value(), StatusCode::parse_error, "{}: required attribute 'to' is missing", ctx.label());
        if (*v < 0 || *v > 1000) ctx.bad_attr("to", fmt::format("is {}, not a data type", *v));
        to = static_cast<int32_t>(*v);
    }
    std::optional<DType> dtype = dtype_from_onnx(to);
    if (!dtype)
        STRATA_UNSUPPORTED("Cast to {} in {} (strata holds {})", onnx_dtype_name(to), ctx.label(),
                           supported_dtypes_text());
    return *dtype;
}

void convert_cast(NodeContext& ctx) {
    ctx.expect_inputs(1, 1);
    ir::CastAttrs a{read_cast_target(ctx)};
    ir::Node& node = ctx.emit(ir::OpKind::Cast, {ctx.input(0, "input")}, a);
    ctx.graph().value(node.outputs[0]).dtype = a.to;
}

// The PyTorch exporter emits Identity on shared weights; those become the same constant data under the new name,
// so that Conv still sees a constant W.
void convert_identity(NodeContext& ctx) {
    ctx.expect_inputs(1, 1);
    if (const Tensor* c = ctx.constant_input(0)) {
        ctx.bind_constant_output(0, *c);
        return;
    }
    ctx.emit(ir::OpKind::Identity, {ctx.input(0, "input")}, ir::NoAttrs{});
}

// Inference Dropout passes X through. Training mode (opset < 7: is_test=0, the default; opset 12+: a
// training_mode input that is not a constant false) and a mask output that something reads are refused.
void convert_dropout(NodeContext& ctx) {
    ctx.expect_inputs(1, 3);
    if (ctx.opset() < 7 && ctx.attr_int("is_test", 0) == 0)
        STRATA_UNSUPPORTED("Dropout is_test=0 (training mode) in {}; strata runs inference (is_test=1)", ctx.label());
    if (ctx.has_input(2)) {
        const Tensor* mode = ctx.constant_input(2);
        bool is_false = mode && mode->numel() == 1 && mode->dtype() == DType::boolean && mode->data<uint8_t>()[0] == 0;
        if (!is_false)
            STRATA_UNSUPPORTED("Dropout training_mode input that is not a constant false in {}", ctx.label());
    }
    if (ctx.output_used(1)) STRATA_UNSUPPORTED("Dropout mask output in {} (it is read by another node)", ctx.label());
    ctx.emit(ir::OpKind::Dropout, {ctx.input(0, "data")}, ir::NoAttrs{});
}

}  // namespace

void add_misc_converters(ConverterTable& table) {
    table["Constant"] = convert_constant;
    table["ConstantOfShape"] = convert_constant_of_shape;
    table["Shape"] = convert_shape;
    table["Gather"] = convert_gather;
    table["Cast"] = convert_cast;
    table["Identity"] = convert_identity;
    table["Dropout"] = convert_dropout;
}

}  // namespace strata::frontend
