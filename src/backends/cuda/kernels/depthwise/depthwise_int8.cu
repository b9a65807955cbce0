// depthwise_int8.cu: the int8 depthwise kernels (one per entry of kDwInt8FastShapes and output mode, a staged one per
// stageable entry and output mode, and the generic one), their launch on a stream and the host run of the same thread
// programs (see depthwise_int8.h).
#include <algorithm>
#include <vector>

#include "backends/cuda/cuda_check.h"
#include "backends/cuda/kernels/depthwise/depthwise_int8_kernel.cuh"
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
    const DwInt8StagedTileAt at = dw_int8_mma_tile_at(mg, blockIdx.x);
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

/// The tensor-core kernel: its planes may take more than the 48 KiB a launch gets without opting in, so the function's
/// limit is the device's opt-in maximum (as launch_async_nhwc does, for the same reason).
void launch_mma(const DwInt8Params& p, cudaStream_t stream) {
    const DwInt8MmaGeometry mg = depthwise_int8_mma_geometry(p);
    dispatch_mma(p, [&](auto k, auto i) {
        constexpr DwInt8Mma m = kDwInt8MmaConfigs[decltype(i)::value];
        auto kernel = dw_int8_mma_kernel<decltype(k)::value, m.rs, m.qb>;
        if (mg.bytes > (size_t{48} << 10)) {
            int device = 0, optin = 0;
            STRATA_CUDA_CHECK(cudaGetDevice(&device), "depthwise int8 mma launch");
            STRATA_CUDA_CHECK(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device),
                              "depthwise int8 mma launch");
            STRATA_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, optin),
                              "depthwise int8 mma launch");
        }
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
            const DwInt8StagedTileAt at = dw_int8_mma_tile_at(mg, static_cast<uint32_t>(b));
            for (int t = 0; t < kDwInt8MmaThreads; ++t)
                dw_int8_mma_stage<DwInt8MmaStatic<K, m.rs, m.qb>::kRounds>(p, mg, at, smem.data(), t);
            uint8_t* out_planes = smem.data() + 16 * mg.in_plane;
            for (int cl = 0; cl < 16; ++cl) {
                const int c = at.slab * 16 + cl;
                uint32_t a[K][32][3];
                for (int lane = 0; lane < 32; ++lane) {
                    uint32_t sel[3];
                    dw_int8_mma_selectors(lane, sel);
                    for (int r = 0; r < K; ++r) {
                        uint32_t lo, hi;
                        dw_int8_mma_kernel_row<K>(p.w, c, r, c_words, lo, hi);
                        dw_int8_mma_a(lo, hi, sel, a[r][lane]);
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
                            dw_int8_mma_emulate(a[r], bf, acc);
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
    const int64_t threads = depthwise_int8_threads(p);
    if (threads == 0) return;
    if (p.out == DwInt8Out::int8)
        launch_mode<DwInt8Out::int8>(p, threads, stream);
    else
        launch_mode<DwInt8Out::fp16>(p, threads, stream);
}

void depthwise_int8_run_on_host(const DwInt8Params& p) {
    const int64_t threads = depthwise_int8_threads(p);
    if (p.out == DwInt8Out::int8)
        run_mode_on_host<DwInt8Out::int8>(p, threads);
    else
        run_mode_on_host<DwInt8Out::fp16>(p, threads);
}

}  // namespace strata::cuda
