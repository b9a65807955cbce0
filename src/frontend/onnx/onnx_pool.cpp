// onnx_pool.cpp: converters for MaxPool, AveragePool, GlobalAveragePool and GlobalMaxPool.
#include "core/check.h"
#include "frontend/onnx/onnx_context.h"

namespace strata::frontend {
namespace {

ir::PoolAttrs read_pool(const NodeContext& ctx) {
    auto kernel = ctx.attr_ints("kernel_shape");
    STRATA_CHECK(kernel.has_value(), StatusCode::parse_error, "{}: required attribute 'kernel_shape' is missing",
                 ctx.label());
    WindowAttrs win = read_window(ctx, *kernel);
    ir::PoolAttrs a;
    a.kernel = win.kernel;
    a.strides = win.strides;
    a.dilations = win.dilations;
    a.pads_begin = win.pads_begin;
    a.pads_end = win.pads_end;
    a.auto_pad = win.auto_pad;
    a.ceil_mode = ctx.attr_int("ceil_mode", 0) != 0;
    return a;
}

void convert_max_pool(NodeContext& ctx) {
    ctx.expect_inputs(1, 1);
    if (ctx.has_output(1)) STRATA_UNSUPPORTED("MaxPool Indices output in {}", ctx.label());
    ctx.emit(ir::OpKind::MaxPool, {ctx.input(0, "X")}, read_pool(ctx));
}

void convert_average_pool(NodeContext& ctx) {
    ctx.expect_inputs(1, 1);
    ir::PoolAttrs a = read_pool(ctx);
    a.count_include_pad = ctx.attr_int("count_include_pad", 0) != 0;
    ctx.emit(ir::OpKind::AveragePool, {ctx.input(0, "X")}, a);
}

void convert_global_pool(NodeContext& ctx) {
    ctx.expect_inputs(1, 1);
    ir::OpKind op = ctx.op_type() == "GlobalMaxPool" ? ir::OpKind::GlobalMaxPool : ir::OpKind::GlobalAveragePool;
    ctx.emit(op, {ctx.input(0, "X")}, ir::NoAttrs{});
}

}  // namespace

void add_pool_converters(ConverterTable& table) {
    table["MaxPool"] = convert_max_pool;
    table["AveragePool"] = convert_average_pool;
    table["GlobalAveragePool"] = convert_global_pool;
    table["GlobalMaxPool"] = convert_global_pool;
}

}  // namespace strata::frontend
