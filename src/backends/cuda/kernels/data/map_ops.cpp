// map_ops.cpp: the tactics whose output element reads a source element through a per-dim coordinate map (copy.h's
// strided copy and gather): Slice, Transpose, Pad, Tile, Expand and Gather (with its fast path for whole channels),
// plus the writers ConstantOfShape and Shape. The maps follow the reference backend exactly (backends/reference/
// {slice,transpose,pad,tile_expand,gather,shape_ops}.cpp); logical strides carry the layouts, and the output is
// always walked in its memory order.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <optional>

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

// The largest word (16..1 bytes) dividing every size and address given.
int largest_word(std::initializer_list<uint64_t> sizes_and_addresses) {
    uint64_t bits = 16;
    for (uint64_t v : sizes_and_addresses) bits |= v;
    return static_cast<int>(bits & (~bits + 1));
}

uint64_t address(const void* p) {
    return reinterpret_cast<uintptr_t>(p);
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

// A slice whose output, walked in memory order, is rows of one contiguous run in both tensors: the channel halves
// of ShuffleNetV2's split in nhwc (N*H*W rows of C/2 of the C channels), or in nchw (N rows of C/2 planes). Any
// unit-step slice of that form moves as a pitched row copy in words of up to 16 bytes instead of element by element.
std::optional<RowCopySegment> slice_rows_of(const StepDesc& desc, const StepBuffers& b) {
    StridedCopyParams p = slice_params(desc);
    if (p.rank > 2 || p.total == 0) return {};
    const int last = p.rank - 1;
    if (p.rank >= 1 && (p.in_stride[last] != 1 || p.out_stride[last] != 1)) return {};
    if (p.rank == 2 && (p.in_stride[0] <= 0 || p.out_stride[0] <= 0)) return {};  // a reversed outer dim
    const int64_t elem = static_cast<int64_t>(dtype_size(desc.outputs[0].dtype));
    RowCopySegment seg;
    seg.src = static_cast<const char*>(b.inputs[0]) + p.in_base * elem;
    seg.dst = static_cast<char*>(b.outputs[0]);
    seg.rows = p.rank == 2 ? p.size[0] : 1;
    seg.row_bytes = (p.rank >= 1 ? p.size[last] : 1) * elem;
    seg.src_pitch = p.rank == 2 ? p.in_stride[0] * elem : seg.row_bytes;
    seg.dst_pitch = p.rank == 2 ? p.out_stride[0] * elem : seg.row_bytes;
    return seg;
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

// ---- Gather of whole channels: the fast path ------------------------------------------------------------------------

std::optional<ChannelGatherParams> channel_gather_params_of(const StepDesc& desc, const StepBuffers& b) {
    const TensorDesc &x = desc.inputs[0], &idx = desc.inputs[1], &y = desc.outputs[0];
    if (x.rank() != 4 || y.rank() != 4 || idx.rank() != 1 || x.channels_last() != y.channels_last()) return {};
    if (normalize_axis(*desc.node, desc.attr<ir::AxisAttrs>().axis, x.rank()) != 1 || x.dtype != y.dtype) return {};
    if (y.shape[1] > kMaxChannelTable || x.shape[1] > kMaxChannelIndex) return {};
    const int64_t elem = static_cast<int64_t>(dtype_size(x.dtype));
    ChannelGatherParams p;
    p.channels_last = y.channels_last();
    p.in_channels = static_cast<int32_t>(x.shape[1]);
    p.out_channels = static_cast<int32_t>(y.shape[1]);
    // A row: one pixel's channels of the output (read element by element), or one H*W plane of both tensors.
    const int64_t row_bytes = (p.channels_last ? y.shape[1] : y.shape[2] * y.shape[3]) * elem;
    const uint64_t rb = static_cast<uint64_t>(row_bytes);
    p.word = p.channels_last ? largest_word({rb, address(b.outputs[0])})
                             : largest_word({rb, address(b.outputs[0]), address(b.inputs[0])});
    if (p.word < elem || elem > 8) return {};  // a misaligned buffer: leave it to the generic kernel
    p.elem_size = static_cast<int>(elem);
    p.row_words = static_cast<uint32_t>(row_bytes / p.word);
    p.words = static_cast<uint32_t>(y.numel() * elem / p.word);
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

std::optional<RowCopySegment> slice_rows(const StepDesc& desc, const StepBuffers& b) {
    return slice_rows_of(desc, b);
}

std::optional<ChannelGatherParams> channel_gather_params(const StepDesc& desc, const StepBuffers& b) {
    return channel_gather_params_of(desc, b);
}

int channel_gather_blocks(const ChannelGatherParams& p, const DeviceInfo* device) {
    int64_t want = (static_cast<int64_t>(p.words) + kCopyThreads - 1) / kCopyThreads;
    int64_t cap =
        static_cast<int64_t>(device && device->sm_count > 0 ? device->sm_count : 132) * kChannelGatherBlocksPerSm;
    return static_cast<int>(std::clamp<int64_t>(want, 1, cap));
}

namespace {

void map_launch(const StepDesc& desc, const StepBuffers& b, cudaStream_t stream) {
    StridedCopyParams p = map_params(desc);
    launch_strided_copy(p, static_cast<int>(dtype_size(desc.outputs[0].dtype)), b.inputs[0], b.outputs[0],
                        grid_blocks(p.total, kCopyThreads, desc.device), stream);
}

void slice_launch(const StepDesc& desc, const StepBuffers& b, cudaStream_t stream) {
    std::optional<RowCopySegment> seg = slice_rows(desc, b);
    if (!seg) {
        map_launch(desc, b, stream);
        return;
    }
    RowCopyParams p;
    p.count = 1;
    p.seg[0] = *seg;
    int word = largest_word({static_cast<uint64_t>(seg->row_bytes), static_cast<uint64_t>(seg->src_pitch),
                             static_cast<uint64_t>(seg->dst_pitch), address(seg->src), address(seg->dst)});
    launch_row_copy(p, word, grid_blocks(seg->rows * seg->row_bytes / word, kCopyThreads, desc.device), stream);
}

void gather_launch(const StepDesc& desc, const StepBuffers& b, cudaStream_t stream) {
    if (std::optional<ChannelGatherParams> c = channel_gather_params(desc, b)) {
        launch_channel_gather(*c, b.inputs[0], b.inputs[1], b.outputs[0], channel_gather_blocks(*c, desc.device),
                              stream);
        return;
    }
    GatherParams p = gather_params(desc);
    launch_gather(p, static_cast<int>(dtype_size(desc.inputs[0].dtype)), b.inputs[0], b.inputs[1], b.outputs[0],
                  grid_blocks(p.total, kCopyThreads, desc.device), stream);
}

}  // namespace

void register_data_map_tactics(CudaTacticRegistry& registry);

void register_data_map_tactics(CudaTacticRegistry& registry) {
    registry.add({"cuda.slice", ir::OpKind::Slice, 1, slice_can_implement, make_function_kernel<slice_launch>});
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
