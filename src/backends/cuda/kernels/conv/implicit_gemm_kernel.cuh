// implicit_gemm_kernel.cuh: the implicit-GEMM convolution kernel (see implicit_gemm.h), level by level:
//   BlockTile  - a bm x bn tile of Y; K = R*S*C walked in bk slices through a `stages`-deep cp.async pipeline
//                (A: im2col rows of X gathered per output pixel; B: rows of the KRSC weights), zero-filled where
//                the window leaves the image or the tile leaves the problem;
//   WarpTile   - each warp owns a (bm/warps_m) x (bn/warps_n) piece: mi x ni mma tiles fed by ldmatrix
//                (m16n8k16 for fp16/bf16, m16n8k8 tf32 for fp32: both take 32 bytes of K, so a slice is the same
//                bytes and the same ldmatrix addresses for every type; see Slice);
//   ThreadTile - the mma accumulator fragment, finished by the fused epilogue and stored two channels at a time.
// Split-K (params.splits > 1, for problems too small to fill the GPU): blockIdx.z takes one range of slices and
// stores raw float sums to params.partial; split_k_reduce_kernel adds the ranges in a fixed order (deterministic)
// and applies the epilogue.
#pragma once

#include <climits>

#include "backends/cuda/kernels/common/mma.cuh"
#include "backends/cuda/kernels/conv/implicit_gemm_im2col.cuh"
#include "backends/cuda/kernels/conv/conv_epilogue.cuh"
#include "backends/cuda/kernels/conv/implicit_gemm.h"

namespace strata::cuda {

template <int Index>
struct BlockTile {
    static constexpr ImplicitGemmConfig kCfg = kImplicitGemmConfigs[Index];
    static constexpr int kM = kCfg.bm, kN = kCfg.bn, kStages = kCfg.stages;
    static constexpr int kWarpsM = kCfg.warps_m, kWarpsN = kCfg.warps_n;
    static constexpr int kThreads = 32 * kWarpsM * kWarpsN;
    static constexpr int kSliceBytes = kCfg.bk * 2;   ///< bytes of K per row of a slice, whatever the type
    static constexpr int kChunks = kSliceBytes / 16;  ///< 16-byte chunks per row of a slice
    static constexpr int kRowsPerPass = kThreads / kChunks;
    static constexpr int kAIters = kM / kRowsPerPass;  ///< A rows each thread loads per slice
    static constexpr int kBIters = kN / kRowsPerPass;
    static_assert(kSliceBytes % 32 == 0 && kThreads % kChunks == 0, "bk must be a multiple of 16");
    static_assert(kM % kRowsPerPass == 0 && kN % kRowsPerPass == 0, "tile rows must split evenly over the threads");
};

// A slice in elements of T (2-byte types: bk elements; fp32: bk/2) and the K of one mma (32 bytes).
template <class T, int Index>
struct Slice {
    static constexpr int kElem = static_cast<int>(sizeof(T));
    static constexpr int kK = BlockTile<Index>::kSliceBytes / kElem;
    static constexpr int kChunkElems = 16 / kElem;
    static constexpr int kRow = kK + kImplicitGemmRowPad * 2 / kElem;  ///< shared row: the slice + 16 bytes
    static constexpr int kMmaK = 32 / kElem;
    static constexpr int kSteps = kK / kMmaK;
};

template <int Index>
struct WarpTile {
    using Block = BlockTile<Index>;
    static constexpr int kM = Block::kM / Block::kWarpsM, kN = Block::kN / Block::kWarpsN;
    static constexpr int kMI = kM / 16, kNI = kN / 8;  ///< mma tiles per warp
    static_assert(kM % 16 == 0 && kN % 16 == 0, "a warp tile is whole 16x16 pairs of mma tiles");
};

// Stores two adjacent channels (aligned to two elements: K and the channel are even).
template <class T>
__device__ __forceinline__ void store_pair(T* p, float a, float b) {
    if constexpr (std::is_same_v<T, float>)
        *reinterpret_cast<float2*>(p) = make_float2(a, b);
    else if constexpr (std::is_same_v<T, __half>)
        *reinterpret_cast<__half2*>(p) = __floats2half2_rn(a, b);
    else
        *reinterpret_cast<__nv_bfloat162*>(p) = __floats2bfloat162_rn(a, b);
}

template <int Index>
using ARows = ImplicitGemmRows<BlockTile<Index>::kAIters, BlockTile<Index>::kRowsPerPass>;
using KCursor = ImplicitGemmKCursor;

template <class T, int Index>
__device__ __forceinline__ void load_slice(const ImplicitGemmParams& prm, int gemm_k, const ARows<Index>& rows,
                                           const KCursor& cur, int block_n, T* a_stage, T* b_stage) {
    using Block = BlockTile<Index>;
    using Sl = Slice<T, Index>;
    const ConvGeometry& g = prm.g;
    const T* x = static_cast<const T*>(prm.x);
    const T* w = static_cast<const T*>(prm.w);
    const int chunk = threadIdx.x % Block::kChunks, first_row = threadIdx.x / Block::kChunks;
    const bool k_ok = cur.kk < gemm_k;
#pragma unroll
    for (int i = 0; i < Block::kAIters; ++i) {
        const int row = first_row + i * Block::kRowsPerPass;
        const int ih = rows.ih0[i] + cur.r * g.dil_h, iw = rows.iw0[i] + cur.s * g.dil_w;
        const bool ok = k_ok && ih >= 0 && ih < g.h && iw >= 0 && iw < g.w;
        const T* src = ok ? x + rows.base[i] + (ih * g.w + iw) * g.c + cur.c : x;
        cp_async_16(shared_address(a_stage + row * Sl::kRow + chunk * Sl::kChunkElems), src, ok ? 16 : 0);
    }
#pragma unroll
    for (int i = 0; i < Block::kBIters; ++i) {
        const int row = first_row + i * Block::kRowsPerPass;
        const int k = block_n + row;
        const bool ok = k_ok && k < g.k;
        const T* src = ok ? w + k * gemm_k + cur.kk : w;
        cp_async_16(shared_address(b_stage + row * Sl::kRow + chunk * Sl::kChunkElems), src, ok ? 16 : 0);
    }
}

// One mma on fragments fresh from ldmatrix: fp32 data is rounded to tf32 first.
template <class T>
__device__ __forceinline__ void mma_step(float (&d)[4], const uint32_t (&a)[4], const uint32_t (&b)[2]) {
    if constexpr (std::is_same_v<T, float>) {
        const uint32_t a32[4] = {f32_to_tf32(a[0]), f32_to_tf32(a[1]), f32_to_tf32(a[2]), f32_to_tf32(a[3])};
        const uint32_t b32[2] = {f32_to_tf32(b[0]), f32_to_tf32(b[1])};
        mma_1688_tf32(d, a32, b32);
    } else {
        mma_16816<T>(d, a, b);
    }
}

// One slice of the warp's tile: steps of (ldmatrix A, ldmatrix B, mi x ni mma), each over 32 bytes of K. In the
// comments below "k 0-7" means the first 16 bytes of the step's K (8 halves or 4 floats), "k 8-15" the next 16.
template <class T, int Index>
__device__ __forceinline__ void mma_slice(const T* a_stage, const T* b_stage, int warp_m, int warp_n, int lane,
                                          float (&acc)[WarpTile<Index>::kMI][WarpTile<Index>::kNI][4]) {
    using Sl = Slice<T, Index>;
    using Warp = WarpTile<Index>;
    constexpr int kHalf = Sl::kChunkElems;  // elements in 16 bytes: the second half of an mma's K
#pragma unroll
    for (int ks = 0; ks < Sl::kSteps; ++ks) {
        uint32_t af[Warp::kMI][4], bf[Warp::kNI][2];
        // A 16 rows: matrices (rows 0-7, k 0-7), (rows 8-15, k 0-7), (rows 0-7, k 8-15), (rows 8-15, k 8-15).
#pragma unroll
        for (int mi = 0; mi < Warp::kMI; ++mi) {
            const int row = warp_m * Warp::kM + mi * 16 + lane % 16;
            ldmatrix_x4(af[mi], shared_address(a_stage + row * Sl::kRow + ks * Sl::kMmaK + (lane / 16) * kHalf));
        }
        // B: two n8 tiles per ldmatrix: (n 0-7, k 0-7), (n 0-7, k 8-15), (n 8-15, k 0-7), (n 8-15, k 8-15).
#pragma unroll
        for (int nj = 0; nj < Warp::kNI / 2; ++nj) {
            const int row = warp_n * Warp::kN + nj * 16 + lane % 8 + (lane / 16) * 8;
            uint32_t t[4];
            ldmatrix_x4(t, shared_address(b_stage + row * Sl::kRow + ks * Sl::kMmaK + ((lane / 8) % 2) * kHalf));
            bf[2 * nj][0] = t[0], bf[2 * nj][1] = t[1];
            bf[2 * nj + 1][0] = t[2], bf[2 * nj + 1][1] = t[3];
        }
#pragma unroll
        for (int mi = 0; mi < Warp::kMI; ++mi)
#pragma unroll
            for (int ni = 0; ni < Warp::kNI; ++ni) mma_step<T>(acc[mi][ni], af[mi], bf[ni]);
    }
}

// The epilogue on channels k, k+1 of output row m (element offset `off`), then the store.
template <class T>
__device__ __forceinline__ void finish_pair(const ImplicitGemmParams& prm, int64_t off, int k, float v0, float v1) {
    const T* residual = static_cast<const T*>(prm.epilogue.residual);
    if (prm.epilogue.bias) v0 += prm.epilogue.bias[k], v1 += prm.epilogue.bias[k + 1];
    if (residual) v0 += to_float(residual[off]), v1 += to_float(residual[off + 1]);
    store_pair(static_cast<T*>(prm.y) + off, apply_activation(prm.epilogue.act, v0),
               apply_activation(prm.epilogue.act, v1));
}

// ThreadTile: accumulator (mi, ni) holds rows lane/4 and lane/4 + 8, channels 2*(lane%4) and +1 of its 16x8 tile.
template <class T, int Index>
__device__ __forceinline__ void store_tile(const ImplicitGemmParams& prm, int gemm_m, int block_m, int block_n,
                                           int warp_m, int warp_n, int lane,
                                           const float (&acc)[WarpTile<Index>::kMI][WarpTile<Index>::kNI][4]) {
    using Warp = WarpTile<Index>;
    const int k_total = prm.g.k;
    float* partial = prm.splits > 1 ? prm.partial + blockIdx.z * int64_t{gemm_m} * k_total : nullptr;
#pragma unroll
    for (int mi = 0; mi < Warp::kMI; ++mi) {
#pragma unroll
        for (int half = 0; half < 2; ++half) {
            const int m = block_m + warp_m * Warp::kM + mi * 16 + lane / 4 + half * 8;
            if (m >= gemm_m) continue;
#pragma unroll
            for (int ni = 0; ni < Warp::kNI; ++ni) {
                const int k = block_n + warp_n * Warp::kN + ni * 8 + (lane % 4) * 2;
                if (k >= k_total) continue;
                const int64_t off = int64_t{m} * k_total + k;
                const float v0 = acc[mi][ni][half * 2], v1 = acc[mi][ni][half * 2 + 1];
                if (partial)
                    *reinterpret_cast<float2*>(partial + off) = make_float2(v0, v1);
                else
                    finish_pair<T>(prm, off, k, v0, v1);
            }
        }
    }
}

template <class T, int Index>
__global__ void __launch_bounds__(BlockTile<Index>::kThreads) implicit_gemm_kernel(ImplicitGemmParams prm) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    using Block = BlockTile<Index>;
    using Warp = WarpTile<Index>;
    using Sl = Slice<T, Index>;
    extern __shared__ __align__(16) unsigned char smem_bytes[];
    T* a_smem = reinterpret_cast<T*>(smem_bytes);                // [stages][bm][kRow]
    T* b_smem = a_smem + Block::kStages * Block::kM * Sl::kRow;  // [stages][bn][kRow]
    const ConvGeometry& g = prm.g;
    const int gemm_m = g.n * g.p * g.q, gemm_k = g.r * g.s * g.c;
    const int block_m = blockIdx.x * Block::kM, block_n = blockIdx.y * Block::kN;
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    const int warp_m = warp / Block::kWarpsN, warp_n = warp % Block::kWarpsN;

    ARows<Index> rows;
    rows.init(g, gemm_m, block_m, threadIdx.x / Block::kChunks);
    // This block's range of slices: all of them, or split blockIdx.z's (possibly empty: it then stores zeros).
    const int all_slices = (gemm_k + Sl::kK - 1) / Sl::kK;
    const int per_split = (all_slices + prm.splits - 1) / prm.splits;
    const int first_slice = blockIdx.z * per_split;
    const int slices = min(per_split, all_slices - first_slice);
    KCursor cur;
    cur.init(g, first_slice * Sl::kK + threadIdx.x % Block::kChunks * Sl::kChunkElems);
    float acc[Warp::kMI][Warp::kNI][4] = {};

    // Prologue: slices 0 .. stages-2 in flight, one commit group each (empty past the end, to keep the count).
#pragma unroll
    for (int st = 0; st < Block::kStages - 1; ++st) {
        if (st < slices) {
            load_slice<T, Index>(prm, gemm_k, rows, cur, block_n, a_smem + st * Block::kM * Sl::kRow,
                                 b_smem + st * Block::kN * Sl::kRow);
            cur.advance(g, Sl::kK);
        }
        cp_async_commit();
    }
    for (int kt = 0; kt < slices; ++kt) {
        // Slice kt has landed for this thread; the barrier makes it landed for all, and also says every warp is
        // done with slice kt-1, whose stage the load below overwrites.
        cp_async_wait<Block::kStages - 2>();
        __syncthreads();
        const int next = kt + Block::kStages - 1;
        if (next < slices) {
            const int st = next % Block::kStages;
            load_slice<T, Index>(prm, gemm_k, rows, cur, block_n, a_smem + st * Block::kM * Sl::kRow,
                                 b_smem + st * Block::kN * Sl::kRow);
            cur.advance(g, Sl::kK);
        }
        cp_async_commit();
        const int st = kt % Block::kStages;
        mma_slice<T, Index>(a_smem + st * Block::kM * Sl::kRow, b_smem + st * Block::kN * Sl::kRow, warp_m, warp_n,
                            lane, acc);
    }
    cp_async_wait<0>();  // only empty groups remain; leave nothing in flight at exit
    store_tile<T, Index>(prm, gemm_m, block_m, block_n, warp_m, warp_n, lane, acc);
#else
    __trap();  // built for an architecture without mma.sync m16n8k16 / cp.async: can_implement refuses it
#endif
}

// Sums the splits' partial results in split order and finishes two channels per thread.
template <class T>
__global__ void split_k_reduce_kernel(ImplicitGemmParams prm) {
    const int k_total = prm.g.k;
    const int64_t elements = int64_t{prm.g.n} * prm.g.p * prm.g.q * k_total, pairs = elements / 2;
    for (int64_t i = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; i < pairs; i += int64_t{gridDim.x} * blockDim.x) {
        const int64_t off = 2 * i;
        float v0 = 0.0f, v1 = 0.0f;
        for (int z = 0; z < prm.splits; ++z) {
            const float2 p = *reinterpret_cast<const float2*>(prm.partial + z * elements + off);
            v0 += p.x, v1 += p.y;
        }
        finish_pair<T>(prm, off, static_cast<int>(off % k_total), v0, v1);
    }
}

}  // namespace strata::cuda
