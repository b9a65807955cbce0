// separable.h: the fused depthwise -> pointwise convolution (issue 4; the MobileNet/MnasNet pattern
// Y = act_p(conv1x1(act_d(dwconv(X) + Bd)) + Bp + Z)). The depthwise result never leaves the SM: a block computes
// it for an 8 x 16 tile of output pixels, 32 mid channels at a time, into shared memory, and the tensor cores
// multiply that chunk by the pointwise weights into fp32 accumulators held across the chunks, while the next
// chunk's input tile arrives (cp.async). So the mid tensor (6x the block's output channels in MobileNetV2) is neither
// written nor read back. See NOTE [separable tiles] in separable.cu.
// NHWC fp16 or bf16; depthwise multiplier 1, 3x3 or 5x5, stride 1 or 2 (the same both ways), any padding,
// dilation 1; Cm % 8 == 0, K % 8 == 0, K <= 64 (the early layers, where fusion saves the most and the weight slices
// stay small). A kernel family on its own: no graph step runs it yet (bench/separable_gpu times it against the
// two separate kernels).
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <string>

#include "backends/cuda/kernels/common/epilogue.h"
#include "strata/tensor.h"

namespace strata::cuda {

inline constexpr int kSepChunk = 32;  ///< mid channels per round (two mma k-steps)
inline constexpr int kSepThreads = 256;
inline constexpr int kSepMaxOut = 64;  ///< the most output channels

struct SeparableParams {
    int n = 1, h = 1, w = 1, cm = 8;  ///< X [N, H, W, Cm]; Cm is also the mid channel count
    int p = 1, q = 1, k = 8;          ///< Y [N, P, Q, K]
    int r = 3, s = 3;                 ///< depthwise filter
    int stride_h = 1, stride_w = 1, pad_h = 0, pad_w = 0;  ///< top / left pads (bottom / right only shape P, Q)
    const void* x = nullptr;          ///< NHWC, 16-byte aligned
    const void* wd = nullptr;         ///< depthwise weights [Cm][R*S] (KRSC of a depthwise filter)
    const float* bd = nullptr;        ///< [Cm] or null; 16-byte aligned (read as float4)
    ActivationParams act_d;           ///< after the depthwise bias
    const void* wp = nullptr;         ///< pointwise weights [K][Cm], 16-byte aligned
    EpilogueParams epilogue;          ///< pointwise bias [K], residual NHWC like Y (4-byte aligned), activation
    void* y = nullptr;                ///< NHWC, 4-byte aligned
};

/// Empty when the kernel covers (dtype, Cm, K, the R x S filter, the stride); otherwise why not.
std::string separable_problem(DType dtype, int cm, int k, int r, int s, int stride_h, int stride_w);

/// Dynamic shared memory of one block (0 for a case separable_problem refuses).
size_t separable_smem_bytes(DType dtype, int r, int stride, int k);

/// Lets the kernel of (dtype, r, stride, k) use its dynamic shared memory (over the default 48 KiB for stride 2).
/// Call once before launching (it neither allocates nor synchronises; not during stream capture).
cudaError_t separable_prepare(DType dtype, int r, int stride, int k);

/// Enqueues the fused convolution on `stream` (see separable_problem; separable_prepare first).
void separable_launch(const SeparableParams& params, DType dtype, cudaStream_t stream);

}  // namespace strata::cuda
