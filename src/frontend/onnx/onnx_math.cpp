// onnx_math.cpp: converters for Gemm, MatMul, Softmax/LogSoftmax (opset < 13's coerce-to-2-D form) and the
// reductions (axes as an attribute or, from ReduceSum 13 / the others 18, as an input).
#include "core/check.h"
#include "frontend/onnx/onnx_context.h"

namespace strata::frontend {
namespace {

// The broadcast attribute of opset < 7 only allowed C to broadcast; numpy rules accept the same C, so it is ignored.
void convert_gemm(NodeContext& ctx) {
    ctx.expect_inputs(ctx.opset() < 11 ? 3 : 2, 3);
    ir::GemmAttrs a;
    a.alpha = ctx.attr_float("alpha", 1.0f);
    a.beta = ctx.attr_float("beta", 1.0f);
    a.trans_a = ctx.attr_int("transA", 0) != 0;
    a.trans_b = ctx.attr_int("transB", 0) != 0;
    ctx.emit(ir::OpKind::Gemm, {ctx.input(0, "A"), ctx.input(1, "B"), ctx.optional_input(2)}, a);
}

void convert_matmul(NodeContext& ctx) {
    ctx.expect_inputs(2, 2);
    ctx.emit(ir::OpKind::MatMul, {ctx.input(0, "A"), ctx.input(1, "B")}, ir::NoAttrs{});
}

void convert_softmax(NodeContext& ctx) {
    ctx.expect_inputs(1, 1);
    ir::SoftmaxAttrs a;
    a.coerce_2d = ctx.opset() < 13;
    a.axis = ctx.attr_int("axis", a.coerce_2d ? 1 : -1);
    ir::OpKind op = ctx.op_type() == "LogSoftmax" ? ir::OpKind::LogSoftmax : ir::OpKind::Softmax;
    ctx.emit(op, {ctx.input(0, "input")}, a);
}

ir::ReduceKind reduce_kind(const std::string& op) {
    if (op == "ReduceSum") return ir::ReduceKind::Sum;
    if (op == "ReduceMax") return ir::ReduceKind::Max;
    if (op == "ReduceMin") return ir::ReduceKind::Min;
    return ir::ReduceKind::Mean;
}

void convert_reduce(NodeContext& ctx) {
    ir::ReduceAttrs a;
    a.kind = reduce_kind(ctx.op_type());
    a.keepdims = ctx.attr_int("keepdims", 1) != 0;
    const int64_t axes_input_from = a.kind == ir::ReduceKind::Sum ? 13 : 18;
    if (ctx.opset() < axes_input_from) {
        ctx.expect_inputs(1, 1);
        a.axes = ctx.attr_ints("axes").value_or(std::vector<int64_t>{});
        ctx.emit(ir::OpKind::Reduce, {ctx.input(0, "data")}, a);
        return;
    }
    ctx.expect_inputs(1, 2);
    a.noop_with_empty_axes = ctx.attr_int("noop_with_empty_axes", 0) != 0;
    ctx.emit(ir::OpKind::Reduce, {ctx.input(0, "data"), ctx.optional_input(1)}, a);
}

}  // namespace

void add_math_converters(ConverterTable& table) {
    table["Gemm"] = convert_gemm;
    table["MatMul"] = convert_matmul;
    table["Softmax"] = convert_softmax;
    table["LogSoftmax"] = convert_softmax;
    for (const char* op : {"ReduceMean", "ReduceSum", "ReduceMax", "ReduceMin"}) table[op] = convert_reduce;
}

}  // namespace strata::frontend
