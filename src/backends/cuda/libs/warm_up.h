// warm_up.h: one launch of a library kernel in make(), on zeroed buffers, so that what the libraries do on a first
// call (cuDNN builds execution plans; CUDA loads kernel modules lazily) never happens inside a CUDA graph capture.
#pragma once

#include "backends/cuda/cuda_tactic.h"

namespace strata::cuda::libs {

/// Launches `kernel` once on zeroed buffers of the desc's sizes (and its workspace) on a private stream, and waits.
void warm_up(CudaKernel& kernel, const StepDesc& desc);

}  // namespace strata::cuda::libs
