// elementwise.h: parameters and launchers of the elementwise kernels: Unary (every ir::UnaryKind), Binary (every
// ir::BinaryKind with numpy broadcasting) and Cast (any dtype pair, any layout pair). Float dtypes compute in float.
// Broadcasting and layouts are one mechanism: the output is walked in its memory order and each input is read
// through its logical strides, 0 along broadcast dims (loop_dims.h merges what it can, so a same-shape op is one
// flat, vectorised loop). Launchers only enqueue work. Unary and Binary may run in place (y == x, c == a or c == b
// with the output's shape): each element is read before it is written, by the thread that writes it.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

#include "backends/cuda/kernels/common/epilogue.h"
#include "backends/cuda/tensor_desc.h"

namespace strata::cuda {

struct StepDesc;

inline constexpr int kElementwiseThreads = 256;

/// y = f(x) over n elements of one layout.
void launch_unary(DType dtype, const ActivationParams& act, const void* x, void* y, int64_t n, int blocks,
                  cudaStream_t stream);

/// Element idx of the output (walked in memory order) reads a at sum(o*a_stride), b at sum(o*b_stride).
struct BinaryParams {
    int kind = 0;  ///< ir::BinaryKind
    int rank = 0;
    uint32_t size[kMaxRank] = {};
    int64_t a_stride[kMaxRank] = {}, b_stride[kMaxRank] = {};
    uint32_t total = 0;
};
/// A Binary step's loop (the output in memory order, broadcast strides); exposed for host-side tests.
BinaryParams binary_params(const StepDesc& desc);
/// rank == 1 with unit strides takes the flat vectorised path.
void launch_binary(DType dtype, const BinaryParams& p, const void* a, const void* b, void* c, int blocks,
                   cudaStream_t stream);

/// Float-to-float cast of n elements in one layout (vectorised).
void launch_cast_flat(DType from, DType to, const void* x, void* y, int64_t n, int blocks, cudaStream_t stream);
/// Float-to-float cast with a batched 2-D transpose: x [batch, rows, cols] -> y [batch, cols, rows] (nchw <-> nhwc).
/// Shared-memory tiles when both sides are at least 32; one thread per output element (`blocks` of them, grid-stride)
/// for a short side such as a 3-channel input.
void launch_cast_transpose(DType from, DType to, const void* x, void* y, int64_t batch, int64_t rows, int64_t cols,
                           int blocks, cudaStream_t stream);
/// Any dtype pair, the output walked in memory order and the input read through in_stride.
struct CastParams {
    int from = 0, to = 0;  ///< DType
    int rank = 0;
    uint32_t size[kMaxRank] = {};
    int64_t in_stride[kMaxRank] = {};
    uint32_t total = 0;
};
void launch_cast_any(const CastParams& p, const void* x, void* y, int blocks, cudaStream_t stream);

}  // namespace strata::cuda
