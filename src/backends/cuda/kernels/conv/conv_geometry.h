// conv_geometry.h: one convolution step reduced to plain integers (sizes, strides, pads, groups), computed once on
// the host from the StepDesc and shared by every conv kernel of this folder. A 1-D convolution is the 2-D case
// with H = P = R = 1 (the spatial dim maps to the width), as in the reference backend.
#pragma once

#include <cstdint>
#include <string>

#include "backends/cuda/cuda_tactic.h"
#include "backends/cuda/kernels/common/epilogue.h"

namespace strata::cuda {

struct ConvGeometry {
    int n = 1, c = 1, h = 1, w = 1;  ///< input: batch, channels, height, width
    int k = 1, p = 1, q = 1;         ///< output: channels, height, width
    int r = 1, s = 1;                ///< kernel height, width
    int stride_h = 1, stride_w = 1, dil_h = 1, dil_w = 1;
    int pad_h = 0, pad_w = 0;  ///< top and left pads (bottom/right only shape P and Q)
    int group = 1;
    bool one_d = false;  ///< rank-3 tensors

    int64_t out_pixels() const { return int64_t{n} * p * q; }
    /// "N1 C3 H224 W224 K64 P112 Q112 R7 S7 s2x2 d1x1 p3x3 g1"
    std::string str() const;
};

/// The geometry of a Conv step (X [N,C,(H,)W], W [K,C/g,(R,)S], Y [N,K,(P,)Q]). Throws on a rank other than 3/4.
ConvGeometry conv_geometry(const StepDesc& desc);

/// The geometry of a FullyConnected step as a 1x1 convolution on a 1x1 image: X [N,C] -> Y [N,K].
ConvGeometry fc_geometry(const StepDesc& desc);

/// The step's fused epilogue: bias (input 2), residual (input 3, when the IR has it) and activation.
EpilogueParams conv_epilogue(const StepDesc& desc, const StepBuffers& buffers);

/// Element strides of a conv tensor's logical dims as (n, c, h, w) / (k, c, r, s); a rank-3 tensor (1-D conv) has
/// no height and gets stride 0 there.
void conv_strides(const TensorDesc& t, int64_t out[4]);

/// Empty when every tensor of the step has a float dtype equal to the compute dtype (bias: float32).
std::string conv_dtype_problem(const StepDesc& desc);

}  // namespace strata::cuda
