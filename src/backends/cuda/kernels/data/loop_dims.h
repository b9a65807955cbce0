// loop_dims.h: the index space shared by the memory-bound kernels. A kernel walks its output in physical order as a
// nest of at most kMaxRank loops; each operand reads (or writes) at sum(coord[d] * stride[d]). Built on the host
// from TensorDescs: dims are put in the output's memory order, size-1 dims dropped and dims that are contiguous in
// every operand merged, so a same-layout copy becomes one flat loop and a per-channel broadcast two or three.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "backends/cuda/device.h"
#include "backends/cuda/tensor_desc.h"

namespace strata::cuda {

using Strides = std::array<int64_t, kMaxRank>;

/// A loop nest, outermost dim first. stride[k][d]: operand k's element step along dim d.
struct LoopDims {
    int rank = 0;
    Strides size{};
    std::vector<Strides> stride;
    std::array<int, kMaxRank> dim{};  ///< the logical dim each loop dim came from (its innermost, when merged)
    int64_t numel() const;
};

/// The logical dims of `desc` in memory order, outermost first (0, 2, 3, 1 for a channels-last tensor).
std::vector<int> memory_order(const TensorDesc& desc);

/// Row-major element strides of a shape (entries past its rank are 0).
Strides row_major_strides(const Shape& shape);

/// Strides of `in` when it is read while walking the numpy-broadcast shape `out`: aligned to the right, 0 along
/// broadcast dims. `in_strides` are in's own logical strides.
Strides broadcast_strides(const Shape& in, const Strides& in_strides, const Shape& out);

/// The loop over logical `shape` in `order` (outermost first) with one stride vector per operand (indexed by
/// logical dim); size-1 dims are dropped and mergeable neighbours merged unless `keep[d]` says a dim must stay.
LoopDims make_loop(const Shape& shape, const std::vector<int>& order, const std::vector<Strides>& strides,
                   const std::vector<bool>& keep = {});

/// Blocks for a grid-stride loop over `items` with `threads` per block: enough to fill the GPU, capped (16 per SM).
int grid_blocks(int64_t items, int threads, const DeviceInfo* device);

/// True when a tensor's bytes are in logical (row-major) order: not channels-last, or H*W == 1 or C == 1.
bool rowmajor_bytes(const TensorDesc& desc);

/// Empty when every tensor of the step fits the kernels' index space (rank <= 8, < 2^31 elements); else why not.
std::string check_index_space(const std::vector<TensorDesc>& inputs, const std::vector<TensorDesc>& outputs);

}  // namespace strata::cuda
