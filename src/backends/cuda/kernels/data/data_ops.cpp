// data_ops.cpp: the block-copy tactics: Concat, Split and the copies behind Identity/Dropout/Reshape/Flatten/Squeeze/
// Unsqueeze (map_ops.cpp has the index-map ops). Each step becomes CopyJobs: pitched row copies where the parts
// store their dims in one order (batched, 16 per launch), strided copies through logical strides otherwise, so an
// nhwc tensor needs no special case beyond choosing the loop order.
#include <algorithm>
#include <cstdint>
#include <cstring>

#include "backends/cuda/cuda_tactic.h"
#include "backends/cuda/kernels/data/copy.h"
#include "backends/cuda/kernels/data/loop_dims.h"
#include "backends/cuda/kernels/data/map_params.h"
#include "backends/reference/common.h"
#include "core/check.h"

namespace strata::cuda {
namespace {

using backends::reference::normalize_axis;

// A strided copy walking `shape` in `order` (the written tensor's memory order, so writes are coalesced).
StridedCopyParams strided_params(const Shape& shape, const std::vector<int>& order, const Strides& in_stride,
                                 const Strides& out_stride, int64_t in_base = 0, int64_t out_base = 0) {
    LoopDims loop = make_loop(shape, order, {in_stride, out_stride});
    StridedCopyParams p;
    p.rank = loop.rank;
    for (int r = 0; r < loop.rank; ++r) {
        p.size[r] = static_cast<uint32_t>(loop.size[r]);
        p.in_stride[r] = loop.stride[0][r];
        p.out_stride[r] = loop.stride[1][r];
    }
    p.in_base = in_base;
    p.out_base = out_base;
    p.total = static_cast<uint32_t>(shape_numel(shape));
    return p;
}

std::string check_same_dtype(const StepDesc& desc) {
    if (std::string why = check_index_space(desc.inputs, desc.outputs); !why.empty()) return why;
    DType t = desc.inputs[0].dtype;
    for (const auto& o : desc.outputs)
        if (o.dtype != t) return "input and output dtypes differ";
    return {};
}

// ---- Concat / Split: one job per part ------------------------------------------------------------------------------

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

// The job copying `part` (a slab of `whole` along `axis` starting at coordinate `at`) into or out of the whole.
CopyJob part_job(const TensorDesc& part, const TensorDesc& whole, int axis, int64_t at, const void* part_ptr,
                 const void* whole_ptr, bool into_whole) {
    const int64_t elem = static_cast<int64_t>(dtype_size(whole.dtype));
    char* pp = static_cast<char*>(const_cast<void*>(part_ptr));
    char* wp = static_cast<char*>(const_cast<void*>(whole_ptr));
    CopyJob job;
    if (same_memory_order(part, whole)) {
        RowGeometry g = row_geometry(whole, axis);
        int64_t part_run = part.shape[axis] * g.inner * elem, whole_run = whole.shape[axis] * g.inner * elem;
        char* w = wp + at * g.inner * elem;
        job.segment = into_whole ? RowCopySegment{pp, w, g.outer, part_run, part_run, whole_run}
                                 : RowCopySegment{w, pp, g.outer, part_run, whole_run, part_run};
        return job;
    }
    Strides ps = part.logical_strides(), ws = whole.logical_strides();
    int64_t whole_base = at * ws[axis];
    job.rows = false;
    job.elem_size = static_cast<int>(elem);
    job.strided = into_whole ? strided_params(part.shape, memory_order(whole), ps, ws, 0, whole_base)
                             : strided_params(part.shape, memory_order(part), ws, ps, whole_base, 0);
    job.src = into_whole ? pp : wp;
    job.dst = into_whole ? wp : pp;
    return job;
}

std::string concat_can_implement(const StepDesc& desc, int) {
    if (std::string why = check_same_dtype(desc); !why.empty()) return why;
    for (const auto& in : desc.inputs)
        if (in.dtype != desc.outputs[0].dtype || in.rank() != desc.outputs[0].rank())
            return "inputs differ in dtype or rank";
    return {};
}

std::string split_can_implement(const StepDesc& desc, int) {
    if (std::string why = check_same_dtype(desc); !why.empty()) return why;
    for (const auto& out : desc.outputs)
        if (out.rank() != desc.inputs[0].rank()) return "outputs differ in rank";
    return {};
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

CopyJob plain_copy_job(const StepDesc& desc, const StepBuffers& b) {
    const TensorDesc &x = desc.inputs[0], &y = desc.outputs[0];
    CopyJob job;
    if (same_bytes(x, y) || (rowmajor_bytes(x) && rowmajor_bytes(y))) {
        int64_t bytes = static_cast<int64_t>(y.bytes());
        job.segment = {static_cast<const char*>(b.inputs[0]), static_cast<char*>(b.outputs[0]), 1, bytes, bytes, bytes};
        return job;
    }
    // One side is truly channels-last: element k of the row-major order is logical coordinate k of either shape.
    job.rows = false;
    job.elem_size = static_cast<int>(dtype_size(y.dtype));
    job.strided = rowmajor_bytes(y)
                      ? strided_params(x.shape, memory_order(TensorDesc{x.dtype, Layout::rowmajor, x.shape}),
                                       x.logical_strides(), row_major_strides(x.shape))
                      : strided_params(y.shape, memory_order(y), row_major_strides(y.shape), y.logical_strides());
    job.src = b.inputs[0];
    job.dst = b.outputs[0];
    return job;
}

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

// Row copies go out kMaxRowSegments per launch; strided jobs one launch each.
void copy_jobs_launch(const StepDesc& desc, const StepBuffers& b, cudaStream_t stream) {
    RowCopyParams batch;
    for (const CopyJob& job : copy_jobs(desc, b)) {
        if (!job.rows) {
            launch_strided_copy(job.strided, job.elem_size, job.src, job.dst,
                                grid_blocks(job.strided.total, kCopyThreads, desc.device), stream);
            continue;
        }
        if (job.segment.rows == 0 || job.segment.row_bytes == 0) continue;
        batch.seg[batch.count++] = job.segment;
        if (batch.count == kMaxRowSegments) flush_segments(batch, desc, stream);
    }
    flush_segments(batch, desc, stream);
}

}  // namespace

std::vector<CopyJob> copy_jobs(const StepDesc& desc, const StepBuffers& b) {
    std::vector<CopyJob> jobs;
    if (desc.node->op == ir::OpKind::Concat || desc.node->op == ir::OpKind::Split) {
        bool concat = desc.node->op == ir::OpKind::Concat;
        const TensorDesc& whole = concat ? desc.outputs[0] : desc.inputs[0];
        int64_t axis_attr = concat ? desc.attr<ir::AxisAttrs>().axis : desc.attr<ir::SplitAttrs>().axis;
        int axis = static_cast<int>(normalize_axis(*desc.node, axis_attr, whole.rank()));
        const void* whole_ptr = concat ? b.outputs[0] : b.inputs[0];
        const std::vector<TensorDesc>& parts = concat ? desc.inputs : desc.outputs;
        int64_t at = 0;
        for (size_t i = 0; i < parts.size(); ++i) {
            const void* part_ptr = concat ? b.inputs[i] : b.outputs[i];
            jobs.push_back(part_job(parts[i], whole, axis, at, part_ptr, whole_ptr, concat));
            at += parts[i].shape[axis];
        }
        return jobs;
    }
    jobs.push_back(plain_copy_job(desc, b));
    return jobs;
}

void register_data_copy_tactics(CudaTacticRegistry& registry);

void register_data_copy_tactics(CudaTacticRegistry& registry) {
    registry.add({"cuda.concat", ir::OpKind::Concat, 1, concat_can_implement, make_function_kernel<copy_jobs_launch>});
    registry.add({"cuda.split", ir::OpKind::Split, 1, split_can_implement, make_function_kernel<copy_jobs_launch>});
    const std::pair<const char*, ir::OpKind> copies[] = {
        {"cuda.identity", ir::OpKind::Identity}, {"cuda.dropout", ir::OpKind::Dropout},
        {"cuda.reshape", ir::OpKind::Reshape},   {"cuda.flatten", ir::OpKind::Flatten},
        {"cuda.squeeze", ir::OpKind::Squeeze},   {"cuda.unsqueeze", ir::OpKind::Unsqueeze}};
    for (const auto& [name, op] : copies)
        registry.add({name, op, 1, copy_can_implement, make_function_kernel<copy_jobs_launch>});
}

}  // namespace strata::cuda
