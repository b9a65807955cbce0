// reduce.h: ReduceMean / ReduceSum / ReduceMax / ReduceMin over any set of axes, keepdims or not, float dtypes
// (accumulated in float). The kept dims form the output loop (in the input's memory order, so neighbouring threads
// read neighbouring elements); the reduced dims form the inner loop. When the input's innermost memory dim is
// reduced, a warp shares each output instead, its lanes walking the contiguous run.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

#include "backends/cuda/tensor_desc.h"

namespace strata::cuda {

struct StepDesc;

inline constexpr int kReduceThreads = 256;

struct ReduceParams {
    int kind = 0;  ///< ir::ReduceKind
    int kept_rank = 0, reduced_rank = 0;
    uint32_t kept_size[kMaxRank] = {}, reduced_size[kMaxRank] = {};
    int64_t kept_in_stride[kMaxRank] = {}, kept_out_stride[kMaxRank] = {}, reduced_stride[kMaxRank] = {};
    uint32_t outputs = 0, count = 0;  ///< output elements; input elements per output
    bool warp_per_output = false;
};
/// A Reduce step's loops; exposed for host-side tests.
ReduceParams reduce_params(const StepDesc& desc);
void launch_reduce(DType dtype, const ReduceParams& p, const void* x, void* y, int sm_count, cudaStream_t stream);

}  // namespace strata::cuda
