// gemm.cu: strata's own GEMM for MatMul, Gemm and FullyConnected (gemm_problem.h): a plain tiled shared-memory
// kernel, accumulating in float, for every float dtype. It is the fallback where cuBLASLt is absent, so it favours
// generality (any size, transposes, broadcast batches, Gemm's C, bias and activation) over peak speed.
//   BlockTile 64x64 of Y per block, K in steps of 16 through shared memory (as float);
//   ThreadTile 4x4 per thread (256 threads), rows ty + 16*i and columns tx + 16*j so that stores coalesce.
#include "backends/cuda/kernels/common/activation.cuh"
#include "backends/cuda/kernels/common/dtype.cuh"
#include "backends/cuda/kernels/gemm/gemm_problem.h"

namespace strata::cuda {

namespace {
constexpr int kBlockM = 64, kBlockN = 64, kBlockK = 16, kThreadTile = 4, kThreads = 256;

// The element offsets of this block's matrices of A and B: the flat batch index split over the batch dims.
__device__ void batch_offsets(const GemmProblem& p, int64_t batch, int64_t& a_off, int64_t& b_off) {
    a_off = 0;
    b_off = 0;
    for (int i = p.batch_rank - 1; i >= 0; --i) {
        int64_t idx = batch % p.batch_dims[i];
        batch /= p.batch_dims[i];
        a_off += idx * p.a_batch_stride[i];
        b_off += idx * p.b_batch_stride[i];
    }
}

// Loads A's [64 x 16] tile at (row0, k0) as As[kk][row]; zero outside. The thread-to-element map follows the
// contiguous direction of A so that loads coalesce.
template <class T>
__device__ void load_a_tile(const GemmProblem& p, const T* a, int64_t row0, int64_t k0, float (*As)[kBlockM + 1]) {
    for (int e = threadIdx.x; e < kBlockM * kBlockK; e += kThreads) {
        int r = p.trans_a ? e % kBlockM : e / kBlockK;
        int kk = p.trans_a ? e / kBlockM : e % kBlockK;
        int64_t gr = row0 + r, gk = k0 + kk;
        float v = 0.0f;
        if (gr < p.m && gk < p.k) v = to_float(a[p.trans_a ? gk * p.m + gr : gr * p.k + gk]);
        As[kk][r] = v;
    }
}

// Loads B's [16 x 64] tile at (k0, col0) as Bs[kk][col]; zero outside.
template <class T>
__device__ void load_b_tile(const GemmProblem& p, const T* b, int64_t k0, int64_t col0, float (*Bs)[kBlockN + 1]) {
    for (int e = threadIdx.x; e < kBlockK * kBlockN; e += kThreads) {
        int col = p.trans_b ? e / kBlockK : e % kBlockN;
        int kk = p.trans_b ? e % kBlockK : e / kBlockN;
        int64_t gk = k0 + kk, gc = col0 + col;
        float v = 0.0f;
        if (gk < p.k && gc < p.n) v = to_float(b[p.trans_b ? gc * p.k + gk : gk * p.n + gc]);
        Bs[kk][col] = v;
    }
}

// T: A's and B's type; TOut: Y's and C's (T, or float for a float32 result of 16-bit operands).
template <class T, class TOut>
__global__ void __launch_bounds__(kThreads)
    gemm_tiled_kernel(GemmProblem p, const T* __restrict__ a, const T* __restrict__ b, const TOut* __restrict__ c,
                      const float* __restrict__ bias, TOut* __restrict__ y) {
    __shared__ float As[kBlockK][kBlockM + 1];
    __shared__ float Bs[kBlockK][kBlockN + 1];
    int64_t a_off, b_off;
    batch_offsets(p, blockIdx.z, a_off, b_off);
    a += a_off;
    b += b_off;
    y += static_cast<int64_t>(blockIdx.z) * p.m * p.n;
    int64_t row0 = static_cast<int64_t>(blockIdx.y) * kBlockM, col0 = static_cast<int64_t>(blockIdx.x) * kBlockN;
    int tx = threadIdx.x % 16, ty = threadIdx.x / 16;

    float acc[kThreadTile][kThreadTile] = {};
    for (int64_t k0 = 0; k0 < p.k; k0 += kBlockK) {
        load_a_tile(p, a, row0, k0, As);
        load_b_tile(p, b, k0, col0, Bs);
        __syncthreads();
        for (int kk = 0; kk < kBlockK; ++kk) {
            float av[kThreadTile], bv[kThreadTile];
            for (int i = 0; i < kThreadTile; ++i) av[i] = As[kk][ty + 16 * i];
            for (int j = 0; j < kThreadTile; ++j) bv[j] = Bs[kk][tx + 16 * j];
            for (int i = 0; i < kThreadTile; ++i)
                for (int j = 0; j < kThreadTile; ++j) acc[i][j] = fmaf(av[i], bv[j], acc[i][j]);
        }
        __syncthreads();  // the next tile overwrites what this one read
    }

    for (int i = 0; i < kThreadTile; ++i) {
        int64_t r = row0 + ty + 16 * i;
        if (r >= p.m) continue;
        for (int j = 0; j < kThreadTile; ++j) {
            int64_t col = col0 + tx + 16 * j;
            if (col >= p.n) continue;
            float v = p.alpha * acc[i][j];
            if (c) v += p.beta * to_float(c[r * p.c_row + col * p.c_col]);
            if (bias) v += bias[col];
            y[r * p.n + col] = from_float<TOut>(apply_activation(p.act, v));
        }
    }
}
}  // namespace

void gemm_tiled_launch(const GemmProblem& p, const void* a, const void* b, const void* c, const float* bias, void* y,
                       cudaStream_t stream) {
    if (p.m == 0 || p.n == 0 || p.batch() == 0) return;
    dim3 grid(static_cast<unsigned>((p.n + kBlockN - 1) / kBlockN),
              static_cast<unsigned>((p.m + kBlockM - 1) / kBlockM), static_cast<unsigned>(p.batch()));
    dispatch_float(p.dtype, [&](auto tag) {
        using T = decltype(tag);
        auto go = [&](auto out_tag) {
            using TOut = decltype(out_tag);
            gemm_tiled_kernel<T, TOut>
                <<<grid, kThreads, 0, stream>>>(p, static_cast<const T*>(a), static_cast<const T*>(b),
                                                static_cast<const TOut*>(c), bias, static_cast<TOut*>(y));
        };
        if (p.out_dtype == p.dtype)
            go(T{});
        else
            go(float{});
    });
}

}  // namespace strata::cuda
