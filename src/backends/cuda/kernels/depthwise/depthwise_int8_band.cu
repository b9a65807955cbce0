// depthwise_int8_band.cu: the NCHW band kernel (NOTE [depthwise int8 nchw band] in depthwise_int8_band.h), its
// launch, and the same warps run on the host.
#include <algorithm>
#include <type_traits>
#include <vector>

#include "backends/cuda/cuda_check.h"
#include "backends/cuda/kernels/depthwise/depthwise_int8_band.cuh"

namespace strata::cuda {

namespace {

/// Calls f(integral_constant K, integral_constant WPL) for p's kernel size and the data words a lane copies (bg: p's
/// band geometry, which the caller has already).
template <class F>
void dispatch_band(const DwInt8Params& p, const DwInt8BandGeometry& bg, F&& f) {
    auto words = [&](auto k) {
        if (bg.words_per_lane <= 8)
            f(k, std::integral_constant<int, 8>{});
        else
            f(k, std::integral_constant<int, kDwInt8BandMaxWords>{});
    };
    if (p.g.r == 3)
        words(std::integral_constant<int, 3>{});
    else
        words(std::integral_constant<int, 5>{});
}

/// Calls f(integral_constant kCols) for Q's column case (DwInt8BandCols): the kernel and the host run pick their walk
/// by it.
template <class F>
__host__ __device__ __forceinline__ void dispatch_band_cols(int q, F&& f) {
    switch (dw_int8_band_cols(q)) {
        case DwInt8BandCols::whole:
            f(std::integral_constant<DwInt8BandCols, DwInt8BandCols::whole>{});
            break;
        case DwInt8BandCols::even:
            f(std::integral_constant<DwInt8BandCols, DwInt8BandCols::even>{});
            break;
        case DwInt8BandCols::odd:
            f(std::integral_constant<DwInt8BandCols, DwInt8BandCols::odd>{});
            break;
    }
}

/// One plane through the mma walk: column tile by column tile, rs steps down each, K mma a step from accumulators that
/// start at the bias. The A rows roll (kernel row r of step s + 1 is kernel row r + 1 of step s) through a ring of K
/// register pairs whose slots are compile-time: the steps go K at a time, step s + j reading kernel row r from slot
/// (j + r) % K and loading its last into slot (j + K - 1) % K, so no register is copied (a rolled array was: ~12
/// moves a step in the sm_90 SASS, IMMA's A operand being a register pair).
template <int K, DwInt8BandCols kCols>
__device__ __forceinline__ void dw_int8_band_walk(const DwInt8Params& prm, const DwInt8BandGeometry& bg,
                                                  const uint8_t* smem_plane, uint8_t* smem_out, const uint32_t (&b)[K],
                                                  int32_t bias, const DwInt8Channel& ep, int lane) {
    // ptxas copies the bias into the accumulators every step (4 moves; four registers it cannot tell equal, or an
    // asm mov each, still left 3-4: it gives the first mma's C and D the same quad).
    const int32_t start[4] = {bias, bias, bias, bias};
    for (int qt = 0; qt < bg.col_tiles; ++qt) {
        DwInt8BandRows rows(smem_plane, bg, bg.rs * (lane / 4), bg.col0 + 8 * qt, lane);
        DwInt8BandOut<kCols> out(smem_out, prm.g, bg, qt, lane);
        uint32_t a[K][2];
        DW_INT8_UNROLL
        for (int r = 0; r + 1 < K; ++r) rows.next(a[r]);
        for (int s = 0; s < bg.rs; s += K) {
            DW_INT8_UNROLL
            for (int j = 0; j < K; ++j) {
                if (s + j >= bg.rs) break;
                rows.next(a[(j + K - 1) % K]);
                int32_t c[4];
                dw_int8_mma16_from(a[j % K], b[0], start, c);
                DW_INT8_UNROLL
                for (int r = 1; r < K; ++r) dw_int8_mma16(a[(j + r) % K], b[r], c);
                out.put(c, ep);
            }
        }
    }
}

/// Blocks an SM must hold, which caps the registers: 6 (24 warps, 80 registers) where that needs no spills in the
/// sm_90 SASS; the prefetching kernel for planes of 9-32 words a lane holds the next plane's words through the walk and
/// spilled at 80 and at 96 registers (96 and 32 bytes of stack), so 4 (it takes 124).
constexpr int dw_int8_band_min_blocks(int wpl, bool prefetch) {
    return prefetch && wpl > 8 ? 4 : 6;
}

/// NOTE [depthwise int8 nchw band]: warp w of the grid multiplies planes w, w + warps, ... (per_warp of them), each
/// copied into the warp's padded plane from registers, its outputs gathered in the warp's output plane and stored
/// whole. kPrefetch: a warp with more planes loads the next one's words while it multiplies this one; with one plane a
/// warp (per_warp 1) those WPL registers would sit unused through the walk (128 registers a thread for a 56 map,
/// 16 warps an SM), so that kernel loads its plane at the top of the loop instead.
template <int K, int WPL, bool kPrefetch>
__global__ void __launch_bounds__(kDwInt8BandWarps * 32, dw_int8_band_min_blocks(WPL, kPrefetch))
    dw_int8_band_kernel(const DwInt8Params prm, const DwInt8BandGeometry bg) {
    extern __shared__ __align__(16) uint8_t dw_int8_band_smem[];
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    const ConvGeometry& g = prm.g;
    uint8_t* smem_plane = dw_int8_band_smem + warp * bg.warp_bytes;
    uint8_t* smem_out = smem_plane + bg.out_offset;
    // The margins and the rows above and below stay zero for every plane: written once.
    for (int i = lane; i < bg.plane_bytes / 4; i += 32) dw_int8_store<uint32_t>(smem_plane + 4 * i, 0u);
    const int64_t first = int64_t{blockIdx.x} * kDwInt8BandWarps + warp;
    if (first >= bg.warps) return;
    const int64_t plane_bytes = int64_t{g.h} * g.w, out_bytes = int64_t{g.p} * g.q;
    const uint32_t sel = dw_int8_band_sel<K>(bg.off, lane);
    const DwInt8BandCopy cp = dw_int8_band_copy(bg, g.w, g.h, g.pad_h, lane);
    // Running pointers and channel: 64-bit products and a 64-bit remainder per plane were ~40 instructions.
    const int8_t* x_next = prm.x + first * plane_bytes;
    uint8_t* y_plane = static_cast<uint8_t*>(prm.y) + first * out_bytes;
    const int64_t x_step = bg.warps * plane_bytes, y_step = bg.warps * out_bytes;
    const int c_step = static_cast<int>(bg.warps % g.c);
    int c = static_cast<int>(first % g.c);
    uint32_t words[WPL];
    if constexpr (kPrefetch) dw_int8_band_fetch<WPL>(x_next, bg, g.w, cp, words);
    for (int64_t plane = first; plane < bg.planes; plane += bg.warps) {
        if constexpr (!kPrefetch) dw_int8_band_fetch<WPL>(x_next, bg, g.w, cp, words);
        // Every lane has read the plane before, and stored its outputs, (and the zeros are written) before the copy.
        __syncwarp();
        dw_int8_band_put_plane<WPL>(smem_plane, bg, cp, words);
        __syncwarp();
        x_next += x_step;
        if (kPrefetch && plane + bg.warps < bg.planes) dw_int8_band_fetch<WPL>(x_next, bg, g.w, cp, words);
        uint32_t b[K];
        DW_INT8_UNROLL
        for (int r = 0; r < K; ++r) b[r] = dw_int8_band_b<K>(prm.w, c, r, (g.c + 3) / 4, sel);
        const DwInt8Channel ep = dw_int8_channel(prm.chan, c);
        const int32_t bias = prm.bias_i32 ? dw_int8_ldg(prm.bias_i32 + c) : 0;
        dispatch_band_cols(g.q, [&](auto cols) {
            dw_int8_band_walk<K, decltype(cols)::value>(prm, bg, smem_plane, smem_out, b, bias, ep, lane);
        });
        __syncwarp();  // the whole output plane is in shared memory
        dw_int8_band_copy_out(smem_out, y_plane, bg, lane);
        y_plane += y_step;
        c += c_step;
        if (c >= g.c) c -= g.c;
    }
}

/// One plane on the host, warp-wide: the same ring of A registers, the mma emulated, the same stores.
template <int K, DwInt8BandCols kCols>
void band_plane_on_host(const DwInt8Params& p, const DwInt8BandGeometry& bg, const uint8_t* smem_plane,
                        uint8_t* smem_out, int64_t plane) {
    const ConvGeometry& g = p.g;
    const int c = static_cast<int>(plane % g.c);
    uint32_t b[K][32][1];
    for (int lane = 0; lane < 32; ++lane)
        for (int r = 0; r < K; ++r)
            b[r][lane][0] = dw_int8_band_b<K>(p.w, c, r, (g.c + 3) / 4, dw_int8_band_sel<K>(bg.off, lane));
    const DwInt8Channel ep = dw_int8_channel(p.chan, c);
    const int32_t bias = p.bias_i32 ? p.bias_i32[c] : 0;
    uint8_t* y_plane = static_cast<uint8_t*>(p.y) + plane * int64_t{g.p} * g.q;
    for (int qt = 0; qt < bg.col_tiles; ++qt) {
        std::vector<DwInt8BandRows> rows;
        std::vector<DwInt8BandOut<kCols>> out;
        for (int lane = 0; lane < 32; ++lane) {
            rows.emplace_back(smem_plane, bg, bg.rs * (lane / 4), bg.col0 + 8 * qt, lane);
            out.emplace_back(smem_out, g, bg, qt, lane);
        }
        uint32_t a[K][32][2];
        for (int lane = 0; lane < 32; ++lane)
            for (int r = 0; r + 1 < K; ++r) rows[lane].next(a[r][lane]);
        for (int s = 0; s < bg.rs; s += K) {
            for (int j = 0; j < K && s + j < bg.rs; ++j) {
                int32_t acc[32][4];
                for (int lane = 0; lane < 32; ++lane) {
                    rows[lane].next(a[(j + K - 1) % K][lane]);
                    std::fill(std::begin(acc[lane]), std::end(acc[lane]), bias);
                }
                for (int r = 0; r < K; ++r) dw_int8_mma_emulate<16>(a[(j + r) % K], b[r], acc);
                for (int lane = 0; lane < 32; ++lane) out[lane].put(acc[lane], ep);
            }
        }
    }
    for (int lane = 0; lane < 32; ++lane) dw_int8_band_copy_out(smem_out, y_plane, bg, lane);
}

}  // namespace

void depthwise_int8_band_launch(const DwInt8Params& p, cudaStream_t stream) {
    const DwInt8BandGeometry bg = depthwise_int8_band_geometry(p);
    dispatch_band(p, bg, [&](auto k, auto wpl) {
        auto kernel = bg.warps < bg.planes ? dw_int8_band_kernel<decltype(k)::value, decltype(wpl)::value, true>
                                           : dw_int8_band_kernel<decltype(k)::value, decltype(wpl)::value, false>;
        if (bg.bytes > (size_t{48} << 10)) {
            STRATA_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                                   static_cast<int>(bg.bytes)),
                              "depthwise int8 band launch");
        }
        kernel<<<static_cast<unsigned>(bg.blocks), kDwInt8BandWarps * 32, bg.bytes, stream>>>(p, bg);
    });
}

void depthwise_int8_band_run_on_host(const DwInt8Params& p) {
    const DwInt8BandGeometry bg = depthwise_int8_band_geometry(p);
    const ConvGeometry& g = p.g;
    std::vector<uint8_t> smem(bg.warp_bytes);
    dispatch_band(p, bg, [&](auto k, auto wpl) {
        constexpr int K = decltype(k)::value, WPL = decltype(wpl)::value;
        for (int64_t warp = 0; warp < bg.warps; ++warp) {
            std::fill(smem.begin(), smem.end(), uint8_t{0});
            for (int64_t plane = warp; plane < bg.planes; plane += bg.warps) {
                for (int lane = 0; lane < 32; ++lane) {
                    uint32_t words[WPL];
                    const DwInt8BandCopy cp = dw_int8_band_copy(bg, g.w, g.h, g.pad_h, lane);
                    dw_int8_band_fetch<WPL>(p.x + plane * int64_t{g.h} * g.w, bg, g.w, cp, words);
                    dw_int8_band_put_plane<WPL>(smem.data(), bg, cp, words);
                }
                // The GPU's output plane holds whatever was there: a byte the walk did not store shows here too.
                std::fill(smem.begin() + bg.out_offset, smem.end(), uint8_t{0xa5});
                dispatch_band_cols(g.q, [&](auto cols) {
                    band_plane_on_host<K, decltype(cols)::value>(p, bg, smem.data(), smem.data() + bg.out_offset,
                                                                 plane);
                });
            }
        }
    });
}

}  // namespace strata::cuda
