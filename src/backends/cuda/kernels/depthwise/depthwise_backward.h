// depthwise_backward.h: the two backward kernels of a depthwise convolution, for training: dgrad (dX from dY and W)
// and wgrad (dW from X and dY). A standalone API, not a tactic: strata has no training graph yet. Depthwise means
// group == C and K = C * multiplier (output channel k reads input channel k / multiplier). W is the Conv weight in
// the CUDA backend's form: logical [K, 1, R, S], stored as its strides say (nchw and nhwc store the same bytes,
// K, R, S). Every kernel accumulates in float; fp32, fp16 and bf16 tensors. Kernels in depthwise_backward_kernel.cuh,
// launchers in depthwise_backward.cu, the choice of kernel and tile in depthwise_backward_plan.cpp.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <string>

#include "backends/cuda/kernels/conv/conv_geometry.h"
#include "backends/cuda/tensor_desc.h"
#include "strata/tensor.h"

namespace strata::cuda {

struct DepthwiseBackwardParams {
    ConvGeometry g;            ///< the forward convolution: group == c, k == c * multiplier; p, q its output size
    int64_t x_stride[4] = {};  ///< X and dX element strides of n, c, h, w
    int64_t w_stride[4] = {};  ///< W and dW element strides of k, (c), r, s
    int64_t y_stride[4] = {};  ///< dY element strides of n, k, p, q
    const void* x = nullptr;   ///< the forward input (wgrad reads it)
    const void* w = nullptr;   ///< the weights (dgrad reads them)
    const void* dy = nullptr;  ///< the gradient of the forward output (both read it)
    void* dx = nullptr;        ///< dgrad writes it (every element)
    void* dw = nullptr;        ///< wgrad writes it (every element)

    int multiplier() const { return g.c > 0 ? g.k / g.c : 0; }
};

/// Params with the strides of X [N,C,(H,)W], W [K,1,(R,)S] and dY [N,K,(P,)Q] as `x`, `w` and `dy` lay them out (any
/// layout; dX and dW share X's and W's). Pointers stay null.
DepthwiseBackwardParams depthwise_backward_params(const ConvGeometry& g, const TensorDesc& x, const TensorDesc& w,
                                                  const TensorDesc& dy);

/// Empty when the kernels can run `params` at `dtype`; else what is wrong (not depthwise, bad sizes, dtype).
std::string depthwise_backward_problem(const DepthwiseBackwardParams& params, DType dtype);

/// Enqueues dX = the gradient of the convolution with respect to X (reads dy and w, writes dx). No sync, no
/// allocation; the caller checks the launch (check_launch). Throws on a params problem.
void depthwise_dgrad_launch(const DepthwiseBackwardParams& params, DType dtype, cudaStream_t stream);

/// Bytes of workspace depthwise_wgrad_launch needs for `params` (float partial sums; 0 when there is nothing to sum).
size_t depthwise_wgrad_workspace_bytes(const DepthwiseBackwardParams& params);

/// Enqueues dW = the gradient with respect to W (reads x and dy, writes dw): per-block partial sums into `workspace`
/// (depthwise_wgrad_workspace_bytes), then a second kernel adds them in a fixed order, so that the result does not
/// depend on timing or on the GPU. The caller checks the launch. Throws on a params problem.
void depthwise_wgrad_launch(const DepthwiseBackwardParams& params, DType dtype, void* workspace, cudaStream_t stream);

}  // namespace strata::cuda
