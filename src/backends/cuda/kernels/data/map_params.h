// map_params.h: the copy.h parameters of the data-movement ops, exposed so that tests can check them on the host (an
// emulation of the kernels' index arithmetic against the reference backend) where no GPU is present.
#pragma once

#include <vector>

#include "backends/cuda/cuda_tactic.h"
#include "backends/cuda/kernels/data/copy.h"

namespace strata::cuda {

/// Slice, Transpose, Pad, Tile or Expand as one strided copy of the whole output.
StridedCopyParams map_params(const StepDesc& desc);
/// Gather along the node's axis.
GatherParams gather_params(const StepDesc& desc);

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
