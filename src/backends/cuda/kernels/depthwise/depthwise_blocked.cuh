// depthwise_blocked.cuh: the staged NHWC kernel with register-blocked walkers (DepthwiseTile::blocked), instantiated
// per dtype through depthwise_launch.cuh.
//
// NOTE [depthwise blocked walkers]
// The staged kernel (NOTE [depthwise staged tile]) reads every input byte from DRAM once, but its walkers own one
// output column each and walk it with rolling accumulators: per input row K shared loads, K*A multiplies, A-1
// register moves, the loop's bookkeeping and one store. Nsight Compute counted 65 instructions per output element at
// 240x28k5s1 b128 fp16 (12.5 of them HFMA2), and the 5x5 cases stayed at 37-62% of the copy bandwidth, bound by
// instruction issue (bench/RESULTS.md, 2026-12-02 and 2026-12-07). Here a walker owns a block of BR output rows x BC
// output columns of its 4-byte channel word, and the whole block is unrolled at compile time: each of the
// (BR-1)*S+K input rows is read once from shared memory as (BC-1)*S+K words, multiplied into every output of the
// block whose window holds it (the row and column reuse of SEEDS.md section 5, both in registers), and an output row
// is stored as soon as its last input row is in. No accumulator moves (the unrolled code names each output's
// register), no loop per row, no bounds tests on loads (the tile is zero-filled past the map, and the tile's sides are
// rounded up to whole blocks so a block never reads past it). For 5x5, stride 1, 7x7 blocks: 121 shared loads and 49
// stores against 1225 multiplies, ~1.2x the multiplies in all, against ~5x before.
// Registers: the A = (K-1)/S+1 rows of BC accumulators in flight, the row of (BC-1)*S+K words, and the K*K taps: for
// 5x5 stride 1 in fp16 pairs or floats 35 + 11 + 25 words. bf16 (two float accumulators per word) would need twice
// the accumulators and is not instantiated; neither is 7x7.
// Bank conflicts: lanes of a walker read consecutive words of one pixel. With 8 lanes on channels a warp holds four
// walkers, and walker i starts BC*S*i pixels (of 8 words) from walker 0 along a row of blocks: for BC = 7 and S = 1
// the four start in four different 8-bank groups (0, 7, 14, 21 pixels: 0, 24, 16, 8 banks), so a warp's load is one
// wavefront. Stride 2 gives two-way conflicts there; the builder's timing weighs them.
// Epilogues: clamps only (none, ReLU, ReLU6: the tactic refuses other activations), which compile to a max and a min;
// the full activation code in each of the 49 unrolled stores grew the earlier unrolled walks 4.5x (NOTE [depthwise
// clamp epilogues]).
//
// NOTE [depthwise two chains]
// In the sm_90 SASS of the walkers ptxas computes the block output by output, each output's K*K products one dependent
// chain (fitting 128 registers), and a chain runs at the instruction's latency: 4 cycles a link for FFMA, but for
// HFMA2 ptxas alternates HFMA2 (6 cycles) with HFMA2.MMA (10), so the fp16 5x5 item took 8059 scheduled stall cycles
// for 2196 instructions (3.7 a warp instruction) against fp32's 5846 for 2181 (2.7). That matched the bench: the fp16
// 5x5 blocked cases reached 64-70% of the copy bandwidth where fp32's reached 84-86%, at equal instructions per byte
// (bench/RESULTS.md, 2026-12-07). With CHAINS == 2 each output sums its first (K+1)/2 kernel rows in one accumulator
// and the others in a second one that starts from the bias (the epilogue adds the two where it added the bias: no
// extra instruction), so two independent chains interleave: fp16 5x5 5218 stall cycles for 2190 instructions, fp32
// 5x5 4649-4620, at the same instruction counts and no spills (counted with scripts/sass.sh --waits). Configs 27-28.
// Measured on an H100 (2026-12-07, same binary, A/B): fp16 5x5 at batch 128 x0.93-0.95 (240x28k5s1 48.5 -> 46.3 us,
// 72% of copy), fp32 x0.98. Less than the stall counts predicted (~80% of copy): chain latency was one limit of
// several.
//
// NOTE [depthwise blocked residual]
// With the residual a runtime pointer, each output paid for it whether or not there was one: the null test, the
// address, a predicated-off load, its zeroing and an add, ~6 of the ~11 epilogue instructions an output in the sm_90
// SASS (fp16 5x5, 3072 instructions an item). Nsight Compute (H100, 2026-12-07, 240x28k5s1 b128 fp16, config 28)
// found the kernel issue-limited rather than DRAM-limited: 0.62 warp instructions a cycle per scheduler from 3.7
// resident warps, stalls led by fixed-latency waits. So the residual is a template argument, chosen at launch.
// With NOTE [depthwise staged dense taps], measured on an H100 (2026-12-07, A/B against 06e36a6): fp16 5x5 b128
// 240x28k5s1 46.2 -> 43.1 us (79% of copy), 672x14k5s1 34.9 -> 31.5 us; fp16 geometric mean x0.893 at batch 32,
// x0.938 at 128. fp32 was mixed (x1.044 at batch 32; 1152x7k5s1 b128 29.9 -> 33.4 us): its compute region has fewer
// instructions and scheduled stall cycles than before, but its dense taps were loaded byte by byte (fixed in
// b26725f, not yet re-measured).
//
// NOTE [depthwise tma tile]
// The same Nsight Compute run and SASS put ~480 of a fp16 5x5 lane's ~2800 instructions into staging its tile: 16
// cp.async chunks of 16 bytes, ~30 instructions each for the pixel's row and column, the bounds and the addresses
// (a cheaper loop was tried: 28). Hopper's tensor memory accelerator copies the whole box -- channel words x columns
// x rows of one image, zeros outside the tensor, so the padding needs no test either -- on one instruction of one
// thread, and an mbarrier tells the block when the bytes have landed. Configs 29-30: configs 27-28 (two chains, one
// block per tile) with the tile copied so. The map is encoded on the host per launch (depthwise_tma.h); where it
// cannot describe the input the launch falls back to the cp.async kernel, which gives the same bits.
//
// NOTE [depthwise wide tma tile]
// The TMA tile measured (bench/RESULTS.md, 2026-12-07 evening) at ~39% of the issue rate where the cp.async one was
// issue-bound, so what the instructions were hiding now shows: the tile's halo. Under the 32 KiB staged budget a fp16
// or fp32 5x5 tile of 32 channel lanes (128-byte pixels) is 7 x 14 outputs, 11 x 18 input pixels: every input byte
// crosses from L2 into shared memory 2.0 times (240x28k5s1 b128: ~97 MB of input tiles and 48 MB of output in 40 us,
// ~3.6 TB/s through L2). The TMA tile needs one buffer, not a persistent block's two, so configs 31-32 give it twice
// the budget: 14 x 14 outputs from 18 x 18 pixels (41 KiB; 1.65 reads a byte, -18%), four walkers a block, 5 blocks an
// SM. Measured on an H100 on 2026-12-07 (bench/RESULTS.md, night), in a same-call A/B: 240x28k5s1 b128 fp16 40.24 ->
// 39.45 us (37-39 predicted), 672x14k5s1 b128 29.23 -> 29.08 (27-28.5 predicted), and a gain not predicted, 144x56k5s2
// fp32 b128 121.1 -> 102.0: 32 fp32 lanes of its 7 x 7 stride-2 tile (17 x 17 pixels, 37 KiB) fit only this budget.
#pragma once

#include "backends/cuda/kernels/common/tma.cuh"
#include "backends/cuda/kernels/depthwise/depthwise_staged.cuh"
#include "backends/cuda/kernels/depthwise/depthwise_tma.h"

namespace strata::cuda::dw {

/// A 4-byte word of `p` where `pred`, else zero: a predicated load, not a branch.
__device__ __forceinline__ unsigned int load_word_if(const void* p, bool pred) {
    unsigned int v;
    asm volatile(
        "{\n .reg .pred p;\n setp.ne.b32 p, %2, 0;\n mov.b32 %0, 0;\n @p ld.global.nc.b32 %0, [%1];\n}"
        : "=r"(v)
        : "l"(p), "r"(static_cast<int>(pred)));
    return v;
}

/// Stores a 4-byte word at `p` where `pred`: a predicated store, not a branch. No "memory" clobber: nothing in the
/// kernel reads Y, and the residual word of the same offset (Y's buffer, if the residual is in place) is loaded by
/// an earlier volatile asm, which the compiler keeps in order; the clobber would hold back the next rows' shared loads.
__device__ __forceinline__ void store_word_if(void* p, unsigned int v, bool pred) {
    asm volatile("{\n .reg .pred p;\n setp.ne.b32 p, %2, 0;\n @p st.global.b32 [%0], %1;\n}" ::"l"(p), "r"(v),
                 "r"(static_cast<int>(pred)));
}

/// max and min that return NaN when either input is NaN (sm_80+), so that a clamp to +-inf changes nothing.
__device__ __forceinline__ float max_nan(float a, float b) {
    float r;
    asm("max.NaN.f32 %0, %1, %2;" : "=f"(r) : "f"(a), "f"(b));
    return r;
}
__device__ __forceinline__ float min_nan(float a, float b) {
    float r;
    asm("min.NaN.f32 %0, %1, %2;" : "=f"(r) : "f"(a), "f"(b));
    return r;
}

/// The clamp epilogue of the blocked walkers (NOTE [depthwise blocked walkers]), set up once per lane: bias in the
/// accumulator's type, the clamp as a low and a high bound (-inf and +inf for none, 0 for ReLU, 6 for ReLU6; NaN
/// propagates, as in PyTorch), and predicated loads and stores at 32-bit offsets from a walker's block. Written out
/// per store with branches for the bounds and the residual, 64-bit offsets and the activation's kind read each time,
/// it took ~30 instructions an output in the sm_90 SASS, as many as the block's multiplies.
template <class T, class Math>
struct BlockedEpilogue {
    static constexpr int L = Math::kLanes, VEC = 4 / sizeof(T);
    using Acc = typename Math::Acc;
    using Word = Raw<T, VEC>;
    Acc bias[L], lo, hi;
    const T* residual = nullptr;

    __device__ __forceinline__ BlockedEpilogue(const EpilogueParams& e, const float (&b)[VEC]) {
        const float inf = __int_as_float(0x7f800000);
        const float low = e.act.kind >= 0 ? 0.0f : -inf;
        const float high = e.act.kind == static_cast<int>(ir::UnaryKind::Relu6) ? 6.0f : inf;
        if constexpr (std::is_same_v<Acc, __half2>) {
            bias[0] = __floats2half2_rn(b[0], b[1]);
            lo = __float2half2_rn(low), hi = __float2half2_rn(high);
        } else {
#pragma unroll
            for (int l = 0; l < L; ++l) bias[l] = b[l];
            lo = low, hi = high;
        }
        residual = static_cast<const T*>(e.residual);
    }

    /// y[off] = clamp(acc + bias + res[off]) where `pred`; y and res point at a walker block's first output. RES:
    /// whether there is a residual, fixed at compile time (NOTE [depthwise blocked residual]).
    template <bool RES>
    __device__ __forceinline__ void store(const Acc (&acc)[L], T* y, const T* res, int off, bool pred) const {
        store_sum<RES>(acc, bias, y, res, off, pred);
    }
    /// The same with `rest` (the second chain of NOTE [depthwise two chains], which started from the bias) in place
    /// of the bias.
    template <bool RES>
    __device__ __forceinline__ void store_sum(const Acc (&acc)[L], const Acc (&rest)[L], T* y, const T* res, int off,
                                              bool pred) const {
        const Word r = RES ? load_word_if(res + off, pred) : Word{};
        if constexpr (std::is_same_v<Acc, __half2>) {
            __half2 sum = __hadd2(acc[0], rest[0]);
            if constexpr (RES) {
                __half2 rv;
                memcpy(&rv, &r, sizeof(rv));
                sum = __hadd2(sum, rv);
            }
            const __half2 v = __hmin2_nan(__hmax2_nan(sum, lo), hi);
            Word out;
            memcpy(&out, &v, sizeof(out));
            store_word_if(y + off, out, pred);
        } else {
            float rv[VEC], v[VEC];
            widen<T, VEC>(r, rv);
#pragma unroll
            for (int l = 0; l < VEC; ++l) {
                const float sum = RES ? acc[l] + rest[l] + rv[l] : acc[l] + rest[l];
                v[l] = min_nan(max_nan(sum, lo), hi);
            }
            store_word_if(y + off, narrow<T, VEC>(v), pred);
        }
    }
};

/// The outputs of one staged tile, walker by walker: blocks of BR x BC outputs (NOTE [depthwise blocked walkers]).
/// The tile's sides are whole blocks (block_depthwise_tile), so every block reads inside the staged tile.
template <class T, int K, int S, int CL, int BR, int BC, int CHAINS, bool RES, class Math>
__device__ __forceinline__ void blocked_compute(const StagedArgs& a, const StagedTile& at, int c0,
                                                const Raw<T, 4 / sizeof(T)> (&taps)[K * K],
                                                const float (&bias)[4 / sizeof(T)], const Raw<T, 4 / sizeof(T)>* tile) {
    constexpr int L = Math::kLanes, G = 32 / CL;
    constexpr int kInRows = (BR - 1) * S + K, kInCols = (BC - 1) * S + K;
    using Acc = typename Math::Acc;
    // NOTE [depthwise two chains]: kernel rows [0, kSplit) add into acc, the rest into `rest`, which starts from the
    // bias; with one chain kSplit == K and the bias is added in the epilogue.
    static_assert(CHAINS == 1 || CHAINS == 2, "one or two chains");
    constexpr bool kTwoChains = CHAINS == 2;
    constexpr int kSplit = kTwoChains ? (K + 1) / 2 : K;
    const DepthwiseParams& prm = a.prm;
    const ConvGeometry& g = prm.g;
    const int lane = threadIdx.x % 32, cl = lane % CL;
    const int tp = min(a.tile_p, g.p - at.p0), tq = min(a.tile_q, g.q - at.q0);
    const int blocks_q = (tq + BC - 1) / BC, blocks = (tp + BR - 1) / BR * blocks_q;
    const int walkers = blockDim.x / 32 * G;
    const int row_words = a.in_cols * CL;
    const BlockedEpilogue<T, Math> epilogue(prm.epilogue, bias);
    const int64_t y_tile = at.n * prm.y_stride[0] + at.p0 * prm.y_stride[2] + at.q0 * prm.y_stride[3] + c0;
    // Within an image: 32 bits (block_depthwise_tile refuses larger).
    const int y_row = static_cast<int>(prm.y_stride[2]), y_col = static_cast<int>(prm.y_stride[3]);
    for (int item = threadIdx.x / 32 * G + lane / CL; item < blocks; item += walkers) {
        const int bq = item % blocks_q, bp = item / blocks_q;
        const int p_first = bp * BR, q_first = bq * BC;
        const int rows_valid = tp - p_first, cols_valid = tq - q_first;
        const Raw<T, 4 / sizeof(T)>* src = tile + p_first * S * row_words + q_first * S * CL + cl;
        const int64_t y_block = y_tile + p_first * y_row + q_first * y_col;
        T* y = static_cast<T*>(prm.y) + y_block;
        const T* res = RES ? epilogue.residual + y_block : nullptr;
        // Each output's first product starts it (a multiply, not an add to zero): zeros set up front would hold all
        // BR x BC accumulators live from the start, where only A rows of them are in flight at a time.
        Acc acc[BR][BC][L], rest[BR][BC][L];
#pragma unroll
        for (int i = 0; i < kInRows; ++i) {
            Acc x[kInCols][L];
#pragma unroll
            for (int j = 0; j < kInCols; ++j) {
                // Loaded into a register first: unpacked straight from shared memory, the float path's memcpy was
                // compiled to four byte loads a word (sm_90 SASS: LDS.U8 and PRMT).
                const Raw<T, 4 / sizeof(T)> word = src[i * row_words + j * CL];
                Math::unpack(word, x[j]);
            }
#pragma unroll
            for (int r = 0; r < BR; ++r) {
                const int kh = i - r * S;
                if (kh < 0 || kh >= K) continue;
#pragma unroll
                for (int kw = 0; kw < K; ++kw) {
                    Acc w[L];
                    Math::unpack(taps[kh * K + kw], w);
#pragma unroll
                    for (int c = 0; c < BC; ++c)
#pragma unroll
                        for (int l = 0; l < L; ++l) {
                            const Acc xv = x[c * S + kw][l];
                            if (kh < kSplit)
                                acc[r][c][l] = kh == 0 && kw == 0 ? Math::mul(xv, w[l])
                                                                  : Math::fma(xv, w[l], acc[r][c][l]);
                            else
                                rest[r][c][l] = Math::fma(xv, w[l], kh == kSplit && kw == 0 ? epilogue.bias[l]
                                                                                            : rest[r][c][l]);
                        }
                }
            }
            // Output row r is complete once its last input row (r*S + K-1) is in.
            if (i >= K - 1 && (i - (K - 1)) % S == 0) {
                const int r = (i - (K - 1)) / S;
#pragma unroll
                for (int c = 0; c < BC; ++c) {
                    const int off = r * y_row + c * y_col;
                    const bool inside = r < rows_valid && c < cols_valid;
                    if constexpr (kTwoChains)
                        epilogue.template store_sum<RES>(acc[r][c], rest[r][c], y, res, off, inside);
                    else
                        epilogue.template store<RES>(acc[r][c], y, res, off, inside);
                }
            }
        }
    }
}

template <class T, int K, int S, int CL, int BR, int BC, int CHAINS, bool RES>
__global__ void __launch_bounds__(256, 2) dw_blocked_nhwc_kernel(StagedArgs a) {
    using Math = typename MathFor<T, 4 / sizeof(T)>::type;
    walk_staged_tiles<T, K, S, CL>(a, [&](const StagedTile& t, int c0, const auto& taps,
                                          const float(&bias)[4 / sizeof(T)], const auto* words) {
        blocked_compute<T, K, S, CL, BR, BC, CHAINS, RES, Math>(a, t, c0, taps, bias, words);
    });
}

/// Configs 29-30 (NOTE [depthwise tma tile]): one block per staged tile, the tile copied by the tensor memory
/// accelerator, then the blocked walkers as in dw_blocked_nhwc_kernel.
template <class T, int K, int S, int CL, int BR, int BC, int CHAINS, bool RES>
__global__ void __launch_bounds__(256, 2) dw_blocked_tma_kernel(const __grid_constant__ StagedArgs a,
                                                                const __grid_constant__ CUtensorMap map) {
    using Math = typename MathFor<T, 4 / sizeof(T)>::type;
    constexpr int VEC = 4 / sizeof(T);
    using Word = Raw<T, VEC>;
    extern __shared__ __align__(128) unsigned char tma_smem[];
    const DepthwiseParams& prm = a.prm;
    const ConvGeometry& g = prm.g;
    const uint32_t tile_bytes = static_cast<uint32_t>(a.in_rows * a.in_cols * CL * 4);
    const uint32_t tile = shared_address(tma_smem);
    const uint32_t bar = tile + mbarrier_offset(tile_bytes);  // after the tile (launch_blocked_tma sizes it)
    const StagedTile t = staged_tile(a, blockIdx.x, CL * VEC);
    const int c0 = t.c_first + threadIdx.x % 32 % CL * VEC;
    const bool channel_ok = c0 < g.c;
    if (threadIdx.x == 0) mbarrier_init(bar, 1);
    Word taps[K * K];
    float bias[VEC];
    staged_taps<T, K>(prm, channel_ok ? c0 : 0, taps, bias);  // the weights: no earlier kernel writes them
    if (prm.pdl) {
        pdl_wait();  // NOTE [programmatic dependent launch]: x is the earlier kernel's output
        pdl_launch_dependents();
    }
    __syncthreads();  // the barrier initialised before any thread waits on it
    if (threadIdx.x == 0) {
        mbarrier_expect_bytes(bar, tile_bytes);
        tma_load_box(tile, &map, t.c_first / VEC, t.q0 * S - g.pad_w, t.p0 * S - g.pad_h, t.n, bar);
    }
    mbarrier_wait(bar, 0);
    if (channel_ok)
        blocked_compute<T, K, S, CL, BR, BC, CHAINS, RES, Math>(a, t, c0, taps, bias,
                                                                reinterpret_cast<const Word*>(tma_smem));
}

/// Calls f(integral_constant K, integral_constant S) for the (K, S) the blocked kernel is compiled for: 3x3 and 5x5,
/// stride 1 and 2. False for any other.
template <class F>
bool with_blocked_kernel_stride(int k, int s, F&& f) {
    if (k != 3 && k != 5) return false;
    return with_kernel_stride(k, s, f);
}

/// Launches a TMA kernel, one block per tile; false, launching nothing, where the tensor map cannot describe the input
/// (the caller then launches the cp.async kernel).
template <class Kernel>
bool launch_blocked_tma(Kernel kernel, const StagedArgs& a, const DepthwiseTile& tile, int64_t tiles,
                        cudaStream_t stream) {
    CUtensorMap map;
    const int elem_bytes = static_cast<int>(4 / tile.vec);
    if (!encode_depthwise_tile_map(a.prm, elem_bytes, tile.channel_lanes, a.in_cols, a.in_rows, map)) return false;
    const size_t tile_bytes = staged_tile_bytes(a.prm.g, tile.tile_p, tile.tile_q, tile.channel_lanes);
    const size_t smem = mbarrier_offset(tile_bytes) + sizeof(uint64_t);  // one tile, then its mbarrier
    // The function's limit as launch_staged sets it (GpuDepthwise.StagedLaunchesShareOneSharedMemoryLimit).
    // One limit for every launch of the function, the wide tiles' (NOTE [depthwise wide tma tile]); it allows, it does
    // not reserve: occupancy follows the bytes each launch asks for.
    STRATA_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                           static_cast<int>(2 * kDepthwiseWideTileBudget)),
                      "depthwise TMA launch");
    launch_kernel(kernel, static_cast<unsigned>(tiles), tile.block_x, smem, stream, a.prm.pdl, a, map);
    return true;
}

template <class T>
bool launch_blocked_nhwc(const DepthwiseParams& prm, const DepthwiseTile& tile, cudaStream_t stream) {
    if constexpr (!std::is_same_v<T, float> && !std::is_same_v<T, __half>) {
        return false;  // bf16: NOTE [depthwise blocked walkers]
    } else {
        if (tile.vec != static_cast<int>(4 / sizeof(T)) || tile.rows != kDepthwiseBlockRows ||
            tile.cols != kDepthwiseBlockCols || (tile.chains != 1 && tile.chains != 2) ||
            !clamp_activation(prm.epilogue.act))
            return false;
        const StagedArgs a = staged_args(prm, tile);
        const size_t smem = depthwise_smem_bytes(prm, tile);
        const int64_t tiles = int64_t{prm.g.n} * a.tiles_p * a.tiles_q * a.slabs;
        constexpr int BR = kDepthwiseBlockRows, BC = kDepthwiseBlockCols;
        return with_blocked_kernel_stride(prm.g.r, prm.g.stride_h, [&](auto kc, auto sc) {
            constexpr int K = decltype(kc)::value, S = decltype(sc)::value;
            if constexpr (K <= 5) {  // larger K is not compiled (with_blocked_kernel_stride never calls it so)
                auto with_chains = [&](auto lanes, auto residual) {
                    constexpr int CL = decltype(lanes)::value;
                    constexpr bool RES = decltype(residual)::value;
                    if (tile.tma && tile.chains == 2 &&
                        launch_blocked_tma(dw_blocked_tma_kernel<T, K, S, CL, BR, BC, 2, RES>, a, tile, tiles, stream))
                        return;
                    if (tile.chains == 2)
                        launch_staged(dw_blocked_nhwc_kernel<T, K, S, CL, BR, BC, 2, RES>, a, tile, smem, tiles,
                                      stream);
                    else
                        launch_staged(dw_blocked_nhwc_kernel<T, K, S, CL, BR, BC, 1, RES>, a, tile, smem, tiles,
                                      stream);
                };
                auto with_lanes = [&](auto residual) {
                    if (tile.channel_lanes == 32)
                        with_chains(std::integral_constant<int, 32>{}, residual);
                    else
                        with_chains(std::integral_constant<int, 8>{}, residual);
                };
                if (prm.epilogue.residual != nullptr)
                    with_lanes(std::true_type{});
                else
                    with_lanes(std::false_type{});
            }
        });
    }
}

}  // namespace strata::cuda::dw
