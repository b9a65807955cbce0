// lib_tactics.h: the registration functions of the library tactics (register_libs.cpp calls them).
#pragma once

#include "backends/cuda/cuda_tactic.h"

namespace strata::cuda::libs {

void register_cudnn_tactics(CudaTacticRegistry& registry);     // cudnn.conv, cudnn.conv_transpose
void register_cublaslt_tactics(CudaTacticRegistry& registry);  // cublaslt.fc, cublaslt.matmul, cublaslt.gemm

}  // namespace strata::cuda::libs
