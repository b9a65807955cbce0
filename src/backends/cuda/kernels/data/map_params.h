// map_params.h: the copy.h parameters of the data-movement ops, exposed so that tests can check them on the host (an
// emulation of the kernels' index arithmetic against the reference backend) where no GPU is present.
#pragma once

#include <optional>
#include <vector>

#include "backends/cuda/cuda_tactic.h"
#include "backends/cuda/kernels/data/copy.h"

namespace strata::cuda {

/// Slice, Transpose, Pad, Tile or Expand as one strided copy of the whole output.
StridedCopyParams map_params(const StepDesc& desc);
/// A Slice that is one pitched row copy (unit steps; the output, walked in memory order, is rows of one contiguous
/// run in both tensors, as a channel slice of an nhwc tensor is) on buffers `b`, else nullopt: map_params() applies.
std::optional<RowCopySegment> slice_rows(const StepDesc& desc, const StepBuffers& b);
/// Gather along the node's axis.
GatherParams gather_params(const StepDesc& desc);
/// The fast path of a Gather of whole channels (rank-4 data and output in one layout, axis 1, 1-D indices, channel
/// counts within the table's limits) on buffers `b` (their addresses choose the word), else nullopt: the generic
/// gather_params() then applies.
std::optional<ChannelGatherParams> channel_gather_params(const StepDesc& desc, const StepBuffers& b);
/// Blocks for launch_channel_gather: one per kCopyThreads words, at most what is resident.
int channel_gather_blocks(const ChannelGatherParams& p, const DeviceInfo* device);

/// One piece of a Concat, Split or plain copy (Identity, Reshape, ...): a pitched row copy where the parts store
/// their dims in one order, else a strided copy.
struct CopyJob {
    bool rows = true;
    RowCopySegment segment;     ///< rows
    StridedCopyParams strided;  ///< !rows: from src to dst in elements of elem_size bytes
    int elem_size = 0;
    const void* src = nullptr;
    void* dst = nullptr;
};
/// The jobs of a Concat, Split or plain-copy step on buffers `b` (the pointers are only used for arithmetic).
std::vector<CopyJob> copy_jobs(const StepDesc& desc, const StepBuffers& b);

}  // namespace strata::cuda
