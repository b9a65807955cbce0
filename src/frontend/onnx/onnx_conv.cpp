// onnx_conv.cpp: converters for Conv, ConvTranspose, BatchNormalization and InstanceNormalization.
#include <algorithm>

#include "core/check.h"
#include "frontend/onnx/onnx_context.h"

namespace strata::frontend {
namespace {

// kernel_shape, or W's spatial dims when the attribute is absent (W must then have a known rank).
std::vector<int64_t> conv_kernel(const NodeContext& ctx, ir::ValueId w) {
    if (auto k = ctx.attr_ints("kernel_shape")) return *k;
    const ir::Value& wv = ctx.graph().value(w);
    if (!wv.has_shape || wv.shape.size() < 3 ||
        std::any_of(wv.shape.begin(), wv.shape.end(), [](int64_t d) { return d < 0; }))
        STRATA_UNSUPPORTED("{} without kernel_shape whose weight shape is not known at import ({})", ctx.op_type(),
                           ctx.label());
    return std::vector<int64_t>(wv.shape.begin() + 2, wv.shape.end());
}

int64_t read_group(const NodeContext& ctx) {
    int64_t group = ctx.attr_int("group", 1);
    if (group < 1) ctx.bad_attr("group", fmt::format("is {}, expected >= 1", group));
    return group;
}

void convert_conv(NodeContext& ctx) {
    ctx.expect_inputs(2, 3);
    ir::ValueId x = ctx.input(0, "X"), w = ctx.input(1, "W");
    WindowAttrs win = read_window(ctx, conv_kernel(ctx, w));
    ir::ConvAttrs a;
    a.kernel = win.kernel;
    a.strides = win.strides;
    a.dilations = win.dilations;
    a.pads_begin = win.pads_begin;
    a.pads_end = win.pads_end;
    a.auto_pad = win.auto_pad;
    a.group = read_group(ctx);
    ctx.emit(ir::OpKind::Conv, {x, w, ctx.optional_input(2)}, a);
}

std::vector<int64_t> spatial_ints(const NodeContext& ctx, const char* name, size_t rank, int64_t min_value) {
    auto v = ctx.attr_ints(name);
    if (!v) return {};
    if (v->size() != rank) ctx.bad_attr(name, fmt::format("has {} entries, expected {}", v->size(), rank));
    for (int64_t x : *v)
        if (x < min_value) ctx.bad_attr(name, fmt::format("has entry {}, expected >= {}", x, min_value));
    return *v;
}

void convert_conv_transpose(NodeContext& ctx) {
    ctx.expect_inputs(2, 3);
    ir::ValueId x = ctx.input(0, "X"), w = ctx.input(1, "W");
    WindowAttrs win = read_window(ctx, conv_kernel(ctx, w));
    const size_t rank = win.kernel.size();
    ir::ConvTransposeAttrs a;
    a.kernel = win.kernel;
    a.strides = win.strides;
    a.dilations = win.dilations;
    a.pads_begin = win.pads_begin;
    a.pads_end = win.pads_end;
    a.auto_pad = win.auto_pad;
    a.group = read_group(ctx);
    a.output_padding = spatial_ints(ctx, "output_padding", rank, 0);
    if (a.output_padding.empty()) a.output_padding.assign(rank, 0);
    a.output_shape = spatial_ints(ctx, "output_shape", rank, 1);
    ctx.emit(ir::OpKind::ConvTranspose, {x, w, ctx.optional_input(2)}, a);
}

// Opset < 7 carries is_test (default 0 = training mode) and spatial; opset 14+ carries training_mode. Only the
// inference form with per-channel statistics exists in strata; the others are refused rather than run wrongly.
void check_batch_norm_mode(const NodeContext& ctx) {
    if (ctx.opset() < 7 && ctx.attr_int("is_test", 0) == 0)
        STRATA_UNSUPPORTED("BatchNormalization is_test=0 (training mode) in {}; strata runs inference (is_test=1)",
                           ctx.label());
    if (ctx.opset() < 9 && ctx.attr_int("spatial", 1) == 0)
        STRATA_UNSUPPORTED("BatchNormalization spatial=0 (per-activation statistics) in {}", ctx.label());
    if (ctx.attr_int("training_mode", 0) != 0)
        STRATA_UNSUPPORTED("BatchNormalization training_mode=1 in {}; strata runs inference", ctx.label());
    for (size_t i = 1; i < ctx.num_outputs(); ++i)
        if (ctx.output_used(i))
            STRATA_UNSUPPORTED("BatchNormalization output {} (running statistics) in {}: only Y is computed", i,
                               ctx.label());
}

void convert_batch_norm(NodeContext& ctx) {
    ctx.expect_inputs(5, 5);
    check_batch_norm_mode(ctx);
    ir::BatchNormAttrs a;
    a.epsilon = ctx.attr_float("epsilon", 1e-5f);
    ctx.emit(ir::OpKind::BatchNorm,
             {ctx.input(0, "X"), ctx.input(1, "scale"), ctx.input(2, "B"), ctx.input(3, "mean"), ctx.input(4, "var")},
             a);
}

void convert_instance_norm(NodeContext& ctx) {
    ctx.expect_inputs(3, 3);
    ir::BatchNormAttrs a;
    a.epsilon = ctx.attr_float("epsilon", 1e-5f);
    ctx.emit(ir::OpKind::InstanceNorm, {ctx.input(0, "input"), ctx.input(1, "scale"), ctx.input(2, "B")}, a);
}

}  // namespace

void add_conv_converters(ConverterTable& table) {
    table["Conv"] = convert_conv;
    table["ConvTranspose"] = convert_conv_transpose;
    table["BatchNormalization"] = convert_batch_norm;
    table["InstanceNormalization"] = convert_instance_norm;
}

}  // namespace strata::frontend
