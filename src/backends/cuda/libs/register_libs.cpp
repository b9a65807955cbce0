// register_libs.cpp: tactics from NVIDIA's libraries, loaded at run time (cuDNN, cuBLASLt). They are registered
// whether or not the libraries are here: their can_implement() then says "... not found (searched: ...)". strata's
// own fallbacks for the same ops (tiled GEMM, direct ConvTranspose) register here too, beside the tactics they
// stand in for, so that no shared registration file changes.
#include "backends/cuda/cuda_tactic.h"
#include "backends/cuda/kernels/conv_transpose/conv_transpose.h"
#include "backends/cuda/kernels/gemm/gemm_problem.h"
#include "backends/cuda/libs/lib_tactics.h"

namespace strata::cuda {

void register_library_tactics(CudaTacticRegistry& registry) {
    libs::register_cudnn_tactics(registry);
    libs::register_cublaslt_tactics(registry);
    register_gemm_tactics(registry);
    register_conv_transpose_tactics(registry);
}

}  // namespace strata::cuda
