// map_ops.cpp: the tactics whose output element reads a source element through a per-dim coordinate map (copy.h's
// strided copy and gather): Slice, Transpose, Pad, Tile, Expand and Gather, plus the writers ConstantOfShape and
// Shape. The maps follow the reference backend exactly (backends/reference/{slice,transpose,pad,tile_expand,gather,
// shape_ops}.cpp); logical strides carry the layouts, and the output is always walked in its memory order.
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

// A strided copy of the whole output; dims whose map is not linear are never merged with their neighbours.
StridedCopyParams output_walk(const TensorDesc& y, const Strides& in_stride, int64_t in_base,
                              const std::vector<MapMode>& modes = {}, const Shape& in_size = {},
                              const std::vector<int64_t>& shift = {}) {
    std::vector<bool> keep(y.shape.size(), false);
    for (size_t d = 0; d < modes.size(); ++d) keep[d] = modes[d] != MapMode::linear;
    LoopDims loop = make_loop(y.shape, memory_order(y), {in_stride, y.logical_strides()}, keep);
    StridedCopyParams p;
    p.rank = loop.rank;
    for (int r = 0; r < loop.rank; ++r) {
        p.size[r] = static_cast<uint32_t>(loop.size[r]);
        p.in_stride[r] = loop.stride[0][r];
        p.out_stride[r] = loop.stride[1][r];
        int d = loop.dim[r];
        if (!modes.empty() && modes[d] != MapMode::linear) {
            p.mode[r] = modes[d];
            p.in_size[r] = in_size[d];
            p.shift[r] = shift[d];
        }
    }
    p.in_base = in_base;
    p.total = static_cast<uint32_t>(y.numel());
    return p;
}

std::string check_map(const StepDesc& desc) {
    if (std::string why = check_index_space(desc.inputs, desc.outputs); !why.empty()) return why;
    if (desc.outputs.size() != 1 || desc.outputs[0].dtype != desc.inputs[0].dtype) return "output dtype differs";
    return {};
}

// ---- Slice: ONNX's clamping, as the reference does it -------------------------------------------------------------

struct DimSlice {
    int64_t start = 0, step = 1;
};

DimSlice clamp_slice(int64_t dim, int64_t start, int64_t end, int64_t step) {
    if (dim == 0) return {0, step};
    if (start < 0) start += dim;
    return {step > 0 ? std::clamp<int64_t>(start, 0, dim) : std::clamp<int64_t>(start, 0, dim - 1), step};
}

std::string slice_can_implement(const StepDesc& desc, int) {
    const auto& a = desc.attr<ir::SliceAttrs>();
    if (!a.starts || !a.ends) return "dynamic starts/ends";
    return check_map(desc);
}

StridedCopyParams slice_params(const StepDesc& desc) {
    const TensorDesc &x = desc.inputs[0], &y = desc.outputs[0];
    const auto& a = desc.attr<ir::SliceAttrs>();
    Strides xs = x.logical_strides(), in_stride = xs;
    int64_t base = 0;
    for (size_t i = 0; i < a.starts->size(); ++i) {
        int d = static_cast<int>(
            normalize_axis(*desc.node, a.axes.empty() ? static_cast<int64_t>(i) : a.axes[i], x.rank()));
        DimSlice s = clamp_slice(x.shape[d], (*a.starts)[i], (*a.ends)[i], a.steps.empty() ? 1 : a.steps[i]);
        base += s.start * xs[d];
        in_stride[d] = s.step * xs[d];
    }
    return output_walk(y, in_stride, base);
}

// ---- Transpose ------------------------------------------------------------------------------------------------------

std::string transpose_can_implement(const StepDesc& desc, int) {
    return check_map(desc);
}

StridedCopyParams transpose_params(const StepDesc& desc) {
    const TensorDesc &x = desc.inputs[0], &y = desc.outputs[0];
    std::vector<int64_t> perm = desc.attr<ir::TransposeAttrs>().perm;
    if (perm.empty())
        for (int d = x.rank() - 1; d >= 0; --d) perm.push_back(d);
    Strides xs = x.logical_strides(), in_stride{};
    for (int j = 0; j < y.rank(); ++j) in_stride[j] = xs[normalize_axis(*desc.node, perm[j], x.rank())];
    return output_walk(y, in_stride, 0);
}

// ---- Pad ------------------------------------------------------------------------------------------------------------

std::string pad_can_implement(const StepDesc& desc, int) {
    const auto& a = desc.attr<ir::PadAttrs>();
    if (!a.pads) return "dynamic pads";
    if (static_cast<int>(a.pads->size()) != 2 * desc.inputs[0].rank()) return "pads do not match the rank";
    return check_map(desc);
}

StridedCopyParams pad_params(const StepDesc& desc) {
    const TensorDesc &x = desc.inputs[0], &y = desc.outputs[0];
    const auto& a = desc.attr<ir::PadAttrs>();
    const std::vector<int64_t>& pads = *a.pads;
    int rank = x.rank();
    MapMode border = a.mode == ir::PadMode::constant ? MapMode::pad_constant
                     : a.mode == ir::PadMode::edge   ? MapMode::pad_edge
                                                     : MapMode::pad_reflect;
    std::vector<MapMode> modes(rank, MapMode::linear);
    std::vector<int64_t> shift(rank, 0);
    Strides xs = x.logical_strides();
    int64_t base = 0;
    for (int d = 0; d < rank; ++d) {
        bool crop_only = pads[d] <= 0 && pads[rank + d] <= 0;
        if (crop_only) {  // a plain window of the source: linear, and mergeable
            base += -pads[d] * xs[d];
        } else {
            modes[d] = border;
            shift[d] = pads[d];
        }
    }
    StridedCopyParams p = output_walk(y, xs, base, modes, x.shape, shift);
    backends::reference::write_scalar(y.dtype, a.value, &p.fill);
    return p;
}

// ---- Tile and Expand ------------------------------------------------------------------------------------------------

std::string tile_can_implement(const StepDesc& desc, int) {
    if (!desc.attr<ir::TileAttrs>().repeats) return "dynamic repeats";
    return check_map(desc);
}

StridedCopyParams tile_params(const StepDesc& desc) {
    const TensorDesc &x = desc.inputs[0], &y = desc.outputs[0];
    const auto& repeats = *desc.attr<ir::TileAttrs>().repeats;
    std::vector<MapMode> modes(x.rank(), MapMode::linear);
    for (int d = 0; d < x.rank(); ++d)
        if (repeats[d] != 1) modes[d] = MapMode::tile;
    return output_walk(y, x.logical_strides(), 0, modes, x.shape, std::vector<int64_t>(x.rank(), 0));
}

std::string expand_can_implement(const StepDesc& desc, int) {
    if (desc.inputs[0].rank() > desc.outputs[0].rank()) return "input rank above the output's";
    return check_map(desc);
}

StridedCopyParams expand_params(const StepDesc& desc) {
    const TensorDesc &x = desc.inputs[0], &y = desc.outputs[0];
    return output_walk(y, broadcast_strides(x.shape, x.logical_strides(), y.shape), 0);
}

// ---- Gather ---------------------------------------------------------------------------------------------------------

std::string gather_can_implement(const StepDesc& desc, int) {
    if (std::string why = check_index_space(desc.inputs, desc.outputs); !why.empty()) return why;
    const TensorDesc &x = desc.inputs[0], &idx = desc.inputs[1];
    if (idx.dtype != DType::i64 && idx.dtype != DType::i32) return "indices must be int32 or int64";
    if (x.rank() < 1 || desc.outputs[0].dtype != x.dtype) return "data rank 0 or output dtype differs";
    return {};
}

GatherParams gather_params_of(const StepDesc& desc) {
    const TensorDesc &x = desc.inputs[0], &idx = desc.inputs[1], &y = desc.outputs[0];
    int axis = static_cast<int>(normalize_axis(*desc.node, desc.attr<ir::AxisAttrs>().axis, x.rank()));
    Strides xs = x.logical_strides(), is = idx.logical_strides(), data_stride{}, index_stride{};
    // Output dims: data[:axis], indices' dims, data[axis+1:].
    for (int d = 0; d < axis; ++d) data_stride[d] = xs[d];
    for (int k = 0; k < idx.rank(); ++k) index_stride[axis + k] = is[k];
    for (int d = axis + 1; d < x.rank(); ++d) data_stride[d - 1 + idx.rank()] = xs[d];
    LoopDims loop = make_loop(y.shape, memory_order(y), {data_stride, index_stride, y.logical_strides()});
    GatherParams p;
    p.rank = loop.rank;
    for (int r = 0; r < loop.rank; ++r) {
        p.size[r] = static_cast<uint32_t>(loop.size[r]);
        p.data_stride[r] = loop.stride[0][r];
        p.index_stride[r] = loop.stride[1][r];
    }
    p.axis_stride = xs[axis];
    p.axis_size = x.shape[axis];
    p.total = static_cast<uint32_t>(y.numel());
    p.index64 = idx.dtype == DType::i64;
    return p;
}

// ---- ConstantOfShape and Shape --------------------------------------------------------------------------------------

std::string constant_of_shape_can_implement(const StepDesc& desc, int) {
    return check_index_space({}, desc.outputs);
}

void constant_of_shape_launch(const StepDesc& desc, const StepBuffers& b, cudaStream_t stream) {
    const TensorDesc& y = desc.outputs[0];
    uint64_t bits = 0;
    backends::reference::write_scalar(y.dtype, desc.attr<ir::ConstantOfShapeAttrs>().value, &bits);
    launch_fill(b.outputs[0], y.numel(), static_cast<int>(dtype_size(y.dtype)), bits,
                grid_blocks(y.numel(), kCopyThreads, desc.device), stream);
}

std::string shape_can_implement(const StepDesc& desc, int) {
    if (desc.outputs[0].dtype != DType::i64) return "output must be int64";
    if (desc.inputs[0].rank() > kMaxRank) return "rank above 8";
    return {};
}

void shape_launch(const StepDesc& desc, const StepBuffers& b, cudaStream_t stream) {
    const auto& a = desc.attr<ir::ShapeAttrs>();
    const Shape& dims = desc.inputs[0].shape;
    int64_t rank = static_cast<int64_t>(dims.size());
    auto clamp_dim = [rank](int64_t i) { return std::clamp<int64_t>(i < 0 ? i + rank : i, 0, rank); };
    int64_t start = clamp_dim(a.start), end = clamp_dim(a.end.value_or(rank));
    ShapeValues v;
    for (int64_t i = start; i < end; ++i) v.value[v.count++] = dims[i];
    launch_write_shape(v, static_cast<int64_t*>(b.outputs[0]), stream);
}

}  // namespace

StridedCopyParams map_params(const StepDesc& desc) {
    switch (desc.node->op) {
        case ir::OpKind::Slice:
            return slice_params(desc);
        case ir::OpKind::Transpose:
            return transpose_params(desc);
        case ir::OpKind::Pad:
            return pad_params(desc);
        case ir::OpKind::Tile:
            return tile_params(desc);
        case ir::OpKind::Expand:
            return expand_params(desc);
        default:
            STRATA_ASSERT(false, "{} is not a strided-copy op", ir::node_label(*desc.node));
    }
    return {};
}

GatherParams gather_params(const StepDesc& desc) {
    return gather_params_of(desc);
}

namespace {

void map_launch(const StepDesc& desc, const StepBuffers& b, cudaStream_t stream) {
    StridedCopyParams p = map_params(desc);
    launch_strided_copy(p, static_cast<int>(dtype_size(desc.outputs[0].dtype)), b.inputs[0], b.outputs[0],
                        grid_blocks(p.total, kCopyThreads, desc.device), stream);
}

void gather_launch(const StepDesc& desc, const StepBuffers& b, cudaStream_t stream) {
    GatherParams p = gather_params(desc);
    launch_gather(p, static_cast<int>(dtype_size(desc.inputs[0].dtype)), b.inputs[0], b.inputs[1], b.outputs[0],
                  grid_blocks(p.total, kCopyThreads, desc.device), stream);
}

}  // namespace

void register_data_map_tactics(CudaTacticRegistry& registry);

void register_data_map_tactics(CudaTacticRegistry& registry) {
    registry.add({"cuda.slice", ir::OpKind::Slice, 1, slice_can_implement, make_function_kernel<map_launch>});
    registry.add(
        {"cuda.transpose", ir::OpKind::Transpose, 1, transpose_can_implement, make_function_kernel<map_launch>});
    registry.add({"cuda.pad", ir::OpKind::Pad, 1, pad_can_implement, make_function_kernel<map_launch>});
    registry.add({"cuda.tile", ir::OpKind::Tile, 1, tile_can_implement, make_function_kernel<map_launch>});
    registry.add({"cuda.expand", ir::OpKind::Expand, 1, expand_can_implement, make_function_kernel<map_launch>});
    registry.add({"cuda.gather", ir::OpKind::Gather, 1, gather_can_implement, make_function_kernel<gather_launch>});
    registry.add({"cuda.constant_of_shape", ir::OpKind::ConstantOfShape, 1, constant_of_shape_can_implement,
                  make_function_kernel<constant_of_shape_launch>});
    registry.add({"cuda.shape", ir::OpKind::Shape, 1, shape_can_implement, make_function_kernel<shape_launch>});
}

}  // namespace strata::cuda
