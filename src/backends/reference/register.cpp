// register.cpp: the reference backend's kernels, one tactic per op ("reference.<Op>"), in one table.
#include <array>
#include <string>

#include "backends/reference/kernels.h"
#include "core/check.h"

namespace strata::backends {

namespace {
using ir::OpKind;
namespace ref = reference;

struct Entry {
    OpKind op;
    KernelFn run;
};

// In ops.def order; reference_kernel() checks that the row for each op sits at its index.
constexpr std::array<Entry, ir::kOpCount> kTable = {{
    {OpKind::Conv, ref::conv_kernel},
    {OpKind::ConvTranspose, ref::conv_transpose_kernel},
    {OpKind::BatchNorm, ref::batch_norm_kernel},
    {OpKind::InstanceNorm, ref::instance_norm_kernel},
    {OpKind::Unary, ref::unary_kernel},
    {OpKind::Binary, ref::binary_kernel},
    {OpKind::MaxPool, ref::max_pool_kernel},
    {OpKind::AveragePool, ref::average_pool_kernel},
    {OpKind::GlobalAveragePool, ref::global_average_pool_kernel},
    {OpKind::GlobalMaxPool, ref::global_max_pool_kernel},
    {OpKind::Gemm, ref::gemm_kernel},
    {OpKind::MatMul, ref::matmul_kernel},
    {OpKind::FullyConnected, ref::fully_connected_kernel},
    {OpKind::Softmax, ref::softmax_kernel},
    {OpKind::LogSoftmax, ref::log_softmax_kernel},
    {OpKind::Reduce, ref::reduce_kernel},
    {OpKind::Flatten, ref::copy_kernel},
    {OpKind::Reshape, ref::copy_kernel},
    {OpKind::Transpose, ref::transpose_kernel},
    {OpKind::Concat, ref::concat_kernel},
    {OpKind::Split, ref::split_kernel},
    {OpKind::Slice, ref::slice_kernel},
    {OpKind::Pad, ref::pad_kernel},
    {OpKind::Squeeze, ref::copy_kernel},
    {OpKind::Unsqueeze, ref::copy_kernel},
    {OpKind::Tile, ref::tile_kernel},
    {OpKind::Expand, ref::expand_kernel},
    {OpKind::Shape, ref::shape_kernel},
    {OpKind::Gather, ref::gather_kernel},
    {OpKind::ConstantOfShape, ref::constant_of_shape_kernel},
    {OpKind::Cast, ref::cast_kernel},
    {OpKind::Identity, ref::copy_kernel},
    {OpKind::Dropout, ref::copy_kernel},
    {OpKind::SeparableConv, ref::separable_conv_kernel},
}};

constexpr bool table_in_op_order() {
    for (size_t i = 0; i < kTable.size(); ++i)
        if (static_cast<size_t>(kTable[i].op) != i) return false;
    return true;
}
static_assert(table_in_op_order(), "kTable must list every op once, in ops.def order");
}  // namespace

KernelFn reference::reference_kernel(OpKind op) {
    size_t i = static_cast<size_t>(op);
    STRATA_ASSERT(i < kTable.size(), "op {} has no reference kernel", i);
    return kTable[i].run;
}

void register_reference_tactics(TacticRegistry& registry) {
    for (const Entry& e : kTable) {
        Tactic t;
        t.name = std::string("reference.") + ir::op_name(e.op);
        t.backend = Backend::reference;
        t.op = e.op;
        t.run = e.run;
        registry.add(std::move(t));
    }
}

}  // namespace strata::backends
