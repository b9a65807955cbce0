// copy.h: the data-movement kernels' parameters (plain structs built on the host by data_ops.cpp) and launchers.
//   - row copy: up to kMaxRowSegments pitched 2-D block copies in one launch, in 16/8/4/2/1-byte words: Concat,
//     Split, Identity and Reshape when layouts agree (each part owns a contiguous run of every outer row);
//   - strided copy: output element at loop coordinates o reads source coordinates mapped per dim (linear for
//     Transpose/Slice/Expand and layout changes, modulo for Tile, border rules for Pad), any element size;
//   - gather along one axis with int32/int64 indices, and a fast path for a gather of whole channels; fill with one
//     value (ConstantOfShape); Shape's int64 dims.
// Launchers only enqueue: no allocation, no synchronisation (they are captured into CUDA graphs).
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

#include "backends/cuda/tensor_desc.h"

namespace strata::cuda {

inline constexpr int kCopyThreads = 256;

struct RowCopySegment {
    const char* src = nullptr;
    char* dst = nullptr;
    int64_t rows = 0, row_bytes = 0, src_pitch = 0, dst_pitch = 0;
};
inline constexpr int kMaxRowSegments = 16;
struct RowCopyParams {
    int count = 0;
    RowCopySegment seg[kMaxRowSegments];
};
/// `word` (16, 8, 4, 2 or 1) divides every row_bytes, pitch and pointer; grid = (blocks, count).
void launch_row_copy(const RowCopyParams& p, int word, int blocks, cudaStream_t stream);

/// How output coordinate o of a dim picks its source coordinate i (then offset += i * in_stride).
enum class MapMode : uint8_t {
    linear,        ///< i = o (start and step are folded into in_base and in_stride)
    tile,          ///< i = o mod in_size
    pad_constant,  ///< i = o - shift; outside [0, in_size) the element is the fill value
    pad_edge,      ///< i = o - shift clamped to [0, in_size)
    pad_reflect,   ///< i = o - shift mirrored about the first and last element
};
struct StridedCopyParams {
    int rank = 0;
    uint32_t size[kMaxRank] = {};
    int64_t in_stride[kMaxRank] = {}, out_stride[kMaxRank] = {};
    MapMode mode[kMaxRank] = {};
    int64_t in_size[kMaxRank] = {}, shift[kMaxRank] = {};
    int64_t in_base = 0, out_base = 0;
    uint64_t fill = 0;  ///< the fill element's bits in the low bytes
    uint32_t total = 0;
};
void launch_strided_copy(const StridedCopyParams& p, int elem_size, const void* in, void* out, int blocks,
                         cudaStream_t stream);

/// Output walked in its memory order; data offset = sum(o * data_stride) + index * axis_stride.
struct GatherParams {
    int rank = 0;
    uint32_t size[kMaxRank] = {};
    int64_t data_stride[kMaxRank] = {}, index_stride[kMaxRank] = {};
    int64_t axis_stride = 0, axis_size = 0;
    uint32_t total = 0;
    bool index64 = true;
};
/// An index outside [-axis_size, axis_size) writes zero bits (the device cannot raise an error).
void launch_gather(const GatherParams& p, int elem_size, const void* data, const void* indices, void* out, int blocks,
                   cudaStream_t stream);

/// Gather of whole channels: rank-4 data and output in one layout, axis 1, 1-D indices (ShuffleNet's channel shuffle,
/// channel_gather.cu). Each block first turns the indices into a table in shared memory: table[j] is output channel
/// j's source channel, or -1 (zero bits) when the index is out of range. Channels last: output word i of a pixel packs
/// out[p, j..j+V) = data[p, table[j..j+V)], read one element at a time. nchw: word k of plane (n, j) is word k of
/// data plane (n, table[j]), a plane copy.
struct ChannelGatherParams {
    bool channels_last = false;
    int32_t in_channels = 0, out_channels = 0;
    uint32_t row_words = 0;  ///< words per output row: one pixel's channels (nhwc) or one H*W plane (nchw)
    uint32_t words = 0;      ///< words in the whole output
    int word = 1;            ///< bytes per word (16, 8, 4, 2 or 1): divides the row's bytes and the buffers' addresses
    int elem_size = 1;       ///< divides `word`
    bool index64 = true;
};
/// The most output channels the shared-memory table holds (16 KiB of int16), and the most input channels an int16
/// entry can name.
inline constexpr int kMaxChannelTable = 8192;
inline constexpr int kMaxChannelIndex = 32767;
/// Each block loads the table once, so the grid is at most what is resident: kChannelGatherBlocksPerSm blocks of
/// kCopyThreads per SM (the kernels' launch bounds keep that many resident).
inline constexpr int kChannelGatherBlocksPerSm = 8;
void launch_channel_gather(const ChannelGatherParams& p, const void* data, const void* indices, void* out, int blocks,
                           cudaStream_t stream);

/// Writes `count` elements of `elem_size` bytes, each the low bytes of `bits`.
void launch_fill(void* out, int64_t count, int elem_size, uint64_t bits, int blocks, cudaStream_t stream);

struct ShapeValues {
    int count = 0;
    int64_t value[kMaxRank] = {};
};
void launch_write_shape(const ShapeValues& v, int64_t* out, cudaStream_t stream);

}  // namespace strata::cuda
