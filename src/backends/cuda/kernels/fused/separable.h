// separable.h: the fused depthwise -> pointwise convolution (issue 4; the MobileNet/MnasNet pattern
// Y = act_p(conv1x1(act_d(dwconv(X) + Bd)) + Bp + Z)). The depthwise result never leaves the SM: a block computes
// it for 64 output pixels, 32 mid channels at a time, into shared memory, and the tensor cores multiply that chunk by
// the pointwise weights into fp32 accumulators held across the chunks. So the mid tensor (6x the block's input and
// output channels in MobileNetV2) is neither written nor read back; X is read once (the 3x3 halo through L1), the
// pointwise weights come from L2. See NOTE [separable tiles] in separable.cu for the block's work and its limits.
// NHWC fp16 or bf16; depthwise multiplier 1, k 3 or 5, any stride and padding, dilation 1; Cm % 8 == 0, K % 8 == 0,
// K <= 320. A kernel family on its own: no graph step runs it yet (bench/depthwise_gpu times it against the two
// separate kernels).
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <string>

#include "backends/cuda/kernels/common/epilogue.h"
#include "strata/tensor.h"

namespace strata::cuda {

inline constexpr int kSepPixels = 64;   ///< output pixels per block (consecutive in N, P, Q order)
inline constexpr int kSepChunk = 32;    ///< mid channels per round (two mma k-steps)
inline constexpr int kSepThreads = 256;
inline constexpr int kSepMaxOut = 320;  ///< the most output channels (MobileNetV2's last projection)

struct SeparableParams {
    int n = 1, h = 1, w = 1, cm = 8;  ///< X [N, H, W, Cm]; Cm is also the mid channel count
    int p = 1, q = 1, k = 8;          ///< Y [N, P, Q, K]
    int r = 3, s = 3;                 ///< depthwise filter
    int stride_h = 1, stride_w = 1, pad_h = 0, pad_w = 0;  ///< top / left pads (bottom / right only shape P, Q)
    const void* x = nullptr;          ///< NHWC, 16-byte aligned
    const void* wd = nullptr;         ///< depthwise weights [R*S][Cm] (tap-major), 16-byte aligned
    const float* bd = nullptr;        ///< [Cm] or null
    ActivationParams act_d;           ///< after the depthwise bias
    const void* wp = nullptr;         ///< pointwise weights [K][Cm], 16-byte aligned
    EpilogueParams epilogue;          ///< pointwise bias [K], residual NHWC like Y (4-byte aligned), activation
    void* y = nullptr;                ///< NHWC, 4-byte aligned
};

/// Empty when the kernel covers (dtype, Cm, K, R, S); otherwise why not.
std::string separable_problem(DType dtype, int cm, int k, int r, int s);

/// Dynamic shared memory of one block for K output channels.
size_t separable_smem_bytes(int k);

/// Enqueues the fused convolution on `stream` (dtype f16 or bf16; see separable_problem).
void separable_launch(const SeparableParams& params, DType dtype, cudaStream_t stream);

}  // namespace strata::cuda
