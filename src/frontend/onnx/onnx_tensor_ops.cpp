// onnx_tensor_ops.cpp: converters for the ops that move data without arithmetic: Flatten, Reshape, Transpose,
// Concat, Split, Slice, Pad, Squeeze, Unsqueeze, Tile, Expand. Their parameters came as attributes in early
// opsets and as inputs later; inputs stay on the node until they are constants (NOTE [constant parameters]).
#include "core/check.h"
#include "frontend/onnx/onnx_context.h"

namespace strata::frontend {
namespace {

void convert_flatten(NodeContext& ctx) {
    ctx.expect_inputs(1, 1);
    ctx.emit(ir::OpKind::Flatten, {ctx.input(0, "input")}, ir::FlattenAttrs{ctx.attr_int("axis", 1)});
}

void convert_reshape(NodeContext& ctx) {
    ir::ReshapeAttrs a;
    a.allowzero = ctx.attr_int("allowzero", 0) != 0;
    if (ctx.opset() < 5) {
        ctx.expect_inputs(1, 1);
        a.shape = ctx.attr_ints("shape");
        STRATA_CHECK(a.shape.has_value(), StatusCode::parse_error, "{}: required attribute 'shape' is missing",
                     ctx.label());
        ctx.emit(ir::OpKind::Reshape, {ctx.input(0, "data")}, a);
        return;
    }
    ctx.expect_inputs(2, 2);
    ctx.emit(ir::OpKind::Reshape, {ctx.input(0, "data"), ctx.input(1, "shape")}, a);
}

void convert_transpose(NodeContext& ctx) {
    ctx.expect_inputs(1, 1);
    ir::TransposeAttrs a;
    a.perm = ctx.attr_ints("perm").value_or(std::vector<int64_t>{});
    ctx.emit(ir::OpKind::Transpose, {ctx.input(0, "data")}, a);
}

void convert_concat(NodeContext& ctx) {
    STRATA_CHECK(ctx.num_inputs() >= 1, StatusCode::parse_error, "{} has no inputs", ctx.label());
    auto axis = ctx.attr_int("axis");
    STRATA_CHECK(axis.has_value() || ctx.opset() < 4, StatusCode::parse_error,
                 "{}: required attribute 'axis' is missing", ctx.label());
    std::vector<ir::ValueId> inputs;
    for (size_t i = 0; i < ctx.num_inputs(); ++i) inputs.push_back(ctx.input(i, "inputs"));
    ctx.emit(ir::OpKind::Concat, std::move(inputs), ir::AxisAttrs{axis.value_or(1)});
}

// Sizes: the `split` attribute before opset 13 (opset 1 also took an input), an input from 13; absent = equal
// parts, one per output (opset 18's num_outputs must then agree with the output count).
void convert_split(NodeContext& ctx) {
    ctx.expect_inputs(1, 2);
    const size_t n = ctx.num_outputs();
    STRATA_CHECK(n >= 1, StatusCode::parse_error, "{} has no outputs", ctx.label());
    ir::SplitAttrs a;
    a.axis = ctx.attr_int("axis", 0);
    if (ctx.opset() < 13) a.split = ctx.attr_ints("split");
    if (a.split && a.split->size() != n)
        ctx.bad_attr("split", fmt::format("has {} sizes for {} outputs", a.split->size(), n));
    if (auto num = ctx.attr_int("num_outputs"); num && *num != static_cast<int64_t>(n))
        ctx.bad_attr("num_outputs", fmt::format("is {}, but the node has {} outputs", *num, n));
    ctx.emit(ir::OpKind::Split, {ctx.input(0, "input"), ctx.optional_input(1)}, a, n);
}

void convert_slice(NodeContext& ctx) {
    if (ctx.opset() >= 10) {
        ctx.expect_inputs(3, 5);
        ctx.emit(ir::OpKind::Slice,
                 {ctx.input(0, "data"), ctx.input(1, "starts"), ctx.input(2, "ends"), ctx.optional_input(3),
                  ctx.optional_input(4)},
                 ir::SliceAttrs{});
        return;
    }
    ctx.expect_inputs(1, 1);
    ir::SliceAttrs a;
    a.starts = ctx.attr_ints("starts");
    a.ends = ctx.attr_ints("ends");
    STRATA_CHECK(a.starts && a.ends, StatusCode::parse_error, "{}: attributes 'starts' and 'ends' are required",
                 ctx.label());
    a.axes = ctx.attr_ints("axes").value_or(std::vector<int64_t>{});
    if (a.ends->size() != a.starts->size() || (!a.axes.empty() && a.axes.size() != a.starts->size()))
        ctx.bad_attr("ends", "and 'starts' (and 'axes' when given) must have the same length");
    ctx.emit(ir::OpKind::Slice, {ctx.input(0, "data")}, a);
}

ir::PadMode read_pad_mode(const NodeContext& ctx) {
    std::string mode = ctx.attr_string("mode").value_or("constant");
    if (mode == "constant") return ir::PadMode::constant;
    if (mode == "reflect") return ir::PadMode::reflect;
    if (mode == "edge") return ir::PadMode::edge;
    if (mode == "wrap")
        STRATA_UNSUPPORTED("Pad mode 'wrap' in {} (strata supports constant, reflect, edge)", ctx.label());
    ctx.bad_attr("mode", fmt::format("is '{}'; expected constant, reflect, edge or wrap", mode));
}

// Opset < 11: pads (opset 1: paddings) and value attributes. From 11: pads and constant_value inputs; opset 18's
// axes input (pads for some axes only) is not supported.
void convert_pad(NodeContext& ctx) {
    ir::PadAttrs a;
    a.mode = read_pad_mode(ctx);
    if (ctx.opset() >= 11) {
        ctx.expect_inputs(2, 4);
        if (ctx.has_input(3)) STRATA_UNSUPPORTED("Pad axes input in {}", ctx.label());
        ctx.emit(ir::OpKind::Pad, {ctx.input(0, "data"), ctx.input(1, "pads"), ctx.optional_input(2)}, a);
        return;
    }
    ctx.expect_inputs(1, 1);
    const char* pads_name = ctx.opset() < 2 ? "paddings" : "pads";
    a.pads = ctx.attr_ints(pads_name);
    STRATA_CHECK(a.pads.has_value(), StatusCode::parse_error, "{}: required attribute '{}' is missing", ctx.label(),
                 pads_name);
    if (a.pads->size() % 2 != 0)
        ctx.bad_attr(pads_name, fmt::format("has {} entries, expected 2 per axis", a.pads->size()));
    a.value = ctx.attr_float("value", 0.0f);
    ctx.emit(ir::OpKind::Pad, {ctx.input(0, "data")}, a);
}

// Axes: an attribute before opset 13, an input from 13. Unsqueeze needs them; Squeeze without them drops all 1s.
void convert_squeeze(NodeContext& ctx) {
    const bool unsqueeze = ctx.op_type() == "Unsqueeze";
    const ir::OpKind op = unsqueeze ? ir::OpKind::Unsqueeze : ir::OpKind::Squeeze;
    ir::AxesAttrs a;
    if (ctx.opset() < 13) {
        ctx.expect_inputs(1, 1);
        a.axes = ctx.attr_ints("axes");
        STRATA_CHECK(a.axes || !unsqueeze, StatusCode::parse_error, "{}: required attribute 'axes' is missing",
                     ctx.label());
        ctx.emit(op, {ctx.input(0, "data")}, a);
        return;
    }
    ctx.expect_inputs(unsqueeze ? 2 : 1, 2);
    ctx.emit(op, {ctx.input(0, "data"), unsqueeze ? ctx.input(1, "axes") : ctx.optional_input(1)}, a);
}

void convert_tile(NodeContext& ctx) {
    if (ctx.opset() < 6)
        STRATA_UNSUPPORTED("Tile opset {} (tiles/axis inputs; strata supports opset 6+) in {}", ctx.opset(),
                           ctx.label());
    ctx.expect_inputs(2, 2);
    ctx.emit(ir::OpKind::Tile, {ctx.input(0, "input"), ctx.input(1, "repeats")}, ir::TileAttrs{});
}

void convert_expand(NodeContext& ctx) {
    ctx.expect_inputs(2, 2);
    ctx.emit(ir::OpKind::Expand, {ctx.input(0, "input"), ctx.input(1, "shape")}, ir::ExpandAttrs{});
}

}  // namespace

void add_tensor_op_converters(ConverterTable& table) {
    table["Flatten"] = convert_flatten;
    table["Reshape"] = convert_reshape;
    table["Transpose"] = convert_transpose;
    table["Concat"] = convert_concat;
    table["Split"] = convert_split;
    table["Slice"] = convert_slice;
    table["Pad"] = convert_pad;
    table["Squeeze"] = convert_squeeze;
    table["Unsqueeze"] = convert_squeeze;
    table["Tile"] = convert_tile;
    table["Expand"] = convert_expand;
}

}  // namespace strata::frontend
