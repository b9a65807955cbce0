// implicit_gemm_sm90_kernel.cuh: the Hopper implicit-GEMM convolution kernel (see implicit_gemm_sm90.h), level by
// level:
//   BlockTile  - a bm x bn tile of Y; K = R*S*C walked in slices of 64 elements through a `stages`-deep cp.async
//                ring. Every thread copies 16-byte chunks (A: im2col rows of X gathered per output pixel, B: rows of
//                the KRSC weights; zero-filled outside the image or the problem) straight into the 128B-swizzled
//                layout the wgmma descriptors describe (NOTE [wgmma 128B-swizzled K-major tile] in wgmma.cuh).
//   Warpgroup  - warpgroup wg owns rows 64*wg .. 64*wg+63 and all bn columns: per slice, 4 wgmma m64n{bn}k16.
//   ThreadTile - the wgmma accumulator fragment, parked in shared memory after the main loop, then read back 8
//                channels per thread, finished by the fused epilogue and stored 16 bytes at a time.
// NOTE [sm90 pipeline ring]: slice kt lives in slot kt % stages. Iteration kt waits for slice kt's copies (this
// thread's, then a proxy fence and a barrier for everyone's), issues the copies of slice kt + stages - 2, then
// slice kt's wgmma, and waits until at most one wgmma group (slice kt's) is running. After the barrier of iteration
// kt every warpgroup has finished slice kt-2's wgmma, so slot (kt-2) % stages = (kt + stages - 2) % stages is free;
// slot kt-1 may still be read by the wgmma in flight. Copies run stages-2 slices ahead.
#pragma once

#include <climits>
#include <cstring>

#include "backends/cuda/kernels/common/activation_vec.cuh"
#include "backends/cuda/kernels/common/dtype.cuh"
#include "backends/cuda/kernels/common/mma.cuh"
#include "backends/cuda/kernels/common/pdl.cuh"
#include "backends/cuda/kernels/conv/implicit_gemm_im2col.cuh"
#include "backends/cuda/kernels/common/wgmma.cuh"
#include "backends/cuda/kernels/conv/implicit_gemm_sm90.h"

namespace strata::cuda::sm90 {

template <int Index>
struct BlockTile {
    static constexpr ImplicitGemmSm90Config kCfg = kImplicitGemmSm90Configs[Index];
    static constexpr int kM = kCfg.bm, kN = kCfg.bn, kStages = kCfg.stages;
    static constexpr int kBlocksPerSm = kCfg.blocks_per_sm;
    static constexpr int kWarpgroups = kM / 64;
    static constexpr int kThreads = 128 * kWarpgroups;
    static constexpr int kChunks = 8;  ///< 16-byte chunks per 128-byte row of a slice
    static constexpr int kChunkElems = 8;
    static constexpr int kRowsPerPass = kThreads / kChunks;
    static constexpr int kAIters = kM / kRowsPerPass, kBIters = kN / kRowsPerPass;
    static constexpr int kATileBytes = kM * 128, kBTileBytes = kN * 128;
    static constexpr int kLd = kN + kSm90EpiloguePad;  ///< floats per row of the epilogue's staging tile
    static_assert(kM % 64 == 0 && kN % 64 == 0 && kN <= 256, "wgmma m64nN with N in {64, 128, 256}");
    static_assert(kN % kRowsPerPass == 0, "B rows must split evenly over the threads");
    static_assert(kStages >= 3, "the ring needs a slot being read, one draining and one filling");
    static_assert(kThreads % (kN / 8) == 0, "the epilogue's 16-byte chunks must split evenly over the threads");
};

template <int Index>
using ARows = ImplicitGemmRows<BlockTile<Index>::kAIters, BlockTile<Index>::kRowsPerPass>;
using KCursor = ImplicitGemmKCursor;

// Issues this thread's cp.async chunks of one slice into the stage's A and B tiles (shared addresses).
template <class T, int Index>
__device__ __forceinline__ void load_slice(const ImplicitGemmParams& prm, int gemm_k, const ARows<Index>& rows,
                                           const KCursor& cur, int block_n, uint32_t a_tile, uint32_t b_tile) {
    using Block = BlockTile<Index>;
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
        cp_async_16(a_tile + swizzle_128b_offset(row, chunk), src, ok ? 16 : 0);
    }
#pragma unroll
    for (int i = 0; i < Block::kBIters; ++i) {
        const int row = first_row + i * Block::kRowsPerPass;
        const int k = block_n + row;
        const bool ok = k_ok && k < g.k;
        const T* src = ok ? w + k * gemm_k + cur.kk : w;
        cp_async_16(b_tile + swizzle_128b_offset(row, chunk), src, ok ? 16 : 0);
    }
}

// One slice for this warpgroup: 4 k16 steps, each moving both descriptors 32 bytes (2 in the >>4 address field).
template <class T, int Index>
__device__ __forceinline__ void mma_slice(uint32_t a_rows, uint32_t b_tile, float (&acc)[BlockTile<Index>::kN / 2]) {
    const uint64_t desc_a = wgmma_desc_k_major_128b(a_rows), desc_b = wgmma_desc_k_major_128b(b_tile);
#pragma unroll
    for (int i = 0; i < BlockTile<Index>::kN / 2; ++i) wgmma_fence_operand(acc[i]);
    wgmma_fence();
#pragma unroll
    for (int ks = 0; ks < kSm90SliceK / 16; ++ks)
        wgmma_m64k16_ss<T, BlockTile<Index>::kN>(acc, desc_a + 2 * ks, desc_b + 2 * ks);
    wgmma_commit();
#pragma unroll
    for (int i = 0; i < BlockTile<Index>::kN / 2; ++i) wgmma_fence_operand(acc[i]);
}

// Two floats <-> two T in one 32-bit word.
template <class T>
__device__ __forceinline__ uint32_t pack_pair(float a, float b) {
    uint32_t u;
    if constexpr (std::is_same_v<T, __half>) {
        const __half2 h = __floats2half2_rn(a, b);
        memcpy(&u, &h, 4);
    } else {
        const __nv_bfloat162 h = __floats2bfloat162_rn(a, b);
        memcpy(&u, &h, 4);
    }
    return u;
}

template <class T>
__device__ __forceinline__ float2 unpack_pair(uint32_t u) {
    if constexpr (std::is_same_v<T, __half>) {
        __half2 h;
        memcpy(&h, &u, 4);
        return __half22float2(h);
    } else {
        __nv_bfloat162 h;
        memcpy(&h, &u, 4);
        return __bfloat1622float2(h);
    }
}

// The epilogue on 8 channels k .. k+7 of one output row (element offset `off`): 8 staged floats, bias, residual
// (one 16-byte load), activation, one 16-byte store.
template <class T>
__device__ __forceinline__ void finish_eight(const ImplicitGemmParams& prm, const float* staged, int64_t off, int k) {
    float v[8];
    const float4 lo = *reinterpret_cast<const float4*>(staged), hi = *reinterpret_cast<const float4*>(staged + 4);
    v[0] = lo.x, v[1] = lo.y, v[2] = lo.z, v[3] = lo.w, v[4] = hi.x, v[5] = hi.y, v[6] = hi.z, v[7] = hi.w;
    const EpilogueParams& e = prm.epilogue;
    if (e.bias) {
#pragma unroll
        for (int i = 0; i < 8; ++i) v[i] += e.bias[k + i];
    }
    if (e.residual) {
        const uint4 r = *reinterpret_cast<const uint4*>(static_cast<const T*>(e.residual) + off);
        const uint32_t words[4] = {r.x, r.y, r.z, r.w};
#pragma unroll
        for (int i = 0; i < 4; ++i) {
            const float2 f = unpack_pair<T>(words[i]);
            v[2 * i] += f.x, v[2 * i + 1] += f.y;
        }
    }
    apply_activation_each<8>(e.act, v);
    const uint4 out = make_uint4(pack_pair<T>(v[0], v[1]), pack_pair<T>(v[2], v[3]), pack_pair<T>(v[4], v[5]),
                                 pack_pair<T>(v[6], v[7]));
    *reinterpret_cast<uint4*>(static_cast<T*>(prm.y) + off) = out;
}

// ThreadTile: the accumulators go to the staging tile (rows of kLd floats), then after a barrier each thread
// finishes 8-channel chunks, consecutive threads taking consecutive chunks of a row (coalesced 16-byte stores).
template <class T, int Index>
__device__ __forceinline__ void store_tile(const ImplicitGemmParams& prm, int gemm_m, int block_m, int block_n,
                                           float* tile, const float (&acc)[BlockTile<Index>::kN / 2]) {
    using Block = BlockTile<Index>;
    const int wg = threadIdx.x / 128, warp = threadIdx.x % 128 / 32, lane = threadIdx.x % 32;
#pragma unroll
    for (int j = 0; j < Block::kN / 8; ++j) {
#pragma unroll
        for (int i = 0; i < 2; ++i) {
            const int row = wg * 64 + warp * 16 + lane / 4 + 8 * i, col = 8 * j + 2 * (lane % 4);
            *reinterpret_cast<float2*>(tile + row * Block::kLd + col) =
                make_float2(acc[4 * j + 2 * i], acc[4 * j + 2 * i + 1]);
        }
    }
    __syncthreads();
    constexpr int kRowChunks = Block::kN / 8, kRowsPerPass = Block::kThreads / kRowChunks;
    const int col = threadIdx.x % kRowChunks * 8, k = block_n + col;
    if (k >= prm.g.k) return;  // K % 8 == 0: a chunk is wholly inside or wholly outside
    for (int row = threadIdx.x / kRowChunks; row < Block::kM; row += kRowsPerPass) {
        const int m = block_m + row;
        if (m >= gemm_m) break;
        finish_eight<T>(prm, tile + row * Block::kLd + col, int64_t{m} * prm.g.k + k, k);
    }
}

template <class T, int Index>
__global__ void __launch_bounds__(BlockTile<Index>::kThreads, BlockTile<Index>::kBlocksPerSm)
    implicit_gemm_sm90_kernel(ImplicitGemmParams prm) {
#if defined(__CUDA_ARCH__) && defined(__CUDA_ARCH_FEAT_SM90_ALL)
    using Block = BlockTile<Index>;
    constexpr int S = Block::kStages;
    extern __shared__ __align__(16) unsigned char smem_raw[];
    // The ring starts at the first 1024-byte boundary (the swizzle atom); the host adds 1 KiB for this.
    const uint32_t raw_addr = shared_address(smem_raw);
    const uint32_t pad = (1024u - raw_addr % 1024u) % 1024u;
    unsigned char* smem = smem_raw + pad;
    const uint32_t a_ring = raw_addr + pad, b_ring = a_ring + S * Block::kATileBytes;
    const ConvGeometry& g = prm.g;
    const int gemm_m = g.n * g.p * g.q, gemm_k = g.r * g.s * g.c;
    const int block_m = blockIdx.x * Block::kM, block_n = blockIdx.y * Block::kN;
    const int wg = threadIdx.x / 128;
    // NOTE [programmatic dependent launch]: every global read and write comes after the wait (the weights too: they
    // travel in the same cp.async pipeline as the activations), so only the launch and this prologue overlap.
    if (prm.pdl) {
        pdl_wait();
        pdl_launch_dependents();
    }

    ARows<Index> rows;
    rows.init(g, gemm_m, block_m, threadIdx.x / Block::kChunks);
    KCursor cur;
    cur.init(g, threadIdx.x % Block::kChunks * Block::kChunkElems);
    const int slices = (gemm_k + kSm90SliceK - 1) / kSm90SliceK;
    float acc[Block::kN / 2];
#pragma unroll
    for (int i = 0; i < Block::kN / 2; ++i) {
        acc[i] = 0.0f;  // the wgmma always accumulate (scale-d 1)
    }

    // Prologue: slices 0 .. S-3, one commit group each (empty past the end, to keep the count).
#pragma unroll
    for (int st = 0; st < S - 2; ++st) {
        if (st < slices) {
            load_slice<T, Index>(prm, gemm_k, rows, cur, block_n, a_ring + st * Block::kATileBytes,
                                 b_ring + st * Block::kBTileBytes);
            cur.advance(g, kSm90SliceK);
        }
        cp_async_commit();
    }
    for (int kt = 0; kt < slices; ++kt) {
        cp_async_wait<S - 3>();      // this thread's copies of slice kt have landed
        fence_proxy_async_shared();  // ... and are visible to wgmma (async proxy)
        __syncthreads();             // ... for every thread; and slice kt-2's wgmma are done everywhere
        const int next = kt + S - 2;
        if (next < slices) {
            const int st = next % S;
            load_slice<T, Index>(prm, gemm_k, rows, cur, block_n, a_ring + st * Block::kATileBytes,
                                 b_ring + st * Block::kBTileBytes);
            cur.advance(g, kSm90SliceK);
        }
        cp_async_commit();
        const int st = kt % S;
        mma_slice<T, Index>(a_ring + st * Block::kATileBytes + wg * 64 * 128, b_ring + st * Block::kBTileBytes, acc);
        wgmma_wait<1>();
    }
    wgmma_wait<0>();
#pragma unroll
    for (int i = 0; i < Block::kN / 2; ++i) wgmma_fence_operand(acc[i]);
    cp_async_wait<0>();  // only empty groups remain
    __syncthreads();     // every warpgroup is done with the ring: the epilogue reuses it
    store_tile<T, Index>(prm, gemm_m, block_m, block_n, reinterpret_cast<float*>(smem), acc);
#else
    __trap();  // not built for sm_90a: can_implement refuses it
#endif
}

}  // namespace strata::cuda::sm90
