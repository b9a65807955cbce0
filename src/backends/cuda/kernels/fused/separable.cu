// separable.cu: the fused depthwise -> pointwise kernel and its launcher (see separable.h).
#include "backends/cuda/kernels/common/activation_fast.cuh"
#include "backends/cuda/kernels/common/mma.cuh"
#include "backends/cuda/kernels/common/pack.cuh"
#include "backends/cuda/kernels/fused/separable.h"

namespace strata::cuda {

// NOTE [separable tiles]
// Block: an 8 x 16 tile of output pixels of one image x all K (<= 64) output channels; 8 warps, warp w owns output
// row w of the tile (16 pixels, one mma m-tile) and every n-tile of K. Rounds of 32 mid channels, pipelined one
// round ahead with cp.async:
//   loads      the round's input tile ((8-1)*stride + R rows x (16-1)*stride + R columns x 32 channels, zeros outside
//              the image: the halo rows and columns are re-read from L2 by the neighbouring blocks, not from DRAM)
//              and its [K][32] slice of the pointwise weights, into the other half of two double buffers, while
//              this round computes;
//   dw weights the round's [32][R*R] slice of the depthwise filter, transposed to tap-major [R*R][32];
//   depthwise  thread t takes channels 8 (t % 4) .. +8 of output column (t / 4) % 16 in rows 2 (t / 64) and +1:
//              each input row of the pair's window is read once from shared memory (16-byte reads, 80-byte position
//              stride so that stride-2 reads spread over the banks) and multiplied into both rows (HFMA2 pairs for
//              fp16, float for bf16); bias and activation in float, rounded to the activation dtype -- what the
//              separate depthwise kernel stores -- into the A tile [128][32 + 8];
//   mma        each warp: its 16 pixels x K, m16n8k16 over the round's two k-steps, A and B through ldmatrix, fp32
//              accumulators held across the rounds.
// Then bias, residual and activation, two channels per store. Two barriers per round. The first version (one
// flat 64-pixel tile per block, no pipelining, loads from global memory in one dependent burst) was latency-bound
// at 1.3-6.5x the separate kernels' time (bench/RESULTS.md). K is limited to 64 because the weight slices' L2
// traffic grows with K * Cm per tile and the accumulators with K: the late MobileNet layers, where the separate
// kernels win anyway.

namespace {

constexpr int kTileH = 8, kTileW = 16;
constexpr int kTilePixels = kTileH * kTileW;
constexpr int kLd = kSepChunk + 8;  // row stride, in elements, of the A and B tiles and of an input-tile position

template <int R, int STRIDE>
struct InTile {
    static constexpr int kRows = (kTileH - 1) * STRIDE + R;
    static constexpr int kCols = (kTileW - 1) * STRIDE + R;
    static constexpr int kElems = kRows * kCols * kLd;
};

// Shared memory: two input tiles, two pointwise weight slices [8 NT][kLd], the A tile [128][kLd], two depthwise
// weight slices [R*R][32] (tap-major); 2-byte elements.
template <int R, int STRIDE, int NT>
constexpr size_t smem_bytes() {
    return size_t{2} * (2 * InTile<R, STRIDE>::kElems + 2 * NT * 8 * kLd + kTilePixels * kLd + 2 * R * R * kSepChunk);
}

template <class T>
struct DwAccumulator;

// fp16: HFMA2 on pairs (the separate depthwise kernel's arithmetic); the R*S products of one output stay in fp16,
// which the tolerance of an fp16 network allows and which halves the instruction count of the depthwise part.
template <>
struct DwAccumulator<__half> {
    __half2 acc[4];
    __device__ __forceinline__ DwAccumulator() {
#pragma unroll
        for (int i = 0; i < 4; ++i) acc[i] = __float2half2_rn(0.0f);
    }
    __device__ __forceinline__ void fma(const uint4& x, const uint4& w) {
        const uint32_t xs[4] = {x.x, x.y, x.z, x.w}, ws[4] = {w.x, w.y, w.z, w.w};
#pragma unroll
        for (int i = 0; i < 4; ++i) {
            __half2 a, b;
            memcpy(&a, &xs[i], 4);
            memcpy(&b, &ws[i], 4);
            acc[i] = __hfma2(a, b, acc[i]);
        }
    }
    __device__ __forceinline__ void result(float (&v)[8]) const {
#pragma unroll
        for (int i = 0; i < 4; ++i) {
            const float2 f = __half22float2(acc[i]);
            v[2 * i] = f.x, v[2 * i + 1] = f.y;
        }
    }
};

// bf16: float accumulation (bf16's 8-bit significand would lose the sum).
template <>
struct DwAccumulator<__nv_bfloat16> {
    float acc[8] = {};
    __device__ __forceinline__ void fma(const uint4& x, const uint4& w) {
        const uint32_t xs[4] = {x.x, x.y, x.z, x.w}, ws[4] = {w.x, w.y, w.z, w.w};
#pragma unroll
        for (int i = 0; i < 4; ++i) {
            const float2 a = unpack2<__nv_bfloat16>(xs[i]), b = unpack2<__nv_bfloat16>(ws[i]);
            acc[2 * i] = fmaf(a.x, b.x, acc[2 * i]);
            acc[2 * i + 1] = fmaf(a.y, b.y, acc[2 * i + 1]);
        }
    }
    __device__ __forceinline__ void result(float (&v)[8]) const {
#pragma unroll
        for (int i = 0; i < 8; ++i) v[i] = acc[i];
    }
};

// The block's image and the first output row and column of its tile.
struct TileOrigin {
    int n, oh0, ow0;
};

__device__ __forceinline__ TileOrigin tile_origin(const SeparableParams& prm) {
    const int tiles_w = (prm.q + kTileW - 1) / kTileW, tiles_h = (prm.p + kTileH - 1) / kTileH;
    const int b = static_cast<int>(blockIdx.x);
    return {b / (tiles_w * tiles_h), (b / tiles_w) % tiles_h * kTileH, b % tiles_w * kTileW};
}

// Starts the copies of round `c0`'s input tile and weight slice (16-byte cp.async, zero-filled outside the image,
// past Cm and past K) and commits them as one group.
template <int R, int STRIDE, int NT>
__device__ __forceinline__ void load_round(const SeparableParams& prm, const TileOrigin& o, int c0, uint16_t* in_tile,
                                           uint16_t* b_tile) {
    using In = InTile<R, STRIDE>;
    const uint16_t* x = static_cast<const uint16_t*>(prm.x);
    const int ih0 = o.oh0 * STRIDE - prm.pad_h, iw0 = o.ow0 * STRIDE - prm.pad_w;
    const int64_t image = int64_t{o.n} * prm.h * prm.w;
    for (int i = threadIdx.x; i < In::kRows * In::kCols * 4; i += kSepThreads) {
        const int pos = i >> 2, part = i & 3;
        const int row = pos / In::kCols, col = pos - row * In::kCols;
        const int ih = ih0 + row, iw = iw0 + col, c = c0 + part * 8;
        const bool ok = ih >= 0 && ih < prm.h && iw >= 0 && iw < prm.w && c < prm.cm;
        const uint16_t* src = ok ? x + (image + int64_t{ih} * prm.w + iw) * prm.cm + c : x;
        cp_async_16(shared_address(in_tile + pos * kLd + part * 8), src, ok ? 16 : 0);
    }
    const uint16_t* wp = static_cast<const uint16_t*>(prm.wp);
    for (int i = threadIdx.x; i < NT * 8 * 4; i += kSepThreads) {
        const int row = i >> 2, part = i & 3, c = c0 + part * 8;
        const bool ok = row < prm.k && c < prm.cm;
        const uint16_t* src = ok ? wp + int64_t{row} * prm.cm + c : wp;
        cp_async_16(shared_address(b_tile + row * kLd + part * 8), src, ok ? 16 : 0);
    }
    cp_async_commit();
}

// The round's depthwise weights, [Cm][R*R] in memory (the KRSC form of a depthwise filter), into a tap-major slice
// [R*R][32] so that a thread reads its 8 channels of one tap as 16 bytes. Plain loads and stores: the barrier that
// opens the round makes them visible.
template <int R>
__device__ __forceinline__ void stage_depthwise_weights(const SeparableParams& prm, int c0, uint16_t* wd_tile) {
    const uint16_t* wd = static_cast<const uint16_t*>(prm.wd);
    for (int i = threadIdx.x; i < kSepChunk * R * R; i += kSepThreads) {
        const int c = i / (R * R), tap = i - c * (R * R);
        wd_tile[tap * kSepChunk + c] = c0 + c < prm.cm ? __ldg(wd + int64_t{c0 + c} * (R * R) + tap) : uint16_t{0};
    }
}

// The round's depthwise outputs for this thread's two pixels (rows row0, row0 + 1 of column col) and 8 channels,
// into the A tile; zeros for channels past Cm and pixels past P or Q (their rows of A multiply into outputs that
// are never stored).
template <class T, int R, int STRIDE>
__device__ __forceinline__ void depthwise_round(const SeparableParams& prm, const TileOrigin& o, int c0,
                                                const uint16_t* in_tile, const uint16_t* wd_tile, uint16_t* a_tile) {
    using In = InTile<R, STRIDE>;
    const int cg = threadIdx.x & 3, col = (threadIdx.x >> 2) & (kTileW - 1), row0 = (threadIdx.x >> 6) * 2;
    const int c = c0 + cg * 8;
    const bool channels = c < prm.cm;
    DwAccumulator<T> acc[2];
    if (channels) {
        auto tap = [&](int r, int s) {
            return *reinterpret_cast<const uint4*>(wd_tile + (r * R + s) * kSepChunk + cg * 8);
        };
        // Input row i of the pair's windows feeds output row 0 with filter row i and output row 1 with i - STRIDE.
#pragma unroll
        for (int i = 0; i < STRIDE + R; ++i) {
            const uint16_t* in_row = in_tile + ((row0 * STRIDE + i) * In::kCols + col * STRIDE) * kLd + cg * 8;
#pragma unroll
            for (int s = 0; s < R; ++s) {
                const uint4 xv = *reinterpret_cast<const uint4*>(in_row + s * kLd);
                if (i < R) acc[0].fma(xv, tap(i, s));
                if (i >= STRIDE && i - STRIDE < R) acc[1].fma(xv, tap(i - STRIDE, s));
            }
        }
    }
    float4 b_lo = make_float4(0, 0, 0, 0), b_hi = b_lo;
    if (channels && prm.bd) {
        b_lo = __ldg(reinterpret_cast<const float4*>(prm.bd + c));
        b_hi = __ldg(reinterpret_cast<const float4*>(prm.bd + c + 4));
    }
#pragma unroll
    for (int j = 0; j < 2; ++j) {
        const int orow = row0 + j;
        uint4 out = make_uint4(0, 0, 0, 0);
        if (channels && o.oh0 + orow < prm.p && o.ow0 + col < prm.q) {
            float v[8];
            acc[j].result(v);
            v[0] += b_lo.x, v[1] += b_lo.y, v[2] += b_lo.z, v[3] += b_lo.w;
            v[4] += b_hi.x, v[5] += b_hi.y, v[6] += b_hi.z, v[7] += b_hi.w;
            fast_activation<8>(prm.act_d, v);
            out = make_uint4(pack2<T>(v[0], v[1]), pack2<T>(v[2], v[3]), pack2<T>(v[4], v[5]), pack2<T>(v[6], v[7]));
        }
        *reinterpret_cast<uint4*>(a_tile + (orow * kTileW + col) * kLd + cg * 8) = out;
    }
}

// Warp's 16 pixels x NT n-tiles += its A rows x the round's weight slice, both k-steps. n-tile pairs past K skip
// (the condition is the same for the whole warp).
template <class T, int NT>
__device__ __forceinline__ void pointwise_round(const uint16_t* a_tile, const uint16_t* b_tile, int warp, int lane,
                                                int k, float (&acc)[NT][4]) {
#pragma unroll
    for (int ks = 0; ks < kSepChunk / 16; ++ks) {
        uint32_t a[4];
        ldmatrix_x4(a, shared_address(a_tile + (warp * 16 + (lane & 15)) * kLd + ks * 16 + (lane >> 4) * 8));
#pragma unroll
        for (int j = 0; j < NT; j += 2) {
            if (j * 8 >= k) break;
            // Matrices: weight rows j*8 .. +7 at k 0-7 and 8-15 of the step, then rows j*8+8 .. +15 likewise.
            uint32_t b[4];
            ldmatrix_x4(b, shared_address(b_tile + (j * 8 + (lane & 7) + ((lane >> 4) << 3)) * kLd + ks * 16 +
                                          ((lane >> 3) & 1) * 8));
            const uint32_t b_lo[2] = {b[0], b[1]}, b_hi[2] = {b[2], b[3]};
            mma_16816<T>(acc[j], a, b_lo);
            mma_16816<T>(acc[j + 1], a, b_hi);
        }
    }
}

// Bias, residual and activation on the warp's accumulators (output row warp of the tile), two channels per store.
template <class T, int NT>
__device__ __forceinline__ void store_outputs(const SeparableParams& prm, const TileOrigin& o, int warp, int lane,
                                              const float (&acc)[NT][4]) {
    const int oh = o.oh0 + warp;
    if (oh >= prm.p) return;
    const EpilogueParams& e = prm.epilogue;
#pragma unroll
    for (int j = 0; j < NT; ++j) {
        const int ch = j * 8 + 2 * (lane & 3);
        if (ch >= prm.k) continue;
        const float b0 = e.bias ? e.bias[ch] : 0.0f, b1 = e.bias ? e.bias[ch + 1] : 0.0f;
#pragma unroll
        for (int half = 0; half < 2; ++half) {
            const int ow = o.ow0 + (lane >> 2) + 8 * half;
            if (ow >= prm.q) continue;
            float v[2] = {acc[j][2 * half] + b0, acc[j][2 * half + 1] + b1};
            const int64_t at = ((int64_t{o.n} * prm.p + oh) * prm.q + ow) * prm.k + ch;
            if (e.residual) {
                const float2 z = unpack2<T>(*reinterpret_cast<const uint32_t*>(static_cast<const T*>(e.residual) + at));
                v[0] += z.x, v[1] += z.y;
            }
            fast_activation<2>(e.act, v);
            *reinterpret_cast<uint32_t*>(static_cast<T*>(prm.y) + at) = pack2<T>(v[0], v[1]);
        }
    }
}

template <class T, int R, int STRIDE, int NT>
__global__ void __launch_bounds__(kSepThreads, 2) separable_kernel(SeparableParams prm) {
    using In = InTile<R, STRIDE>;
    extern __shared__ __align__(16) unsigned char smem[];
    uint16_t* in_tiles = reinterpret_cast<uint16_t*>(smem);  // [2][In::kElems]
    uint16_t* b_tiles = in_tiles + 2 * In::kElems;            // [2][NT * 8][kLd]
    uint16_t* a_tile = b_tiles + 2 * NT * 8 * kLd;            // [kTilePixels][kLd]
    uint16_t* wd_tiles = a_tile + kTilePixels * kLd;          // [2][R * R][kSepChunk]
    const TileOrigin o = tile_origin(prm);
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const int rounds = (prm.cm + kSepChunk - 1) / kSepChunk;
    float acc[NT][4] = {};
    load_round<R, STRIDE, NT>(prm, o, 0, in_tiles, b_tiles);
    stage_depthwise_weights<R>(prm, 0, wd_tiles);
    for (int r = 0; r < rounds; ++r) {
        const int buf = r & 1;
        cp_async_wait<0>();
        __syncthreads();  // round r's tiles are in; every warp is done with round r-1 (the A tile, the other buffers)
        if (r + 1 < rounds) {
            load_round<R, STRIDE, NT>(prm, o, (r + 1) * kSepChunk, in_tiles + (buf ^ 1) * In::kElems,
                                      b_tiles + (buf ^ 1) * NT * 8 * kLd);
            stage_depthwise_weights<R>(prm, (r + 1) * kSepChunk, wd_tiles + (buf ^ 1) * R * R * kSepChunk);
        }
        depthwise_round<T, R, STRIDE>(prm, o, r * kSepChunk, in_tiles + buf * In::kElems,
                                      wd_tiles + buf * R * R * kSepChunk, a_tile);
        __syncthreads();  // the A tile is complete
        pointwise_round<T, NT>(a_tile, b_tiles + buf * NT * 8 * kLd, warp, lane, prm.k, acc);
    }
    store_outputs<T, NT>(prm, o, warp, lane, acc);
}

// n-tiles of 8 output channels the kernel is compiled for: K up to 16, 32 and 64.
int compiled_tiles(int k) {
    return k <= 16 ? 2 : k <= 32 ? 4 : k <= kSepMaxOut ? 8 : 0;
}

using KernelFn = void (*)(SeparableParams);

struct KernelChoice {
    KernelFn fn = nullptr;
    size_t smem = 0;
};

template <class T, int R, int STRIDE>
KernelChoice choose_tiles(int nt) {
    switch (nt) {
        case 2: return {separable_kernel<T, R, STRIDE, 2>, smem_bytes<R, STRIDE, 2>()};
        case 4: return {separable_kernel<T, R, STRIDE, 4>, smem_bytes<R, STRIDE, 4>()};
        case 8: return {separable_kernel<T, R, STRIDE, 8>, smem_bytes<R, STRIDE, 8>()};
        default: return {};
    }
}

template <class T>
KernelChoice choose(int r, int stride, int k) {
    const int nt = compiled_tiles(k);
    if (r == 3 && stride == 1) return choose_tiles<T, 3, 1>(nt);
    if (r == 3 && stride == 2) return choose_tiles<T, 3, 2>(nt);
    if (r == 5 && stride == 1) return choose_tiles<T, 5, 1>(nt);
    if (r == 5 && stride == 2) return choose_tiles<T, 5, 2>(nt);
    return {};
}

KernelChoice choose(DType dtype, int r, int stride, int k) {
    if (dtype == DType::f16) return choose<__half>(r, stride, k);
    if (dtype == DType::bf16) return choose<__nv_bfloat16>(r, stride, k);
    return {};
}

}  // namespace

size_t separable_smem_bytes(DType dtype, int r, int stride, int k) {
    return choose(dtype, r, stride, k).smem;
}

cudaError_t separable_prepare(DType dtype, int r, int stride, int k) {
    const KernelChoice kc = choose(dtype, r, stride, k);
    if (!kc.fn) return cudaErrorInvalidValue;
    return cudaFuncSetAttribute(kc.fn, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(kc.smem));
}

void separable_launch(const SeparableParams& params, DType dtype, cudaStream_t stream) {
    const KernelChoice kc = choose(dtype, params.r, params.stride_h, params.k);
    if (!kc.fn || params.n * params.p * params.q == 0) return;  // separable_problem refuses the rest
    const int64_t tiles = int64_t{params.n} * ((params.p + kTileH - 1) / kTileH) * ((params.q + kTileW - 1) / kTileW);
    kc.fn<<<static_cast<unsigned>(tiles), kSepThreads, kc.smem, stream>>>(params);
}

}  // namespace strata::cuda
