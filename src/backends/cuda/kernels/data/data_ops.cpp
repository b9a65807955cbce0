// data_ops.cpp: the data-movement tactics (Concat, Split, Slice, Transpose, Pad, Tile, Expand, Gather, the copies
// behind Identity/Dropout/Reshape/Flatten/Squeeze/Unsqueeze, ConstantOfShape, Shape). Each op's whole job here is
// to describe its copy as copy.h parameters from the node's attributes and the TensorDescs: logical strides carry
// the layouts, so an nhwc tensor needs no special case beyond choosing the loop order.
#include <algorithm>
#include <cstdint>
#include <cstring>

#include "backends/cuda/cuda_tactic.h"
#include "backends/cuda/kernels/data/copy.h"
#include "backends/cuda/kernels/data/loop_dims.h"
#include "backends/reference/common.h"
#include "core/check.h"

namespace strata::cuda {
namespace {

using backends::reference::normalize_axis;

struct DimMap {
    MapMode mode = MapMode::linear;
    int64_t in_size = 0, shift = 0;
};

// A strided copy walking `shape` in `order`; dims with a non-linear map are never merged.
StridedCopyParams strided_params(const Shape& shape, const std::vector<int>& order, const Strides& in_stride,
                                 const Strides& out_stride, int64_t in_base = 0, int64_t out_base = 0,
                                 const std::vector<DimMap>& maps = {}) {
    std::vector<bool> keep(shape.size(), false);
    for (size_t d = 0; d < maps.size(); ++d) keep[d] = maps[d].mode != MapMode::linear;
    LoopDims loop = make_loop(shape, order, {in_stride, out_stride}, keep);
    StridedCopyParams p;
    p.rank = loop.rank;
    for (int r = 0; r < loop.rank; ++r) {
        p.size[r] = static_cast<uint32_t>(loop.size[r]);
        p.in_stride[r] = loop.stride[0][r];
        p.out_stride[r] = loop.stride[1][r];
        if (!maps.empty()) {
            const DimMap& m = maps[loop.dim[r]];
            p.mode[r] = m.mode;
            p.in_size[r] = m.in_size;
            p.shift[r] = m.shift;
        }
    }
    p.in_base = in_base;
    p.out_base = out_base;
    p.total = static_cast<uint32_t>(shape_numel(shape));
    return p;
}

// The output is walked in its own memory order: writes are coalesced whatever the source does.
void launch_into_output(const StepDesc& desc, const StridedCopyParams& p, const void* in, void* out,
                        cudaStream_t stream) {
    const TensorDesc& y = desc.outputs[0];
    launch_strided_copy(p, static_cast<int>(dtype_size(y.dtype)), in, out,
                        grid_blocks(p.total, kCopyThreads, desc.device), stream);
}

std::string check_same_dtype(const StepDesc& desc) {
    if (std::string why = check_index_space(desc.inputs, desc.outputs); !why.empty()) return why;
    DType t = desc.inputs[0].dtype;
    for (const auto& o : desc.outputs)
        if (o.dtype != t) return "input and output dtypes differ";
    return {};
}

// ---- row copies: Concat / Split / plain copies ---------------------------------------------------------------

// The largest word (16..1 bytes) dividing every size, pitch and address of the batch.
int row_copy_word(const RowCopyParams& p) {
    uint64_t bits = 16;
    for (int i = 0; i < p.count; ++i) {
        const RowCopySegment& s = p.seg[i];
        bits |= static_cast<uint64_t>(s.row_bytes) | static_cast<uint64_t>(s.src_pitch) |
                static_cast<uint64_t>(s.dst_pitch) | reinterpret_cast<uintptr_t>(s.src) |
                reinterpret_cast<uintptr_t>(s.dst);
    }
    return static_cast<int>(bits & (~bits + 1));  // lowest set bit, at most 16
}

void flush_segments(RowCopyParams& batch, const StepDesc& desc, cudaStream_t stream) {
    if (batch.count == 0) return;
    int64_t most = 0;
    for (int i = 0; i < batch.count; ++i) most = std::max(most, batch.seg[i].rows * batch.seg[i].row_bytes);
    int word = row_copy_word(batch);
    int blocks = std::max(1, grid_blocks(most / word, kCopyThreads, desc.device) / batch.count);
    launch_row_copy(batch, word, blocks, stream);
    batch.count = 0;
}

// Adds one segment, launching the batch when it is full.
void add_segment(RowCopyParams& batch, const RowCopySegment& s, const StepDesc& desc, cudaStream_t stream) {
    if (s.rows == 0 || s.row_bytes == 0) return;
    batch.seg[batch.count++] = s;
    if (batch.count == kMaxRowSegments) flush_segments(batch, desc, stream);
}

// Concat and Split move whole runs when every part stores its dims in the whole's order: as [outer, run] rows, each
// part owns run_part bytes of every row of the whole.
bool same_memory_order(const TensorDesc& a, const TensorDesc& b) {
    return a.rank() == b.rank() && memory_order(a) == memory_order(b);
}

struct RowGeometry {
    int64_t outer = 1, inner = 1;  // dims before the axis and after it in memory order (elements)
};

RowGeometry row_geometry(const TensorDesc& whole, int axis) {
    std::vector<int> order = memory_order(whole);
    RowGeometry g;
    size_t p = std::find(order.begin(), order.end(), axis) - order.begin();
    for (size_t i = 0; i < order.size(); ++i) {
        if (i < p) g.outer *= whole.shape[order[i]];
        if (i > p) g.inner *= whole.shape[order[i]];
    }
    return g;
}

// Copies `part` (a slab of `whole` along `axis` starting at coordinate `at`) between the two tensors.
void copy_part(const StepDesc& desc, const TensorDesc& part, const TensorDesc& whole, int axis, int64_t at,
               const void* part_ptr, void* whole_ptr, bool into_whole, RowCopyParams& batch, cudaStream_t stream) {
    int64_t elem = static_cast<int64_t>(dtype_size(whole.dtype));
    if (same_memory_order(part, whole)) {
        RowGeometry g = row_geometry(whole, axis);
        int64_t part_run = part.shape[axis] * g.inner * elem, whole_run = whole.shape[axis] * g.inner * elem;
        char* w = static_cast<char*>(whole_ptr) + at * g.inner * elem;
        char* pp = static_cast<char*>(const_cast<void*>(part_ptr));
        RowCopySegment s{into_whole ? pp : w,
                         into_whole ? w : pp,
                         g.outer,
                         part_run,
                         into_whole ? part_run : whole_run,
                         into_whole ? whole_run : part_run};
        add_segment(batch, s, desc, stream);
        return;
    }
    Strides ps = part.logical_strides(), ws = whole.logical_strides();
    int64_t whole_base = at * ws[axis];
    StridedCopyParams p = into_whole ? strided_params(part.shape, memory_order(whole), ps, ws, 0, whole_base)
                                     : strided_params(part.shape, memory_order(part), ws, ps, whole_base, 0);
    launch_strided_copy(p, static_cast<int>(elem), into_whole ? part_ptr : whole_ptr,
                        into_whole ? whole_ptr : const_cast<void*>(part_ptr),
                        grid_blocks(p.total, kCopyThreads, desc.device), stream);
}

std::string concat_can_implement(const StepDesc& desc, int) {
    if (std::string why = check_same_dtype(desc); !why.empty()) return why;
    for (const auto& in : desc.inputs)
        if (in.dtype != desc.outputs[0].dtype || in.rank() != desc.outputs[0].rank())
            return "inputs differ in dtype or rank";
    return {};
}

void concat_launch(const StepDesc& desc, const StepBuffers& b, cudaStream_t stream) {
    const TensorDesc& y = desc.outputs[0];
    int axis = static_cast<int>(normalize_axis(*desc.node, desc.attr<ir::AxisAttrs>().axis, y.rank()));
    RowCopyParams batch;
    int64_t at = 0;
    for (size_t i = 0; i < desc.inputs.size(); ++i) {
        copy_part(desc, desc.inputs[i], y, axis, at, b.inputs[i], b.outputs[0], true, batch, stream);
        at += desc.inputs[i].shape[axis];
    }
    flush_segments(batch, desc, stream);
}

std::string split_can_implement(const StepDesc& desc, int) {
    if (std::string why = check_same_dtype(desc); !why.empty()) return why;
    for (const auto& out : desc.outputs)
        if (out.rank() != desc.inputs[0].rank()) return "outputs differ in rank";
    return {};
}

void split_launch(const StepDesc& desc, const StepBuffers& b, cudaStream_t stream) {
    const TensorDesc& x = desc.inputs[0];
    int axis = static_cast<int>(normalize_axis(*desc.node, desc.attr<ir::SplitAttrs>().axis, x.rank()));
    RowCopyParams batch;
    int64_t at = 0;
    for (size_t i = 0; i < desc.outputs.size(); ++i) {
        copy_part(desc, desc.outputs[i], x, axis, at, b.outputs[i], const_cast<void*>(b.inputs[0]), false, batch,
                  stream);
        at += desc.outputs[i].shape[axis];
    }
    flush_segments(batch, desc, stream);
}

// ---- copies that keep the row-major element order (Identity, Reshape, ...) --------------------------------------

std::string copy_can_implement(const StepDesc& desc, int) {
    if (desc.node->op == ir::OpKind::Dropout && desc.outputs.size() > 1) return "Dropout mask output";
    if (desc.outputs.size() != 1) return "one output expected";
    if (std::string why = check_same_dtype(desc); !why.empty()) return why;
    const TensorDesc &x = desc.inputs[0], &y = desc.outputs[0];
    if (x.numel() != y.numel()) return "input and output sizes differ";
    if (!same_bytes(x, y) && !rowmajor_bytes(x) && !rowmajor_bytes(y)) return "both sides channels-last with new dims";
    return {};
}

void copy_launch(const StepDesc& desc, const StepBuffers& b, cudaStream_t stream) {
    const TensorDesc &x = desc.inputs[0], &y = desc.outputs[0];
    if (same_bytes(x, y) || (rowmajor_bytes(x) && rowmajor_bytes(y))) {
        RowCopyParams batch;
        add_segment(batch,
                    {static_cast<const char*>(b.inputs[0]), static_cast<char*>(b.outputs[0]), 1,
                     static_cast<int64_t>(y.bytes()), static_cast<int64_t>(y.bytes()), static_cast<int64_t>(y.bytes())},
                    desc, stream);
        flush_segments(batch, desc, stream);
        return;
    }
    // One side is truly channels-last: element k of the row-major order is logical coordinate k of either shape.
    StridedCopyParams p =
        rowmajor_bytes(y) ? strided_params(x.shape, memory_order(TensorDesc{x.dtype, Layout::rowmajor, x.shape}),
                                           x.logical_strides(), row_major_strides(x.shape))
                          : strided_params(y.shape, memory_order(y), row_major_strides(y.shape), y.logical_strides());
    launch_into_output(desc, p, b.inputs[0], b.outputs[0], stream);
}

}  // namespace

void register_data_copy_tactics(CudaTacticRegistry& registry);

void register_data_copy_tactics(CudaTacticRegistry& registry) {
    registry.add({"cuda.concat", ir::OpKind::Concat, 1, concat_can_implement, make_function_kernel<concat_launch>});
    registry.add({"cuda.split", ir::OpKind::Split, 1, split_can_implement, make_function_kernel<split_launch>});
    const std::pair<const char*, ir::OpKind> copies[] = {
        {"cuda.identity", ir::OpKind::Identity}, {"cuda.dropout", ir::OpKind::Dropout},
        {"cuda.reshape", ir::OpKind::Reshape},   {"cuda.flatten", ir::OpKind::Flatten},
        {"cuda.squeeze", ir::OpKind::Squeeze},   {"cuda.unsqueeze", ir::OpKind::Unsqueeze}};
    for (const auto& [name, op] : copies)
        registry.add({name, op, 1, copy_can_implement, make_function_kernel<copy_launch>});
}

}  // namespace strata::cuda
