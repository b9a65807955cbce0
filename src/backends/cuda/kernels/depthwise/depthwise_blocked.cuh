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
#pragma once

#include "backends/cuda/kernels/depthwise/depthwise_staged.cuh"

namespace strata::cuda::dw {

/// Stores output row `r` of a walker's block: BC words of VEC channels, those inside the tile's valid part.
template <class T, int BC, class Math>
__device__ __forceinline__ void blocked_store_row(const EpilogueParams& e, const typename Math::Acc (&acc)[BC][Math::kLanes],
                                                  const float (&bias)[4 / sizeof(T)], T* y, int64_t off,
                                                  int64_t col_stride, int cols_valid) {
    constexpr int VEC = 4 / sizeof(T);
#pragma unroll
    for (int c = 0; c < BC; ++c) {
        if (c < cols_valid) {
            if constexpr (std::is_same_v<Math, Half2Math<VEC>>) {
                const __half2 bias_h2[1] = {__floats2half2_rn(bias[0], bias[1])};
                store_epilogue_half2<1>(e, acc[c], bias_h2, y, off + c * col_stride);
            } else {
                float out[VEC];
                Math::to_floats(acc[c], out);
                store_epilogue_clamp<T, VEC>(e, out, bias, y, off + c * col_stride);
            }
        }
    }
}

/// The outputs of one staged tile, walker by walker: blocks of BR x BC outputs (NOTE [depthwise blocked walkers]).
/// The tile's sides are whole blocks (block_depthwise_tile), so every block reads inside the staged tile.
template <class T, int K, int S, int CL, int BR, int BC, class Math>
__device__ __forceinline__ void blocked_compute(const StagedArgs& a, const StagedTile& at, int c0,
                                                const Raw<T, 4 / sizeof(T)> (&taps)[K * K],
                                                const float (&bias)[4 / sizeof(T)], const Raw<T, 4 / sizeof(T)>* tile) {
    constexpr int L = Math::kLanes, G = 32 / CL;
    constexpr int kInRows = (BR - 1) * S + K, kInCols = (BC - 1) * S + K;
    using Acc = typename Math::Acc;
    const DepthwiseParams& prm = a.prm;
    const ConvGeometry& g = prm.g;
    const int lane = threadIdx.x % 32, cl = lane % CL;
    const int tp = min(a.tile_p, g.p - at.p0), tq = min(a.tile_q, g.q - at.q0);
    const int blocks_q = (tq + BC - 1) / BC, blocks = (tp + BR - 1) / BR * blocks_q;
    const int walkers = blockDim.x / 32 * G;
    const int row_words = a.in_cols * CL;
    T* y = static_cast<T*>(prm.y);
    const int64_t y_tile = at.n * prm.y_stride[0] + at.p0 * prm.y_stride[2] + at.q0 * prm.y_stride[3] + c0;
    const int64_t y_row = prm.y_stride[2], y_col = prm.y_stride[3];
    for (int item = threadIdx.x / 32 * G + lane / CL; item < blocks; item += walkers) {
        const int bq = item % blocks_q, bp = item / blocks_q;
        const int p_first = bp * BR, q_first = bq * BC;
        const int rows_valid = tp - p_first, cols_valid = tq - q_first;
        const Raw<T, 4 / sizeof(T)>* src = tile + p_first * S * row_words + q_first * S * CL + cl;
        const int64_t y_block = y_tile + p_first * y_row + q_first * y_col;
        // Each output's first product starts it (a multiply, not an add to zero): zeros set up front would hold all
        // BR x BC accumulators live from the start, where only A rows of them are in flight at a time.
        Acc acc[BR][BC][L];
#pragma unroll
        for (int i = 0; i < kInRows; ++i) {
            Acc x[kInCols][L];
#pragma unroll
            for (int j = 0; j < kInCols; ++j) Math::unpack(src[i * row_words + j * CL], x[j]);
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
                        for (int l = 0; l < L; ++l)
                            acc[r][c][l] = kh == 0 && kw == 0 ? Math::mul(x[c * S + kw][l], w[l])
                                                              : Math::fma(x[c * S + kw][l], w[l], acc[r][c][l]);
                }
            }
            // Output row r is complete once its last input row (r*S + K-1) is in.
            if (i >= K - 1 && (i - (K - 1)) % S == 0) {
                const int r = (i - (K - 1)) / S;
                if (r < rows_valid)
                    blocked_store_row<T, BC, Math>(prm.epilogue, acc[r], bias, y, y_block + r * y_row, y_col,
                                                   cols_valid);
            }
        }
    }
}

template <class T, int K, int S, int CL, int BR, int BC>
__global__ void __launch_bounds__(256, 2) dw_blocked_nhwc_kernel(StagedArgs a) {
    using Math = typename MathFor<T, 4 / sizeof(T)>::type;
    walk_staged_tiles<T, K, S, CL>(a, [&](const StagedTile& t, int c0, const auto& taps,
                                          const float(&bias)[4 / sizeof(T)], const auto* words) {
        blocked_compute<T, K, S, CL, BR, BC, Math>(a, t, c0, taps, bias, words);
    });
}

/// Calls f(integral_constant K, integral_constant S) for the (K, S) the blocked kernel is compiled for: 3x3 and 5x5,
/// stride 1 and 2. False for any other.
template <class F>
bool with_blocked_kernel_stride(int k, int s, F&& f) {
    if (k != 3 && k != 5) return false;
    return with_kernel_stride(k, s, f);
}

template <class T>
bool launch_blocked_nhwc(const DepthwiseParams& prm, const DepthwiseTile& tile, cudaStream_t stream) {
    if constexpr (!std::is_same_v<T, float> && !std::is_same_v<T, __half>) {
        return false;  // bf16: NOTE [depthwise blocked walkers]
    } else {
        if (tile.vec != static_cast<int>(4 / sizeof(T)) || tile.rows != kDepthwiseBlockRows ||
            tile.cols != kDepthwiseBlockCols || !clamp_activation(prm.epilogue.act))
            return false;
        const StagedArgs a = staged_args(prm, tile);
        const size_t smem = depthwise_smem_bytes(prm, tile);
        const int64_t tiles = int64_t{prm.g.n} * a.tiles_p * a.tiles_q * a.slabs;
        constexpr int BR = kDepthwiseBlockRows, BC = kDepthwiseBlockCols;
        return with_blocked_kernel_stride(prm.g.r, prm.g.stride_h, [&](auto kc, auto sc) {
            constexpr int K = decltype(kc)::value, S = decltype(sc)::value;
            if constexpr (K > 5)
                return;  // not compiled (with_blocked_kernel_stride never calls it so)
            else if (tile.channel_lanes == 32)
                launch_staged(dw_blocked_nhwc_kernel<T, K, S, 32, BR, BC>, a, tile, smem, tiles, stream);
            else
                launch_staged(dw_blocked_nhwc_kernel<T, K, S, 8, BR, BC>, a, tile, smem, tiles, stream);
        });
    }
}

}  // namespace strata::cuda::dw
