// global_pool_split.h: channels-last global pooling split over the spatial positions (see global_pool_split.cu).
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

#include "strata/tensor.h"

namespace strata::cuda {

struct GlobalPoolSplit {
    int64_t batch = 0, channels = 0, inner = 0;  ///< N, C, H*W
    int64_t splits = 1, chunk = 0;               ///< spatial rows per split
    int vector = 1;                              ///< channels per 16-byte load (1 when C or the pointers do not allow)
    bool is_max = false;
};

/// Splits so that about two waves of blocks cover the GPU, each split keeping at least 32 rows.
GlobalPoolSplit plan_global_pool_split(int64_t batch, int64_t channels, int64_t inner, bool is_max, int vector,
                                       int sm_count);
/// Float partial sums and maxima: 2 * N * splits * C floats.
size_t global_pool_split_workspace(const GlobalPoolSplit& s);
/// x: [N, H*W, C] (channels-last); y: [N, C]; `workspace` holds global_pool_split_workspace(s) bytes.
void launch_global_pool_split(DType dtype, const GlobalPoolSplit& s, const void* x, void* y, void* workspace,
                              cudaStream_t stream);

}  // namespace strata::cuda
