// depthwise_staged.cuh: the staged NHWC depthwise kernel (DepthwiseKernelKind::staged_nhwc), instantiated per dtype
// through depthwise_launch.cuh.
//
// NOTE [depthwise staged tile]
// The tiled NHWC kernel streams a strip per thread straight from global memory: every thread reads its
// (COLS-1)*S+K input columns per row, so neighbouring strips read the same halo columns again (from L1/L2), and a
// short map (14x14, 7x7) gives each thread a strip of a few rows that ends before its loads ever overlap. At batch
// 128 on those maps it reached 21-48% of the copy bandwidth. This kernel instead gives a block one input tile --
// (TP-1)*S+K rows x (TQ-1)*S+K columns x one channel slab, the whole map where it fits -- and copies it into shared
// memory with cp.async in one burst of 16-byte chunks (zero-filled outside the map, so padding needs no test). The
// whole burst is in flight at once and several blocks per SM overlap their bursts with each other's arithmetic, so
// DRAM sees long runs of full lines and every input byte is read once. Either one block per tile, or persistent
// blocks (a few per SM) with two tile buffers, the next tile's copy in flight while this one is computed; neither
// won everywhere in an earlier session's H200 runs (2026-12-01; the kernel was short of integer issue slots more than
// of DRAM; those figures were lost with that session), so both are configs and the builder's timing picks.
// Then each lane owns one 4-byte channel vector (a half2/bf162 pair or one float), keeps its K*K taps in registers
// (4 bytes each) and walks a strip of output rows down one column of the tile with the rolling accumulators of
// NOTE [depthwise rolling rows], reading K tile pixels per input row from shared memory (lanes on consecutive
// channels: conflict-free).
// Lanes of a warp: CL on channels (32: a 128-byte channel slab per pixel; 8: 32 bytes, four pixels per warp, for
// few channels or small batches), 32/CL on columns.
#pragma once

#include <utility>

#include "backends/cuda/kernels/common/launch_limits.h"
#include "backends/cuda/kernels/common/mma.cuh"
#include "backends/cuda/kernels/depthwise/depthwise_kernel.cuh"

namespace strata::cuda::dw {

/// Launch arguments of the staged kernel (tile counts precomputed on the host).
struct StagedArgs {
    DepthwiseParams prm;
    int tile_p = 1, tile_q = 1;    ///< output rows / columns per tile
    int in_rows = 1, in_cols = 1;  ///< the tile's input rows / columns: (tile-1)*S+K
    int tiles_p = 1, tiles_q = 1;  ///< tiles down / across the map
    int strip_rows = 1;            ///< output rows one thread walks
    int slabs = 1;                 ///< channel slabs: ceil(C / slab channels)
    // Tile indices and tile pixels split by these (fast_divmod.h), not by `/` and `%`: five 32-bit divisions of ~20
    // dependent instructions each came before a one-block-per-tile launch's first copy.
    FastDivmod by_slabs, by_tiles_q, by_tiles_p, by_in_cols;
};

/// The tile of input rows [row0, ...) x columns [col0, ...) of image n, channels [c_first, c_first + CL*VEC), into
/// `tile` ([in_rows][in_cols][CL] 4-byte words) as 16-byte cp.async chunks, zeros outside the map and past C.
/// A thread's chunks are threadIdx.x + k * blockDim.x: the same part of a pixel each time, and pixels a fixed step
/// apart, so (row, column), the source offset and the destination advance by addition (the kernel is short of
/// integer issue slots, not of memory). The source offset within the image is 32-bit (stage_depthwise_tile refuses
/// images of 2^31 elements or more): with the 64-bit strides each chunk cost ~45 instructions, most of them wide
/// multiplies.
template <class T, int CL>
__device__ __forceinline__ void stage_input_tile(const StagedArgs& a, const T* xn, int row0, int col0, int c_first,
                                                 uint32_t tile) {
    constexpr int kChunksPerPixel = CL * 4 / 16, kChunkElems = 16 / sizeof(T);
    const DepthwiseParams& prm = a.prm;
    const int part = threadIdx.x % kChunksPerPixel, pixel_step = blockDim.x / kChunksPerPixel;
    const int c = c_first + part * kChunkElems;
    const bool channels_in = c < prm.g.c;
    const int pixels = a.in_rows * a.in_cols;
    int pix = threadIdx.x / kChunksPerPixel;
    uint32_t row_u, col_u, step_rows_u, step_cols_u;
    a.by_in_cols.divmod(static_cast<uint32_t>(pix), row_u, col_u);
    a.by_in_cols.divmod(static_cast<uint32_t>(pixel_step), step_rows_u, step_cols_u);
    int row = static_cast<int>(row_u), col = static_cast<int>(col_u);
    const int step_rows = static_cast<int>(step_rows_u), step_cols = static_cast<int>(step_cols_u);
    const int row_stride = static_cast<int>(prm.x_stride[2]), col_stride = static_cast<int>(prm.x_stride[3]);
    int offset = (row0 + row) * row_stride + (col0 + col) * col_stride + c;  // of this chunk, within the image
    const int step_offset = step_rows * row_stride + step_cols * col_stride;
    const int wrap_offset = row_stride - a.in_cols * col_stride;  // a column past the tile's last: the next row
    uint32_t dst = tile + (pix * kChunksPerPixel + part) * 16;
    const uint32_t dst_step = static_cast<uint32_t>(pixel_step * kChunksPerPixel * 16);
    for (; pix < pixels; pix += pixel_step) {
        const int ih = row0 + row, iw = col0 + col;
        const bool valid = channels_in && static_cast<unsigned>(ih) < static_cast<unsigned>(prm.g.h) &&
                           static_cast<unsigned>(iw) < static_cast<unsigned>(prm.g.w);
        cp_async_16(dst, valid ? xn + offset : xn, valid ? 16 : 0);
        row += step_rows, col += step_cols, offset += step_offset, dst += dst_step;
        if (col >= a.in_cols) col -= a.in_cols, ++row, offset += wrap_offset;
    }
    cp_async_commit();
}

/// Which tile of the layer `index` names: channel slab fastest, so that the blocks running at once share images and
/// rows (their halos meet in L2).
struct StagedTile {
    int n, p0, q0, c_first;
};
__device__ __forceinline__ StagedTile staged_tile(const StagedArgs& a, int index, int slab_channels) {
    uint32_t slab, tq, tp, rest, in_image, images;
    a.by_slabs.divmod(static_cast<uint32_t>(index), rest, slab);
    a.by_tiles_q.divmod(rest, in_image, tq);
    a.by_tiles_p.divmod(in_image, images, tp);
    StagedTile t;
    t.n = static_cast<int>(images);
    t.p0 = static_cast<int>(tp) * a.tile_p;
    t.q0 = static_cast<int>(tq) * a.tile_q;
    t.c_first = static_cast<int>(slab) * slab_channels;
    return t;
}

/// The outputs of one staged tile: each walker (CL lanes of a warp) walks column strips of the tile in shared memory
/// with the rolling accumulators of NOTE [depthwise rolling rows], taps in registers.
template <class T, int K, int S, int CL, class Math>
__device__ __forceinline__ void staged_compute(const StagedArgs& a, const StagedTile& tile_at, int c0,
                                               const Raw<T, 4 / sizeof(T)> (&taps)[K * K],
                                               const float (&bias)[4 / sizeof(T)], const Raw<T, 4 / sizeof(T)>* tile) {
    constexpr int VEC = 4 / sizeof(T), L = Math::kLanes, A = (K - 1) / S + 1, G = 32 / CL;
    using Acc = typename Math::Acc;
    using Word = Raw<T, VEC>;
    const DepthwiseParams& prm = a.prm;
    const ConvGeometry& g = prm.g;
    const int lane = threadIdx.x % 32, cl = lane % CL;
    [[maybe_unused]] const bool fast_epilogue = clamp_activation(prm.epilogue.act);
    [[maybe_unused]] __half2 bias_h2[1];
    if constexpr (std::is_same_v<Math, Half2Math<VEC>>) bias_h2[0] = __floats2half2_rn(bias[0], bias[1]);
    const int tp = min(a.tile_p, g.p - tile_at.p0), tq = min(a.tile_q, g.q - tile_at.q0);
    const int strips = (tp + a.strip_rows - 1) / a.strip_rows;
    const int walkers = blockDim.x / 32 * G;
    T* y = static_cast<T*>(prm.y);
    const int64_t y_tile = tile_at.n * prm.y_stride[0] + c0;
    const int row_words = a.in_cols * CL;
    for (int item = threadIdx.x / 32 * G + lane / CL; item < strips * tq; item += walkers) {
        const int col = item % tq, r_first = item / tq * a.strip_rows;
        const int r_end = min(r_first + a.strip_rows, tp);
        Acc acc[A][L];
#pragma unroll
        for (int d = 0; d < A; ++d)
#pragma unroll
            for (int l = 0; l < L; ++l) acc[d][l] = Math::zero();
        // The walk's first input row and the first output: both advance by a fixed stride per step.
        int ir = (r_first - (A - 1)) * S + K - S;
        int row = col * S * CL + cl + ir * row_words;  // a word index: negative above the tile, never read there
        T* y_out = y + y_tile + (tile_at.p0 + r_first) * prm.y_stride[2] + (tile_at.q0 + col) * prm.y_stride[3];
        for (int r = r_first - (A - 1); r < r_end; ++r) {
#pragma unroll
            for (int t = 0; t < S; ++t, ++ir, row += row_words) {
                if (ir < 0) continue;  // above the tile: only rows above the first strip would use it
                Acc x[K][L];
#pragma unroll
                for (int cc = 0; cc < K; ++cc) {
                    // Into a register first: the float path's memcpy straight from shared memory compiled to four
                    // byte loads a word (sm_90 SASS: LDS.U8 and PRMT).
                    const Word word = tile[row + cc * CL];
                    Math::unpack(word, x[cc]);
                }
#pragma unroll
                for (int d = 0; d < A; ++d) {
                    const int rr = K - S + t - S * d;
                    if (rr < 0) continue;
#pragma unroll
                    for (int cc = 0; cc < K; ++cc) {
                        Acc wv[L];
                        Math::unpack(taps[rr * K + cc], wv);
#pragma unroll
                        for (int l = 0; l < L; ++l) acc[d][l] = Math::fma(x[cc][l], wv[l], acc[d][l]);
                    }
                }
            }
            if (r >= r_first) {
                bool stored = false;
                if constexpr (std::is_same_v<Math, Half2Math<VEC>>) {
                    if (fast_epilogue) {
                        store_epilogue_half2<1>(prm.epilogue, acc[0], bias_h2, y, y_out - y);
                        stored = true;
                    }
                }
                if (!stored) {
                    float out[VEC];
                    Math::to_floats(acc[0], out);
                    store_epilogue<T, VEC>(prm.epilogue, out, bias, y, y_out - y);
                }
                y_out += prm.y_stride[2];
            }
#pragma unroll
            for (int d = 0; d + 1 < A; ++d)
#pragma unroll
                for (int l = 0; l < L; ++l) acc[d][l] = acc[d + 1][l];
#pragma unroll
            for (int l = 0; l < L; ++l) acc[A - 1][l] = Math::zero();
        }
    }
}

/// Tap t of channels c0 and c0 + 1 from the 2*KK contiguous 16-bit taps of a dense W ([C][K][K]) at `u`, read as
/// KK words: halves t and KK + t, paired by one byte permute.
template <int KK, int t>
__device__ __forceinline__ uint32_t dense_tap_pair(const uint32_t* u) {
    constexpr int lo = t, hi = KK + t;
    constexpr int lo_byte = 2 * (lo % 2), hi_byte = 4 + 2 * (hi % 2);
    constexpr uint32_t selector = lo_byte | (lo_byte + 1) << 4 | hi_byte << 8 | (hi_byte + 1) << 12;
    return __byte_perm(__ldg(u + lo / 2), __ldg(u + hi / 2), selector);
}

template <int KK, int... t>
__device__ __forceinline__ void dense_tap_pairs(const uint32_t* u, uint32_t* out, std::integer_sequence<int, t...>) {
    ((out[t] = dense_tap_pair<KK, t>(u)), ...);
}

/// This lane's taps (one 4-byte word per tap: VEC channels) and bias for channels [c0, c0 + VEC).
/// NOTE [depthwise staged dense taps]: with W dense ([C][K][K], dense_taps) a lane's taps are one contiguous run of
/// VEC * K*K elements, read at compile-time offsets from one address (for 16-bit types as K*K words, paired by byte
/// permutes). With the strides read at run time each tap element cost its own address arithmetic: ~230 instructions
/// a lane for fp16 5x5 in the sm_90 SASS, a tenth of a blocked walker's item (config 28 takes one tile per block, so
/// it loads its taps once per 49 outputs).
template <class T, int K>
__device__ __forceinline__ void staged_taps(const DepthwiseParams& prm, int c0, Raw<T, 4 / sizeof(T)> (&taps)[K * K],
                                            float (&bias)[4 / sizeof(T)]) {
    constexpr int VEC = 4 / sizeof(T), KK = K * K;
    const T* w = static_cast<const T*>(prm.w);
    if (dense_taps(prm, K)) {
        const T* run = w + int64_t{c0} * KK;
        if constexpr (VEC == 1) {
            // A typed load first: memcpy straight from global memory into the word was compiled to four byte loads
            // a tap (sm_90 SASS: LDG.E.U8), the likely cause of fp32's loss in d984028's A/B (1152x7k5s1 b128
            // 29.9 -> 33.4 us on an H100, 2026-12-07); not yet re-measured.
#pragma unroll
            for (int t = 0; t < KK; ++t) {
                const T v = __ldg(run + t);
                memcpy(&taps[t], &v, sizeof(taps[t]));
            }
        } else {
            static_assert(VEC == 2, "16-bit taps pair two channels");
            // c0 is even (VEC channels a lane), so the run starts on a 4-byte boundary of the 16-byte aligned W.
            uint32_t pairs[KK];
            dense_tap_pairs<KK>(reinterpret_cast<const uint32_t*>(run), pairs, std::make_integer_sequence<int, KK>{});
#pragma unroll
            for (int t = 0; t < KK; ++t) memcpy(&taps[t], &pairs[t], sizeof(taps[t]));
        }
    } else {
#pragma unroll
        for (int t = 0; t < KK; ++t) {
            T v[VEC];
#pragma unroll
            for (int e = 0; e < VEC; ++e)
                v[e] = w[(c0 + e) * prm.w_stride[0] + (t / K) * prm.w_stride[2] + (t % K) * prm.w_stride[3]];
            memcpy(&taps[t], v, sizeof(taps[t]));
        }
    }
#pragma unroll
    for (int e = 0; e < VEC; ++e) bias[e] = prm.epilogue.bias ? __ldg(prm.epilogue.bias + c0 + e) : 0.0f;
}

// Persistent blocks (NOTE [depthwise staged tile]): a block walks tiles blockIdx.x, + gridDim.x, ..., with two tile
// buffers: the next tile's copy is in flight while this one is computed, so the SM's share of DRAM never waits on
// arithmetic, and a grid of a few blocks per SM has no partly-filled last wave. The staged kernels share this walk;
// `compute(tile, c0, taps, bias, words)` computes one staged tile's outputs.
template <class T, int K, int S, int CL, class Compute>
__device__ __forceinline__ void walk_staged_tiles(const StagedArgs& a, Compute&& compute) {
    constexpr int VEC = 4 / sizeof(T);  // channels per lane
    using Word = Raw<T, VEC>;
    extern __shared__ __align__(16) unsigned char smem[];
    const DepthwiseParams& prm = a.prm;
    const ConvGeometry& g = prm.g;
    const size_t tile_bytes = size_t(a.in_rows) * a.in_cols * CL * 4;
    const int tiles = g.n * a.tiles_p * a.tiles_q * a.slabs;
    const int lane = threadIdx.x % 32;
    auto stage = [&](int index, int buffer) {
        const StagedTile t = staged_tile(a, index, CL * VEC);
        const T* xn = static_cast<const T*>(prm.x) + t.n * prm.x_stride[0];
        stage_input_tile<T, CL>(a, xn, t.p0 * S - g.pad_h, t.q0 * S - g.pad_w, t.c_first,
                                shared_address(smem + buffer * tile_bytes));
    };
    Word taps[K * K];
    float bias[VEC];
    int taps_c0 = -1;
    // NOTE [programmatic dependent launch]: the first slab's taps (weights) load while the earlier kernel ends.
    if (prm.pdl) {
        const int c0 = staged_tile(a, blockIdx.x, CL * VEC).c_first + lane % CL * VEC;
        staged_taps<T, K>(prm, c0 < g.c ? c0 : 0, taps, bias);
        taps_c0 = c0;
        pdl_wait();
        pdl_launch_dependents();
    }
    if (blockIdx.x < tiles) stage(blockIdx.x, 0);
    for (int index = blockIdx.x, i = 0; index < tiles; index += gridDim.x, ++i) {
        const int next = index + gridDim.x;
        if (next < tiles)
            stage(next, (i + 1) & 1);
        else
            cp_async_commit();  // an empty group keeps "all but the newest group" meaning this tile's
        const StagedTile t = staged_tile(a, index, CL * VEC);
        const int c0 = t.c_first + lane % CL * VEC;
        const bool channel_ok = c0 < g.c;
        if (c0 != taps_c0) {  // a new channel slab (never, when the grid is a multiple of the slabs)
            staged_taps<T, K>(prm, channel_ok ? c0 : 0, taps, bias);  // in flight while the tile lands
            taps_c0 = c0;
        }
        cp_async_wait<1>();
        __syncthreads();
        if (channel_ok) compute(t, c0, taps, bias, reinterpret_cast<const Word*>(smem + (i & 1) * tile_bytes));
        __syncthreads();  // the buffer is refilled by the stage two tiles on
    }
}

// Registers allow the blocks per SM the tile buffers do for 3x3 (3); fewer as the taps held in registers grow (K*K
// words each).
template <class T, int K, int S, int CL>
__global__ void __launch_bounds__(256, K == 7 ? 2 : 3) dw_staged_nhwc_kernel(StagedArgs a) {
    using Math = typename MathFor<T, 4 / sizeof(T)>::type;
    walk_staged_tiles<T, K, S, CL>(a, [&](const StagedTile& t, int c0, const auto& taps, const float(&bias)[4 / sizeof(T)],
                                          const auto* words) {
        staged_compute<T, K, S, CL, Math>(a, t, c0, taps, bias, words);
    });
}

inline StagedArgs staged_args(const DepthwiseParams& prm, const DepthwiseTile& tile) {
    const ConvGeometry& g = prm.g;
    StagedArgs a;
    a.prm = prm;
    a.tile_p = tile.tile_p, a.tile_q = tile.tile_q;
    a.in_rows = (tile.tile_p - 1) * g.stride_h + g.r;
    a.in_cols = (tile.tile_q - 1) * g.stride_w + g.s;
    a.tiles_p = (g.p + tile.tile_p - 1) / tile.tile_p;
    a.tiles_q = (g.q + tile.tile_q - 1) / tile.tile_q;
    a.strip_rows = tile.rows;
    a.slabs = (g.c + tile.channel_lanes * tile.vec - 1) / (tile.channel_lanes * tile.vec);
    a.by_slabs = FastDivmod(static_cast<uint32_t>(a.slabs));
    a.by_tiles_q = FastDivmod(static_cast<uint32_t>(a.tiles_q));
    a.by_tiles_p = FastDivmod(static_cast<uint32_t>(a.tiles_p));
    a.by_in_cols = FastDivmod(static_cast<uint32_t>(a.in_cols));
    return a;
}

/// Launches `kernel`: one block per tile, or (persistent) as many blocks as fit on the device at once. The
/// attribute and occupancy queries are host calls, legal while a stream is being captured.
template <class Kernel>
void launch_staged(Kernel kernel, const StagedArgs& a, const DepthwiseTile& tile, size_t smem, int64_t tiles,
                   cudaStream_t stream) {
    // The function's limit, not this launch's need: launches of other shapes share the function, so a limit set to a
    // small persistent tile's need would refuse a later, larger tile with "invalid argument"
    // (GpuDepthwise.StagedLaunchesShareOneSharedMemoryLimit).
    STRATA_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                           static_cast<int>(2 * kDepthwiseStagedTileBudget)),
                      "depthwise staged launch");
    if (!tile.persistent) {
        launch_kernel(kernel, static_cast<unsigned>(tiles), tile.block_x, smem, stream, a.prm.pdl, a);
        return;
    }
    int64_t grid = std::min<int64_t>(tiles, resident_blocks(kernel, tile.block_x, smem, "depthwise staged launch"));
    if (grid > a.slabs) grid -= grid % a.slabs;  // each block keeps one slab: its taps load once
    launch_kernel(kernel, static_cast<unsigned>(grid), tile.block_x, smem, stream, a.prm.pdl, a);
}

template <class T>
bool launch_staged_nhwc(const DepthwiseParams& prm, const DepthwiseTile& tile, cudaStream_t stream) {
    if (tile.vec != static_cast<int>(4 / sizeof(T))) return false;
    const StagedArgs a = staged_args(prm, tile);
    const size_t smem = depthwise_smem_bytes(prm, tile);
    // One block per tile: the kernel's loop then runs once and uses only its first buffer.
    const int64_t tiles = int64_t{prm.g.n} * a.tiles_p * a.tiles_q * a.slabs;
    return with_kernel_stride(prm.g.r, prm.g.stride_h, [&](auto kc, auto sc) {
        constexpr int K = decltype(kc)::value, S = decltype(sc)::value;
        if (tile.channel_lanes == 32)
            launch_staged(dw_staged_nhwc_kernel<T, K, S, 32>, a, tile, smem, tiles, stream);
        else
            launch_staged(dw_staged_nhwc_kernel<T, K, S, 8>, a, tile, smem, tiles, stream);
    });
}

}  // namespace strata::cuda::dw
