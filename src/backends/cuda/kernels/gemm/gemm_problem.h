// gemm_problem.h: MatMul, Gemm and FullyConnected reduced to one row-major batched product, the form that strata's
// tiled kernel and the cuBLASLt tactics both start from:
//     Y[b][i, j] = act(alpha * sum_p A[b](i, p) * B[b](p, j) + beta * C(i, j) + bias[j])
// A is stored [m, k] ([k, m] when trans_a), B [k, n] ([n, k] when trans_b), Y [batch..., m, n] contiguous. The
// batch dims are numpy-broadcast: each operand has an element stride per output batch dim, 0 where it broadcasts.
// Y may be float32 where A and B are fp16/bf16: a network's logits (NOTE [fp32 outputs] in build/device_storage.h).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "backends/cuda/cuda_tactic.h"
#include "backends/cuda/kernels/common/epilogue.h"

namespace strata::cuda {

inline constexpr int kMaxGemmBatchDims = kMaxRank - 2;

enum class GemmC : uint8_t { none, full, broadcast };  ///< Gemm's C: absent, exactly [m, n], or broadcast to it

struct GemmProblem {
    DType dtype = DType::f32;      ///< A's and B's
    DType out_dtype = DType::f32;  ///< Y's and C's: dtype, or float32 for fp16/bf16 operands (NOTE [fp32 outputs])
    int64_t m = 0, n = 0, k = 0;
    bool trans_a = false, trans_b = false;
    int batch_rank = 0;  ///< output batch dims (0 = one product)
    int64_t batch_dims[kMaxGemmBatchDims] = {};
    int64_t a_batch_stride[kMaxGemmBatchDims] = {};  ///< elements; 0 where A broadcasts
    int64_t b_batch_stride[kMaxGemmBatchDims] = {};
    float alpha = 1.0f, beta = 0.0f;
    GemmC c = GemmC::none;
    int64_t c_row = 0, c_col = 0;  ///< C(i, j) = c[i * c_row + j * c_col] (broadcast strides; full: n, 1)
    bool has_bias = false;         ///< FullyConnected: float32 bias [n] is input 2
    ActivationParams act;

    int64_t batch() const;
    /// The one stride that steps an operand from batch to batch when its batch offsets are linear in the flat batch
    /// index (0: broadcast over all of it; the matrix size: contiguous); nullopt when they are not.
    std::optional<int64_t> linear_batch_stride(bool operand_b) const;
    /// "m=3 n=5 k=7 batch=[2,3] transA=0 transB=1 ... f16" ("float16->float32" when Y is float32)
    std::string str() const;
};

/// Empty when `desc` (MatMul, Gemm or FullyConnected with float dtypes: A and B alike, Y alike or float32) reduces to
/// a GemmProblem, set in `out`; otherwise why not. A MatMul whose B has no batch folds its batch into m (one product,
/// no batching).
std::string gemm_problem(const StepDesc& desc, GemmProblem& out);

/// strata's tiled shared-memory kernel (gemm.cu). Buffers: a, b, c (Gemm's C, or null), bias (float32, or null), y.
void gemm_tiled_launch(const GemmProblem& p, const void* a, const void* b, const void* c, const float* bias, void* y,
                       cudaStream_t stream);

void register_gemm_tactics(CudaTacticRegistry& registry);  // cuda.matmul, cuda.gemm, cuda.gemm.fc

}  // namespace strata::cuda
