// conv_transpose.h: ConvTranspose's geometry, shared by strata's direct kernel and the cuDNN tactic, and the direct
// kernel's launcher. ONNX semantics (as the reference backend): W is [C, M/group, R, S] and each input pixel
// scatters x * W into Y[n, g*Mg + m, ih*stride - pad + kh*dil, ...]; only the leading pads place the windows.
// 1-D (rank-3) tensors are the 2-D case with H = R = 1 (rank-3 tensors are stored row-major, i.e. as NCHW).
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>
#include <string>

#include "backends/cuda/cuda_tactic.h"

namespace strata::cuda {

/// Plain values, passed by value to the kernel.
struct ConvTransposeParams {
    int64_t n = 0, c = 0, h = 0, w = 0;  ///< X [N, C, H, W]
    int64_t m = 0, p = 0, q = 0;         ///< Y [N, M, P, Q]
    int64_t group = 1, cg = 0, mg = 0;   ///< channels per group: cg = C / group, mg = M / group
    int64_t r = 1, s = 1;                ///< kernel
    int64_t stride_h = 1, stride_w = 1, dil_h = 1, dil_w = 1;
    int64_t pad_h = 0, pad_w = 0;  ///< leading pads (derived from output_shape when it is given)
    bool nhwc = false;             ///< activations and weight stored channels-last (weight C, R, S, M/g)
};

/// Empty when the desc is a ConvTranspose this geometry describes (rank 3 or 4, float dtypes, shapes that fit);
/// otherwise why not.
std::string conv_transpose_unsupported(const StepDesc& desc);
/// The geometry of a desc that conv_transpose_unsupported() accepted.
ConvTransposeParams conv_transpose_params(const StepDesc& desc);

/// The direct kernel: one thread per output element gathers its taps. `bias` is float32 [M] or null.
void conv_transpose_direct_launch(DType dtype, const ConvTransposeParams& p, const void* x, const void* w,
                                  const float* bias, void* y, cudaStream_t stream);

void register_conv_transpose_tactics(CudaTacticRegistry& registry);

}  // namespace strata::cuda
