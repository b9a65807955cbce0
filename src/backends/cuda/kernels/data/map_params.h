// map_params.h: the copy.h parameters of the index-map ops, exposed so that tests can check them on the host (an
// emulation of the kernel's index arithmetic against the reference backend) where no GPU is present.
#pragma once

#include "backends/cuda/cuda_tactic.h"
#include "backends/cuda/kernels/data/copy.h"

namespace strata::cuda {

/// Slice, Transpose, Pad, Tile or Expand as one strided copy of the whole output.
StridedCopyParams map_params(const StepDesc& desc);
/// Gather along the node's axis.
GatherParams gather_params(const StepDesc& desc);

}  // namespace strata::cuda
