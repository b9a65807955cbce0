// launch_timer.h: how strata times one kernel, the way a network runs it: a CUDA graph of `launches` launches,
// replayed (the launch gaps are the graph's, not the host's, which matters for kernels of a few microseconds and
// for library calls whose host-side enqueue is slow). Used by the builder's tactic timing, `strata profile` and
// the benchmark programs.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "backends/cuda/cuda_tactic.h"

namespace strata::cuda {

/// Enqueues launch number `launch` (0 <= launch < launches) of whatever is timed on `stream`; it is called while
/// the stream is being captured, so the same rules as CudaKernel::launch() hold.
using EnqueueFn = std::function<void(int launch, cudaStream_t stream)>;

/// Captures `launches` calls of `enqueue` into a graph, replays it once untimed, then `replays` times with CUDA
/// events; returns each replay's milliseconds per launch. Throws strata::Error naming `what` on a CUDA failure.
/// The general form, for work that is not one CudaKernel on fixed buffers (rotated buffers, copies, kernels with
/// their own launch API).
std::vector<double> graph_enqueue_times(const EnqueueFn& enqueue, cudaStream_t stream, int launches, int replays,
                                        const std::string& what);

/// graph_enqueue_times of `launches` launches of `kernel` on `buffers`.
std::vector<double> graph_launch_times(CudaKernel& kernel, const StepBuffers& buffers, cudaStream_t stream,
                                       int launches, int replays, const std::string& what);

}  // namespace strata::cuda
