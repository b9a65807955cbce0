// depthwise_int8.cu: the int8 depthwise kernels (one per entry of kDwInt8FastShapes and output mode, a staged one per
// stageable entry and output mode, and the generic one), their launch on a stream and the host run of the same thread
// programs (see depthwise_int8.h).
#include <algorithm>
#include <vector>

#include "backends/cuda/cuda_check.h"
#include "backends/cuda/kernels/common/launch_limits.h"
#include "backends/cuda/kernels/depthwise/depthwise_int8_kernel.cuh"
#include "backends/cuda/kernels/depthwise/depthwise_int8_diag.cuh"
#include "backends/cuda/kernels/depthwise/depthwise_int8_band.h"
#include "backends/cuda/kernels/depthwise/depthwise_int8_mma.cuh"
#include "backends/cuda/kernels/depthwise/depthwise_int8_staged.cuh"

namespace strata::cuda {

namespace {

template <int I, DwInt8Out OUT>
__global__ void __launch_bounds__(kDwInt8Threads, kDwInt8FastShapes[I].min_blocks)
    dw_int8_fast_kernel(const DwInt8Params prm, int threads) {
    const int t = static_cast<int>(blockIdx.x) * kDwInt8Threads + static_cast<int>(threadIdx.x);
    if constexpr (kDwInt8FastShapes[I].ring) {
        extern __shared__ uint32_t dw_int8_rings[];  // [slot][column][thread] words (dw_int8_ring_bytes)
        if (t < threads) dw_int8_fast_thread<I, OUT>(prm, t, dw_int8_rings + threadIdx.x, kDwInt8Threads);
    } else {
        if (t < threads) dw_int8_fast_thread<I, OUT>(prm, t);
    }
}

// NOTE [depthwise int8 staged tile]. Two blocks of 256 threads per SM: 128 registers, what the stageable shapes need.
template <int I, DwInt8Out OUT>
__global__ void __launch_bounds__(kDwInt8StagedMaxThreads, 2)
    dw_int8_staged_kernel(const DwInt8Params prm, const DwInt8StagedGeometry sg) {
    extern __shared__ __align__(16) uint32_t dw_int8_tile[];  // [in_rows][in_cols][cl] words
    const DwInt8StagedTileAt at = dw_int8_staged_tile_at(sg, blockIdx.x);
    const int t = static_cast<int>(threadIdx.x);
    dw_int8_stage_tile(prm, sg, at, dw_int8_tile, t);
    dw_int8_copy_commit();
    // The bias loads while the tile's copies are in flight; then the copies' wait and the barrier.
    dw_int8_staged_thread<I, OUT>(prm, sg, at, dw_int8_tile, t, [] {
        dw_int8_copy_wait<0>();
        __syncthreads();
    });
}

/// Warp `warp`'s channels of a tensor-core block (NOTE [depthwise int8 mma tile]), the planes filled: per channel the
/// A fragments of its k kernel rows, then for each 16-column block the rs steps down the tile, each loading one new
/// B fragment (the others are the step before's, one kernel row on) and issuing k mma.
template <int K, int RS, int QB>
__device__ __forceinline__ void dw_int8_mma_warp(const DwInt8Params& prm, int slab, const uint8_t* in_planes,
                                                 uint8_t* out_planes, int warp, int lane) {
    const DwInt8MmaStatic<K, RS, QB> sh;
    uint32_t sel[3];
    dw_int8_mma_selectors(lane, sel);
    const int c_words = prm.g.c / 4, n = lane / 4;
    for (int cl = warp; cl < 16; cl += kDwInt8MmaThreads / 32) {
        const int c = slab * 16 + cl;
        uint32_t a[K][3];
        DW_INT8_UNROLL
        for (int r = 0; r < K; ++r) {
            uint32_t lo, hi;
            dw_int8_mma_kernel_row<K>(prm.w, c, r, c_words, lo, hi);
            dw_int8_mma_a(lo, hi, sel, a[r]);
        }
        const int32_t bias = prm.bias_i32 ? dw_int8_ldg(prm.bias_i32 + c) : 0;
        const DwInt8Channel ep = dw_int8_channel(prm.chan, c);
        const uint8_t* plane = in_planes + cl * sh.in_plane;
        uint8_t* out_plane = out_planes + cl * sh.out_plane;
        auto walk = [&](auto plain) {
            DW_INT8_UNROLL
            for (int j = 0; j < QB; ++j) {
                uint32_t b[K][2];
                DW_INT8_UNROLL
                for (int r = 0; r + 1 < K; ++r) dw_int8_mma_b(plane, sh, n * RS + r, j, lane, b[r]);
                DW_INT8_UNROLL
                for (int s = 0; s < RS; ++s) {
                    dw_int8_mma_b(plane, sh, s + n * RS + K - 1, j, lane, b[K - 1]);
                    int32_t acc[4] = {bias, bias, bias, bias};
                    DW_INT8_UNROLL
                    for (int r = 0; r < K; ++r) dw_int8_mma(a[r], b[r], acc);
                    dw_int8_mma_put<RS, decltype(plain)::value>(out_plane, sh, s, j, lane, acc, ep);
                    DW_INT8_UNROLL
                    for (int r = 0; r + 1 < K; ++r) b[r][0] = b[r + 1][0], b[r][1] = b[r + 1][1];
                }
            }
        };
        if (dw_int8_plain_clamp(ep))
            walk(std::true_type{});
        else
            walk(std::false_type{});
    }
}

// NOTE [depthwise int8 mma tile]. Two blocks of 256 threads per SM: up to 128 registers.
template <int K, int RS, int QB>
__global__ void __launch_bounds__(kDwInt8MmaThreads, 2)
    dw_int8_mma_kernel(const DwInt8Params prm, const DwInt8MmaGeometry mg) {
    extern __shared__ __align__(16) uint8_t dw_int8_planes[];  // 16 input planes, then 16 output planes
    const DwInt8StagedTileAt at = dw_int8_staged_tile_at(mg, blockIdx.x);
    const int t = static_cast<int>(threadIdx.x);
    using Shape = DwInt8MmaStatic<K, RS, QB>;
    uint8_t* out_planes = dw_int8_planes + 16 * Shape::in_plane;
    dw_int8_mma_stage<Shape::kRounds>(prm, Shape{}, at, dw_int8_planes, t);
    __syncthreads();
    dw_int8_mma_warp<K, RS, QB>(prm, at.slab, dw_int8_planes, out_planes, t / 32, t % 32);
    __syncthreads();
    dw_int8_mma_store(prm, Shape{}, at, out_planes, t);
}

/// Calls f(integral_constant K, integral_constant config index) for p's kernel size and tensor-core config.
template <int I = 0, class F>
void dispatch_mma(const DwInt8Params& p, F&& f) {
    if constexpr (I < kDwInt8MmaConfigCount) {
        constexpr DwInt8Mma m = kDwInt8MmaConfigs[I];
        if (m.rs == p.tile.mma.rs && m.qb == p.tile.mma.qb) {
            const std::integral_constant<int, I> i;
            if (p.g.r == 3) f(std::integral_constant<int, 3>{}, i);
            if (p.g.r == 5) f(std::integral_constant<int, 5>{}, i);
            if (p.g.r == 7) f(std::integral_constant<int, 7>{}, i);
            return;
        }
        dispatch_mma<I + 1>(p, f);
    }
}

/// The tensor-core kernel: its planes may take more than the 48 KiB a launch gets without opting in.
void launch_mma(const DwInt8Params& p, cudaStream_t stream) {
    const DwInt8MmaGeometry mg = depthwise_int8_mma_geometry(p);
    dispatch_mma(p, [&](auto k, auto i) {
        constexpr DwInt8Mma m = kDwInt8MmaConfigs[decltype(i)::value];
        auto kernel = dw_int8_mma_kernel<decltype(k)::value, m.rs, m.qb>;
        if (mg.bytes > (size_t{48} << 10)) allow_shared_memory_optin(kernel, "depthwise int8 mma launch");
        kernel<<<static_cast<unsigned>(mg.blocks), kDwInt8MmaThreads, mg.bytes, stream>>>(p, mg);
    });
}

/// The tensor-core kernel on the host: each block's stage, then each warp's channels with the mma emulated over the
/// lanes' fragments (no rolling of B fragments: each step loads all k), then its stores.
void run_mma_on_host(const DwInt8Params& p) {
    const DwInt8MmaGeometry mg = depthwise_int8_mma_geometry(p);
    std::vector<uint8_t> smem(mg.bytes);
    const int c_words = p.g.c / 4, rs = p.tile.mma.rs;
    dispatch_mma(p, [&](auto k, auto i) {
        constexpr int K = decltype(k)::value;
        constexpr DwInt8Mma m = kDwInt8MmaConfigs[decltype(i)::value];
        for (int64_t b = 0; b < mg.blocks; ++b) {
            const DwInt8StagedTileAt at = dw_int8_staged_tile_at(mg, static_cast<uint32_t>(b));
            for (int t = 0; t < kDwInt8MmaThreads; ++t)
                dw_int8_mma_stage<DwInt8MmaStatic<K, m.rs, m.qb>::kRounds>(p, mg, at, smem.data(), t);
            uint8_t* out_planes = smem.data() + 16 * mg.in_plane;
            for (int cl = 0; cl < 16; ++cl) {
                const int c = at.slab * 16 + cl;
                uint32_t a[K][32][4];  // the mma's four A registers; register 2 is zero
                for (int lane = 0; lane < 32; ++lane) {
                    uint32_t sel[3];
                    dw_int8_mma_selectors(lane, sel);
                    for (int r = 0; r < K; ++r) {
                        uint32_t lo, hi, a3[3];
                        dw_int8_mma_kernel_row<K>(p.w, c, r, c_words, lo, hi);
                        dw_int8_mma_a(lo, hi, sel, a3);
                        a[r][lane][0] = a3[0], a[r][lane][1] = a3[1], a[r][lane][2] = 0u, a[r][lane][3] = a3[2];
                    }
                }
                const int32_t bias = p.bias_i32 ? p.bias_i32[c] : 0;
                const DwInt8Channel ep = dw_int8_channel(p.chan, c);
                for (int j = 0; j < m.qb; ++j) {
                    for (int s = 0; s < rs; ++s) {
                        int32_t acc[32][4];
                        for (auto& lane_acc : acc) lane_acc[0] = lane_acc[1] = lane_acc[2] = lane_acc[3] = bias;
                        for (int r = 0; r < K; ++r) {
                            uint32_t bf[32][2];
                            for (int lane = 0; lane < 32; ++lane)
                                dw_int8_mma_b(smem.data() + cl * mg.in_plane, mg, s + lane / 4 * rs + r, j, lane,
                                              bf[lane]);
                            dw_int8_mma_emulate<32>(a[r], bf, acc);
                        }
                        for (int lane = 0; lane < 32; ++lane) {
                            uint8_t* out_plane = out_planes + cl * mg.out_plane;
                            if (dw_int8_plain_clamp(ep))
                                dw_int8_mma_put<m.rs, true>(out_plane, mg, s, j, lane, acc[lane], ep);
                            else
                                dw_int8_mma_put<m.rs, false>(out_plane, mg, s, j, lane, acc[lane], ep);
                        }
                    }
                }
            }
            for (int t = 0; t < kDwInt8MmaThreads; ++t) dw_int8_mma_store(p, mg, at, out_planes, t);
        }
    });
}

/// Warp `warp` of a channel-mma block (NOTE [depthwise int8 channel mma]): its 16-column block (warp % QB) and first
/// output row, the B registers of its slab's 9 taps and its lanes' channel constants, set up once per block; then per
/// tile, walk() runs its rw output rows, the A registers of the window's three input rows rolling down one row a step.
template <int RW, int QB>
struct DwInt8DiagWarp {
    uint32_t b[3][3][2];
    DwInt8DiagChannels ch;
    int col, p_first;

    __device__ __forceinline__ DwInt8DiagWarp(const DwInt8Params& prm, int slab, int warp, int lane)
        : col(16 * (warp % QB)), p_first(warp / QB * RW) {
        const int c_words = prm.g.c / 4;
        DW_INT8_UNROLL
        for (int r = 0; r < 3; ++r) {
            DW_INT8_UNROLL
            for (int s = 0; s < 3; ++s) dw_int8_diag_b(prm.w, slab, r, s, c_words, lane, b[r][s]);
        }
        ch = dw_int8_diag_channels(prm, slab, lane);
    }

    template <bool kPlain>
    __device__ __forceinline__ void walk_rows(const uint8_t* tile, uint8_t* out, int lane) const {
        const DwInt8DiagStatic<RW, QB> sh;
        uint32_t a[3][3][2];
        DW_INT8_UNROLL
        for (int r = 0; r < 2; ++r) {
            DW_INT8_UNROLL
            for (int s = 0; s < 3; ++s) dw_int8_diag_a(tile, sh, p_first + r, col + s, lane, a[r][s]);
        }
        DW_INT8_UNROLL
        for (int i = 0; i < RW; ++i) {
            const int p = p_first + i;
            DW_INT8_UNROLL
            for (int s = 0; s < 3; ++s) dw_int8_diag_a(tile, sh, p + 2, col + s, lane, a[2][s]);
            // Two chains per half (taps 0-4 from the bias, 5-8 from zero), added at the end: one chain of 9
            // dependent mma per half left the warps waiting on the tensor pipe's latency (Nsight Compute, H100,
            // 2026-12-07: "wait" the first stall reason, issue slots 31% busy).
            int32_t acc[2][4], acc2[2][4];
            const int32_t zero[4] = {0, 0, 0, 0};
            auto tap = [&](int t, int h, int32_t(&c)[4]) { dw_int8_mma16(a[t / 3][t % 3], b[t / 3][t % 3][h], c); };
            DW_INT8_UNROLL
            for (int h = 0; h < 2; ++h) {
                dw_int8_mma16_from(a[0][0], b[0][0][h], ch.acc_start[h], acc[h]);
                dw_int8_mma16_from(a[1][2], b[1][2][h], zero, acc2[h]);
            }
            DW_INT8_UNROLL
            for (int t = 1; t < 5; ++t) {
                DW_INT8_UNROLL
                for (int h = 0; h < 2; ++h) {
                    tap(t, h, acc[h]);
                    if (t + 5 < 9) tap(t + 5, h, acc2[h]);
                }
            }
            DW_INT8_UNROLL
            for (int h = 0; h < 2; ++h) {
                DW_INT8_UNROLL
                for (int v = 0; v < 4; ++v) acc[h][v] = dw_int8_add_wrap(acc[h][v], acc2[h][v]);
            }
            DW_INT8_UNROLL
            for (int h = 0; h < 2; ++h) dw_int8_diag_put<kPlain>(out, sh, p, col, lane, h, acc[h], ch.ep[h]);
            DW_INT8_UNROLL
            for (int r = 0; r < 2; ++r) {
                DW_INT8_UNROLL
                for (int s = 0; s < 3; ++s) a[r][s][0] = a[r + 1][s][0], a[r][s][1] = a[r + 1][s][1];
            }
        }
    }
    __device__ __forceinline__ void walk(const uint8_t* tile, uint8_t* out, int lane) const {
        if (ch.plain)
            walk_rows<true>(tile, out, lane);
        else
            walk_rows<false>(tile, out, lane);
    }
};

// NOTE [depthwise int8 channel mma]. Persistent: block b keeps slab b % slabs and takes that slab's tiles b / slabs,
// + gridDim.x / slabs, ... (the grid is a multiple of the slabs), so its B registers and channel constants are set up
// once, and it copies the next tile into the second input buffer while it computes the current one. Three blocks of
// 256 threads per SM (80 registers).
template <int RW, int QB>
__global__ void __launch_bounds__(kDwInt8MmaThreads, 3)
    dw_int8_diag_kernel(const DwInt8Params prm, const DwInt8MmaGeometry mg) {
    extern __shared__ __align__(16) uint8_t dw_int8_diag_tile[];  // two input tiles, then the output tile
    using Shape = DwInt8DiagStatic<RW, QB>;
    const int t = static_cast<int>(threadIdx.x);
    const auto slabs = static_cast<uint32_t>(mg.slabs);
    const uint32_t slab = blockIdx.x % slabs, per_slab = static_cast<uint32_t>(mg.blocks) / slabs,
                   step = gridDim.x / slabs;
    uint32_t k = blockIdx.x / slabs;
    auto tile_at = [&](uint32_t kk) { return dw_int8_staged_tile_at(mg, slab + slabs * kk); };
    uint8_t* out = dw_int8_diag_tile + 2 * Shape::in_plane;
    const DwInt8DiagWarp<RW, QB> warp(prm, static_cast<int>(slab), t / 32, t % 32);
    if (k < per_slab) dw_int8_diag_stage(prm, Shape{}, tile_at(k), dw_int8_diag_tile, t);
    dw_int8_copy_commit();
    for (int buf = 0; k < per_slab; k += step, buf ^= 1) {
        if (k + step < per_slab)
            dw_int8_diag_stage(prm, Shape{}, tile_at(k + step), dw_int8_diag_tile + (buf ^ 1) * Shape::in_plane, t);
        dw_int8_copy_commit();
        dw_int8_copy_wait<1>();  // this tile's copies; the next tile's stay in flight
        __syncthreads();
        warp.walk(dw_int8_diag_tile + buf * Shape::in_plane, out, t % 32);
        __syncthreads();
        dw_int8_diag_store(prm, Shape{}, tile_at(k), out, t);
    }
}

/// Calls f(integral_constant config index) for p's channel-mma config.
template <int I = 0, class F>
void dispatch_diag(const DwInt8Params& p, F&& f) {
    if constexpr (I < kDwInt8DiagConfigCount) {
        constexpr DwInt8Diag d = kDwInt8DiagConfigs[I];
        if (d.rw == p.tile.diag.rw && d.qb == p.tile.diag.qb) return f(std::integral_constant<int, I>{});
        dispatch_diag<I + 1>(p, f);
    }
}

void launch_diag(const DwInt8Params& p, cudaStream_t stream) {
    const DwInt8MmaGeometry mg = depthwise_int8_mma_geometry(p);
    dispatch_diag(p, [&](auto i) {
        constexpr DwInt8Diag d = kDwInt8DiagConfigs[decltype(i)::value];
        static_assert(DwInt8DiagStatic<d.rw, d.qb>::kShape.bytes <= (size_t{48} << 10), "needs no opt-in");
        auto kernel = dw_int8_diag_kernel<d.rw, d.qb>;
        // As many blocks as fit at once, a whole number per slab (at least one: the kernel steps by grid / slabs),
        // none without a tile.
        const int64_t resident = resident_blocks(kernel, kDwInt8MmaThreads, mg.bytes, "depthwise int8 channel-mma");
        const int64_t blocks_per_slab = std::clamp<int64_t>(resident / mg.slabs, 1, mg.blocks / mg.slabs);
        kernel<<<static_cast<unsigned>(blocks_per_slab * mg.slabs), kDwInt8MmaThreads, mg.bytes, stream>>>(p, mg);
    });
}

/// The channel-mma kernel on the host: each block's copy, then each warp with the mma emulated over its lanes (no
/// rolling: each step loads all three rows), then its stores.
void run_diag_on_host(const DwInt8Params& p) {
    const DwInt8MmaGeometry mg = depthwise_int8_mma_geometry(p);
    std::vector<uint8_t> smem(mg.bytes);
    const int c_words = p.g.c / 4, qb = p.tile.diag.qb, rw = p.tile.diag.rw;
    for (int64_t blk = 0; blk < mg.blocks; ++blk) {
        const DwInt8StagedTileAt at = dw_int8_staged_tile_at(mg, static_cast<uint32_t>(blk));
        for (int t = 0; t < kDwInt8MmaThreads; ++t) dw_int8_diag_stage(p, mg, at, smem.data(), t);
        uint8_t* out = smem.data() + mg.in_plane;
        for (int warp = 0; warp < kDwInt8MmaThreads / 32; ++warp) {
            const int col = 16 * (warp % qb), p_first = warp / qb * rw;
            uint32_t b[3][3][2][32][1];  // [tap][half][lane]: the mma's one B register
            DwInt8DiagChannels ch[32];
            for (int lane = 0; lane < 32; ++lane) {
                for (int r = 0; r < 3; ++r)
                    for (int s = 0; s < 3; ++s) {
                        uint32_t bl[2];
                        dw_int8_diag_b(p.w, at.slab, r, s, c_words, lane, bl);
                        b[r][s][0][lane][0] = bl[0], b[r][s][1][lane][0] = bl[1];
                    }
                ch[lane] = dw_int8_diag_channels(p, at.slab, lane);
            }
            for (int i = 0; i < rw; ++i) {
                const int row = p_first + i;
                int32_t acc[2][32][4];
                for (int h = 0; h < 2; ++h)
                    for (int lane = 0; lane < 32; ++lane) std::copy_n(ch[lane].acc_start[h], 4, acc[h][lane]);
                for (int r = 0; r < 3; ++r)
                    for (int s = 0; s < 3; ++s) {
                        uint32_t a[32][2];
                        for (int lane = 0; lane < 32; ++lane)
                            dw_int8_diag_a(smem.data(), mg, row + r, col + s, lane, a[lane]);
                        for (int h = 0; h < 2; ++h) dw_int8_mma_emulate<16>(a, b[r][s][h], acc[h]);
                    }
                for (int lane = 0; lane < 32; ++lane)
                    for (int h = 0; h < 2; ++h) {
                        if (ch[lane].plain)
                            dw_int8_diag_put<true>(out, mg, row, col, lane, h, acc[h][lane], ch[lane].ep[h]);
                        else
                            dw_int8_diag_put<false>(out, mg, row, col, lane, h, acc[h][lane], ch[lane].ep[h]);
                    }
            }
        }
        for (int t = 0; t < kDwInt8MmaThreads; ++t) dw_int8_diag_store(p, mg, at, out, t);
    }
}

template <DwInt8Out OUT>
__global__ void __launch_bounds__(kDwInt8Threads) dw_int8_generic_kernel(const DwInt8Params prm, int64_t total) {
    for (int64_t e = int64_t{blockIdx.x} * kDwInt8Threads + threadIdx.x; e < total;
         e += int64_t{gridDim.x} * kDwInt8Threads)
        dw_int8_generic_thread<OUT>(prm, e);
}

constexpr int64_t kMaxGenericBlocks = int64_t{1} << 20;

/// Calls f(std::integral_constant<int, I>) for I == p.tile.fast (the instantiation table is kDwInt8FastShapes).
template <int I = 0, class F>
void dispatch_fast(int index, F&& f) {
    if constexpr (I < kDwInt8FastCount) {
        if (index == I) return f(std::integral_constant<int, I>{});
        dispatch_fast<I + 1>(index, f);
    }
}

template <DwInt8Out OUT>
void launch_mode(const DwInt8Params& p, int64_t threads, cudaStream_t stream) {
    if (p.tile.fast < 0) {
        const int64_t blocks = std::min((threads + kDwInt8Threads - 1) / kDwInt8Threads, kMaxGenericBlocks);
        dw_int8_generic_kernel<OUT><<<static_cast<unsigned>(blocks), kDwInt8Threads, 0, stream>>>(p, threads);
        return;
    }
    if (p.tile.mma.rs > 0) {
        launch_mma(p, stream);
        return;
    }
    if (p.tile.diag.rw > 0) {
        launch_diag(p, stream);
        return;
    }
    if (p.tile.stage.cl > 0) {
        const DwInt8StagedGeometry sg = depthwise_int8_staged_geometry(p);
        dispatch_fast(p.tile.fast, [&](auto i) {
            if constexpr (dw_int8_stageable(kDwInt8FastShapes[decltype(i)::value]))
                dw_int8_staged_kernel<decltype(i)::value, OUT>
                    <<<static_cast<unsigned>(sg.blocks), sg.threads, sg.bytes, stream>>>(p, sg);
        });
        return;
    }
    const int64_t blocks = (threads + kDwInt8Threads - 1) / kDwInt8Threads;
    dispatch_fast(p.tile.fast, [&](auto i) {
        constexpr size_t smem = dw_int8_ring_bytes(kDwInt8FastShapes[decltype(i)::value]);
        static_assert(smem <= 48 * 1024, "a ring beyond 48 KiB would need the opt-in attribute");
        dw_int8_fast_kernel<decltype(i)::value, OUT>
            <<<static_cast<unsigned>(blocks), kDwInt8Threads, smem, stream>>>(p, static_cast<int>(threads));
    });
}

/// The staged kernel on the host: each block's copies at once, then its threads one after another.
template <DwInt8Out OUT>
void run_staged_on_host(const DwInt8Params& p) {
    const DwInt8StagedGeometry sg = depthwise_int8_staged_geometry(p);
    std::vector<uint32_t> tile(sg.bytes / 4);
    dispatch_fast(p.tile.fast, [&](auto i) {
        constexpr int kI = decltype(i)::value;
        if constexpr (dw_int8_stageable(kDwInt8FastShapes[kI])) {
            for (int64_t b = 0; b < sg.blocks; ++b) {
                const DwInt8StagedTileAt at = dw_int8_staged_tile_at(sg, static_cast<uint32_t>(b));
                for (int t = 0; t < sg.threads; ++t) dw_int8_stage_tile(p, sg, at, tile.data(), t);
                for (int t = 0; t < sg.threads; ++t) dw_int8_staged_thread<kI, OUT>(p, sg, at, tile.data(), t, [] {});
            }
        }
    });
}

template <DwInt8Out OUT>
void run_mode_on_host(const DwInt8Params& p, int64_t threads) {
    if (p.tile.fast < 0) {
        for (int64_t e = 0; e < threads; ++e) dw_int8_generic_thread<OUT>(p, e);
        return;
    }
    if (p.tile.mma.rs > 0) {
        run_mma_on_host(p);
        return;
    }
    if (p.tile.diag.rw > 0) {
        run_diag_on_host(p);
        return;
    }
    if (p.tile.stage.cl > 0) {
        run_staged_on_host<OUT>(p);
        return;
    }
    dispatch_fast(p.tile.fast, [&](auto i) {
        constexpr int kI = decltype(i)::value;
        std::vector<uint32_t> ring(dw_int8_ring_bytes(kDwInt8FastShapes[kI]) / 4 / kDwInt8Threads + 1);
        for (int t = 0; t < static_cast<int>(threads); ++t) dw_int8_fast_thread<kI, OUT>(p, t, ring.data(), 1);
    });
}

}  // namespace

void depthwise_int8_launch(const DwInt8Params& p, cudaStream_t stream) {
    if (p.tile.band.per_warp > 0) return depthwise_int8_band_launch(p, stream);
    const int64_t threads = depthwise_int8_threads(p);
    if (threads == 0) return;
    if (p.out == DwInt8Out::int8)
        launch_mode<DwInt8Out::int8>(p, threads, stream);
    else
        launch_mode<DwInt8Out::fp16>(p, threads, stream);
}

void depthwise_int8_run_on_host(const DwInt8Params& p) {
    if (p.tile.band.per_warp > 0) return depthwise_int8_band_run_on_host(p);
    const int64_t threads = depthwise_int8_threads(p);
    if (p.out == DwInt8Out::int8)
        run_mode_on_host<DwInt8Out::int8>(p, threads);
    else
        run_mode_on_host<DwInt8Out::fp16>(p, threads);
}

}  // namespace strata::cuda
