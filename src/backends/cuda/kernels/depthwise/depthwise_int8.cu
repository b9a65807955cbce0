// depthwise_int8.cu: the int8 depthwise kernels (one per entry of kDwInt8FastShapes and output mode, a staged one per
// stageable entry and output mode, and the generic one), their launch on a stream and the host run of the same thread
// programs (see depthwise_int8.h).
#include <algorithm>
#include <vector>

#include "backends/cuda/kernels/depthwise/depthwise_int8_kernel.cuh"
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
