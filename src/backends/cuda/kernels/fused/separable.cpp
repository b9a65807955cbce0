// separable.cpp: what the fused depthwise -> pointwise kernel covers (host side; kernel in separable.cu).
#include <fmt/format.h>

#include "backends/cuda/kernels/fused/separable.h"

namespace strata::cuda {

std::string separable_problem(DType dtype, int cm, int k, int r, int s, int stride_h, int stride_w) {
    if (dtype != DType::f16 && dtype != DType::bf16)
        return fmt::format("fp16 and bf16 only (dtype {})", dtype_name(dtype));
    if (r != s || (r != 3 && r != 5)) return fmt::format("3x3 or 5x5 depthwise filters only ({}x{})", r, s);
    if (stride_h != stride_w || (stride_h != 1 && stride_h != 2))
        return fmt::format("stride 1 or 2, the same both ways (stride {}x{})", stride_h, stride_w);
    if (cm % 8 != 0) return fmt::format("needs Cm % 8 == 0 (Cm = {})", cm);
    if (k % 8 != 0 || k > kSepMaxOut) return fmt::format("needs K % 8 == 0 and K <= {} (K = {})", kSepMaxOut, k);
    return {};
}

}  // namespace strata::cuda
