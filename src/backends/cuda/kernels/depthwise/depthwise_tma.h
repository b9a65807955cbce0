// depthwise_tma.h: the Hopper tensor-memory-accelerator copy of a staged depthwise tile (NOTE [depthwise tma tile],
// depthwise_blocked.cuh): the tensor map the kernel's one bulk copy reads, encoded on the host per launch.
#pragma once

#include <cuda.h>

#include "backends/cuda/kernels/depthwise/depthwise.h"

namespace strata::cuda {

/// Encodes `map` for copies of an NHWC input box of `cl_words` 4-byte channel words x `in_cols` x `in_rows` x one
/// image of prm.x, zeros outside the tensor. False, leaving `map` unspecified, where the tensor map cannot describe
/// the input (a base not 16-byte aligned, a row or image stride not a multiple of 16 bytes, channels not contiguous, a
/// box side over 256) or the driver has no cuTensorMapEncodeTiled: the caller then stages with cp.async.
bool encode_depthwise_tile_map(const DepthwiseParams& prm, int elem_bytes, int cl_words, int in_cols, int in_rows,
                               CUtensorMap& map);

}  // namespace strata::cuda
