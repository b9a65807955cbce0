// launch_timer.h: how strata times one kernel, the way a network runs it: a CUDA graph of `launches` launches,
// replayed (the launch gaps are the graph's, not the host's, which matters for kernels of a few microseconds and
// for library calls whose host-side enqueue is slow). Used by the builder's tactic timing, `strata profile` and
// the benchmark programs.
#pragma once

#include <string>
#include <vector>

#include "backends/cuda/cuda_tactic.h"

namespace strata::cuda {

/// Captures `launches` launches of `kernel` into a graph, replays it once untimed, then `replays` times with CUDA
/// events; returns each replay's milliseconds per launch. Throws strata::Error naming `what` on a CUDA failure.
std::vector<double> graph_launch_times(CudaKernel& kernel, const StepBuffers& buffers, cudaStream_t stream,
                                       int launches, int replays, const std::string& what);

}  // namespace strata::cuda
