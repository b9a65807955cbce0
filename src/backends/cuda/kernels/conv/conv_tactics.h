// conv_tactics.h: the tactics of the convolution family, one function per kernel; register_conv.cpp adds them.
#pragma once

#include "backends/cuda/cuda_tactic.h"

namespace strata::cuda {

CudaTactic direct_conv_tactic();              ///< "cuda.conv.direct": generic, any conv
CudaTactic fc_direct_tactic();                ///< "cuda.fc.direct": tiled FullyConnected, any size
CudaTactic implicit_gemm_conv_tactic();       ///< "cuda.conv.implicit_gemm": tensor cores, fp16/bf16 NHWC
CudaTactic implicit_gemm_fc_tactic();         ///< "cuda.fc.implicit_gemm": FullyConnected on the same kernel
CudaTactic implicit_gemm_sm90_conv_tactic();  ///< "cuda.conv.implicit_gemm_sm90": wgmma (sm_90a)
CudaTactic direct_stem_tactic();              ///< "cuda.conv.direct_stem": few input channels
CudaTactic depthwise_conv_tactic();           ///< "cuda.conv.depthwise": group == C (kernels/depthwise/)
CudaTactic pointwise_narrow_tactic();         ///< "cuda.conv.pointwise_narrow": 1x1, C <= 64, store-bound expands
CudaTactic stem_gemm_tactic();                ///< "cuda.conv.stem_gemm": 3x3 / 7x7 stems on 3 channels, tensor cores

}  // namespace strata::cuda
