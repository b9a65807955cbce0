// conv_params.h: a Conv node's sizes as plain integers, with 1-D convolutions viewed as 2-D (height 1), so that the
// im2col+GEMM and depthwise kernels read one struct instead of attrs vectors and shapes.
#pragma once

#include <cstdint>
#include <string>

#include "backends/kernel.h"

namespace strata::backends::cpu {

struct Conv2dParams {
    int64_t batch = 0, in_channels = 0, in_h = 0, in_w = 0;
    int64_t out_channels = 0, out_h = 0, out_w = 0;
    int64_t kernel_h = 1, kernel_w = 1;
    int64_t stride_h = 1, stride_w = 1;
    int64_t dilation_h = 1, dilation_w = 1;
    int64_t pad_top = 0, pad_left = 0;  // the end pads are implied by the output size
    int64_t group = 1;
};

/// Reads the sizes from the attrs and the shapes of X, W and Y (all validated by shape inference).
Conv2dParams conv2d_params(const ir::ConvAttrs& attrs, const Shape& x, const Shape& w, const Shape& y);

/// Empty when `node` is a 1-D or 2-D float32 convolution with complete attrs; otherwise the reason for `tactic`.
std::string conv2d_reason(const ir::Graph& graph, const ir::Node& node, const char* tactic);

/// The bias input's data, or null when it is absent.
const float* conv_bias(std::span<const Tensor> inputs);

}  // namespace strata::backends::cpu
