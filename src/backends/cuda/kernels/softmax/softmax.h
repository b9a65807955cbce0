// softmax.h: Softmax and LogSoftmax as [outer, n, inner] in memory order, normalised over n (stride inner). The
// dims normalised over (one axis, or with coerce_2d all dims from the axis on) are adjacent in memory in every
// layout strata uses, so one description serves nchw and nhwc: in nhwc, axis 1 is a contiguous row. May run in
// place (y == x): a row is read in full before its own thread or warp writes it.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

#include "strata/tensor.h"

namespace strata::cuda {

struct StepDesc;

inline constexpr int kSoftmaxThreads = 256;

struct SoftmaxParams {
    int64_t outer = 1, n = 1, inner = 1;
    bool log = false;
};
/// A Softmax / LogSoftmax step's [outer, n, inner]; exposed for host-side tests.
SoftmaxParams softmax_params(const StepDesc& desc);
/// inner == 1: one warp per contiguous row (one block per row for a few long rows); otherwise one thread per
/// (outer, inner) column.
void launch_softmax(DType dtype, const SoftmaxParams& p, const void* x, void* y, int sm_count, cudaStream_t stream);

}  // namespace strata::cuda
