// direct_stem.h: cuda.conv.direct_stem, the direct convolution for few input channels (C <= 4: the 3-channel
// 7x7 / 3x3 stride-2 stem), where an implicit GEMM would waste most of its K slice. The whole weight tensor is
// staged once per block in shared memory as float [R][S][C][K rounded up to 8]; each thread computes 8 output
// channels of one pixel, so every input value it loads feeds 8 FMAs. Layouts are walked through element strides
// (nchw and nhwc share the code; the index multiply is noise beside the R*S*C*8 FMAs per thread).
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

#include "backends/cuda/kernels/common/epilogue.h"
#include "backends/cuda/kernels/conv/conv_geometry.h"
#include "strata/tensor.h"

namespace strata::cuda {

inline constexpr int kStemChannelsPerThread = 8;
inline constexpr int kStemMaxInputChannels = 4;
inline constexpr size_t kStemMaxSmemBytes = 48 * 1024;  ///< the default dynamic shared-memory limit

/// Shared memory the stem kernel needs for the weights of `g`.
inline size_t direct_stem_smem_bytes(const ConvGeometry& g) {
    const size_t kp = (g.k + kStemChannelsPerThread - 1) / kStemChannelsPerThread * kStemChannelsPerThread;
    return static_cast<size_t>(g.r) * g.s * g.c * kp * sizeof(float);
}

struct DirectStemParams {
    ConvGeometry g;            ///< group must be 1, c <= kStemMaxInputChannels
    int64_t x_stride[4] = {};  ///< X element strides of n, c, h, w
    int64_t w_stride[4] = {};  ///< W element strides of k, c, r, s
    int64_t y_stride[4] = {};  ///< Y (and residual) element strides of n, k, p, q
    bool k_fastest = false;    ///< nhwc output: neighbouring threads take neighbouring channel groups
    const void* x = nullptr;
    const void* w = nullptr;
    void* y = nullptr;
    EpilogueParams epilogue;
};

/// Enqueues the stem convolution on `stream`. dtype: f32, f16 or bf16.
void direct_stem_launch(const DirectStemParams& params, DType dtype, cudaStream_t stream);

}  // namespace strata::cuda
