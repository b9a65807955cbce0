// empty_kernel.h: a kernel that does nothing but take part in programmatic dependent launch. Benchmarks time chains
// of it to know the launch floor: the least time a kernel node costs in a CUDA graph of dependent launches on this
// GPU, below which no kernel of a chain can go whatever it computes.
#pragma once

#include <cuda_runtime_api.h>

namespace strata::cuda {

/// Enqueues the empty kernel: `blocks` blocks of `threads` threads, launched with PDL when `pdl` (each block waits
/// on its predecessor, then lets its successor be scheduled, as strata's PDL kernels do).
void launch_empty_kernel(int blocks, int threads, bool pdl, cudaStream_t stream);

}  // namespace strata::cuda
