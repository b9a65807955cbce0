// separable.cu: the fused depthwise -> pointwise kernel and its launcher (see separable.h).
#include "backends/cuda/kernels/common/activation_fast.cuh"
#include "backends/cuda/kernels/common/mma.cuh"
#include "backends/cuda/kernels/common/pack.cuh"
#include "backends/cuda/kernels/fused/separable.h"

namespace strata::cuda {

// NOTE [separable tiles]
// Block: 64 output pixels (consecutive in N, P, Q order, so a row of the map and the start of the next) x all K
// output channels; 8 warps. Per round of 32 mid channels:
//   depthwise  thread t computes pixel t / 4, channels 8 (t % 4) .. +8 of the round: R*S 16-byte loads of X (its
//              neighbours' windows overlap, so most hit L1) and of the tap-major weights (the same 16 bytes for the
//              8 pixels of a warp), HFMA2 pairs for fp16 (float for bf16), bias and activation in float, rounded to
//              the activation dtype -- what the separate depthwise kernel would have stored -- into the shared A
//              tile [64][32 + 8];
//   weights    the round's [K][32] slice of the pointwise weights into the shared B tile [16*NT][32 + 8], 16-byte
//              loads from L2 (every block reads the same weights);
//   mma        warp w multiplies pixels 16 (w % 4) .. +16 by n-tiles NT (w / 4) .. +NT of 8 output channels,
//              m16n8k16, A and B through ldmatrix (row strides of 80 bytes: 5 x 16, so 8 rows hit 8 bank groups),
//              into fp32 accumulators that live across the rounds.
// Then the epilogue adds the pointwise bias and the residual, applies the activation and stores channel pairs.
// Two barriers per round; no double buffering yet. Work per block: 64 * Cm * R*S depthwise MACs, 64 * Cm * K
// tensor-core MACs, Cm/32 weight slices of K*64 bytes from L2. The L2 traffic of the weights grows with K * Cm per
// 64 pixels: for MobileNetV2's late layers (Cm 576-960, K 96-320) it exceeds the block's DRAM bytes, which is where
// the separate kernels stay ahead; the early layers (K 16-32) are the fused kernel's case.

namespace {

constexpr int kLd = kSepChunk + 8;  // shared row stride of the A and B tiles, in elements

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

// The depthwise outputs of one pixel's 8 channels c .. c+7 (bias and activation applied), packed in T.
template <class T, int R>
__device__ __forceinline__ uint4 depthwise8(const SeparableParams& prm, const T* xn, int ih0, int iw0, int c) {
    DwAccumulator<T> acc;
#pragma unroll
    for (int r = 0; r < R; ++r) {
        const int ih = ih0 + r;
        if (ih < 0 || ih >= prm.h) continue;
#pragma unroll
        for (int s = 0; s < R; ++s) {
            const int iw = iw0 + s;
            if (iw < 0 || iw >= prm.w) continue;
            const uint4 xv = __ldg(reinterpret_cast<const uint4*>(xn + (int64_t{ih} * prm.w + iw) * prm.cm + c));
            const uint4 wv =
                __ldg(reinterpret_cast<const uint4*>(static_cast<const T*>(prm.wd) + (r * R + s) * prm.cm + c));
            acc.fma(xv, wv);
        }
    }
    float v[8];
    acc.result(v);
    if (prm.bd) {
        const float4 b0 = __ldg(reinterpret_cast<const float4*>(prm.bd + c));
        const float4 b1 = __ldg(reinterpret_cast<const float4*>(prm.bd + c + 4));
        v[0] += b0.x, v[1] += b0.y, v[2] += b0.z, v[3] += b0.w, v[4] += b1.x, v[5] += b1.y, v[6] += b1.z, v[7] += b1.w;
    }
    fast_activation<8>(prm.act_d, v);
    return make_uint4(pack2<T>(v[0], v[1]), pack2<T>(v[2], v[3]), pack2<T>(v[4], v[5]), pack2<T>(v[6], v[7]));
}

// The round's [16*NT*2][32] slice of the pointwise weights (zero past K and Cm) into the B tile.
template <int NT>
__device__ __forceinline__ void load_weight_slice(const SeparableParams& prm, int c0, uint16_t* b_tile) {
    constexpr int kRows = 2 * NT * 8;
    const uint16_t* wp = static_cast<const uint16_t*>(prm.wp);
    for (int i = threadIdx.x; i < kRows * (kSepChunk / 8); i += kSepThreads) {
        const int row = i / (kSepChunk / 8), part = i % (kSepChunk / 8), c = c0 + part * 8;
        const uint4 v = row < prm.k && c < prm.cm ? __ldg(reinterpret_cast<const uint4*>(wp + int64_t{row} * prm.cm + c))
                                                  : make_uint4(0, 0, 0, 0);
        *reinterpret_cast<uint4*>(b_tile + row * kLd + part * 8) = v;
    }
}

// Warp's 16 pixels x NT n-tiles += A tile rows x B tile rows, both k-steps of the round. n-tiles past K skip in
// pairs (the condition is the same for the whole warp).
template <class T, int NT>
__device__ __forceinline__ void multiply_round(const uint16_t* a_tile, const uint16_t* b_tile, int m0, int n_tile0,
                                               int k, int lane, float (&acc)[NT][4]) {
#pragma unroll
    for (int ks = 0; ks < kSepChunk / 16; ++ks) {
        uint32_t a[4];
        ldmatrix_x4(a, shared_address(a_tile + (m0 + (lane & 15)) * kLd + ks * 16 + (lane >> 4) * 8));
#pragma unroll
        for (int j = 0; j < NT; j += 2) {
            const int n0 = (n_tile0 + j) * 8;
            if (n0 >= k) break;
            // Matrices: rows n0..n0+7 at k 0-7 and 8-15, then rows n0+8..n0+15 likewise.
            uint32_t b[4];
            ldmatrix_x4(b, shared_address(b_tile + (n0 + (lane & 7) + ((lane >> 4) << 3)) * kLd + ks * 16 +
                                          ((lane >> 3) & 1) * 8));
            const uint32_t b_lo[2] = {b[0], b[1]}, b_hi[2] = {b[2], b[3]};
            mma_16816<T>(acc[j], a, b_lo);
            if (j + 1 < NT) mma_16816<T>(acc[j + 1], a, b_hi);
        }
    }
}

// Bias, residual and activation on the accumulators, two channels per store.
template <class T, int NT>
__device__ __forceinline__ void store_outputs(const SeparableParams& prm, int64_t pix0, int64_t total, int n_tile0,
                                              int lane, const float (&acc)[NT][4]) {
    const EpilogueParams& e = prm.epilogue;
#pragma unroll
    for (int j = 0; j < NT; ++j) {
        const int ch = (n_tile0 + j) * 8 + 2 * (lane & 3);
        if (ch >= prm.k) continue;
        const float b0 = e.bias ? e.bias[ch] : 0.0f, b1 = e.bias ? e.bias[ch + 1] : 0.0f;
#pragma unroll
        for (int half = 0; half < 2; ++half) {
            const int64_t pix = pix0 + (lane >> 2) + 8 * half;
            if (pix >= total) continue;
            float v[2] = {acc[j][2 * half] + b0, acc[j][2 * half + 1] + b1};
            const int64_t at = pix * prm.k + ch;
            if (e.residual) {
                const float2 z = unpack2<T>(*reinterpret_cast<const uint32_t*>(static_cast<const T*>(e.residual) + at));
                v[0] += z.x, v[1] += z.y;
            }
            fast_activation<2>(e.act, v);
            *reinterpret_cast<uint32_t*>(static_cast<T*>(prm.y) + at) = pack2<T>(v[0], v[1]);
        }
    }
}

// Two blocks per SM (at most 128 registers) except for K > 160, whose 80 accumulators per thread need more.
template <class T, int R, int NT>
__global__ void __launch_bounds__(kSepThreads, NT >= 20 ? 1 : 2) separable_kernel(SeparableParams prm) {
    extern __shared__ __align__(16) unsigned char smem[];
    uint16_t* a_tile = reinterpret_cast<uint16_t*>(smem);
    uint16_t* b_tile = a_tile + kSepPixels * kLd;
    const int tid = threadIdx.x, warp = tid / 32, lane = tid % 32;
    const int64_t total = int64_t{prm.n} * prm.p * prm.q;
    const int64_t pix0 = int64_t{blockIdx.x} * kSepPixels;

    // This thread's depthwise pixel and channel group.
    const int my_pixel = tid / 4, my_group = tid % 4;
    const int64_t pix = pix0 + my_pixel;
    const bool live = pix < total;
    const int64_t pq = int64_t{prm.p} * prm.q;
    const int64_t n = live ? pix / pq : 0, rem = live ? pix - n * pq : 0;
    const int op = static_cast<int>(rem / prm.q), oq = static_cast<int>(rem - int64_t{op} * prm.q);
    const int ih0 = op * prm.stride_h - prm.pad_h, iw0 = oq * prm.stride_w - prm.pad_w;
    const T* xn = static_cast<const T*>(prm.x) + n * prm.h * int64_t{prm.w} * prm.cm;

    const int m0 = (warp % 4) * 16, n_tile0 = (warp / 4) * NT;
    float acc[NT][4] = {};
    for (int c0 = 0; c0 < prm.cm; c0 += kSepChunk) {
        load_weight_slice<NT>(prm, c0, b_tile);
        const int c = c0 + my_group * 8;
        const uint4 mid = live && c < prm.cm ? depthwise8<T, R>(prm, xn, ih0, iw0, c) : make_uint4(0, 0, 0, 0);
        *reinterpret_cast<uint4*>(a_tile + my_pixel * kLd + my_group * 8) = mid;
        __syncthreads();
        multiply_round<T, NT>(a_tile, b_tile, m0, n_tile0, prm.k, lane, acc);
        __syncthreads();  // both tiles read before the next round overwrites them
    }
    store_outputs<T, NT>(prm, pix0 + m0, total, n_tile0, lane, acc);
}

// n-tiles of 8 channels per warp (two warps share K), even so that they pair in ldmatrix_x4.
int tiles_per_warp(int k) {
    const int tiles = (k + 7) / 8;
    const int per_warp = (tiles + 1) / 2;
    return (per_warp + 1) / 2 * 2;
}

using KernelFn = void (*)(SeparableParams);

template <class T, int R>
KernelFn kernel_for_tiles(int nt) {
    switch (nt) {
        case 2: return separable_kernel<T, R, 2>;
        case 4: return separable_kernel<T, R, 4>;
        case 6: return separable_kernel<T, R, 6>;
        case 8: return separable_kernel<T, R, 8>;
        case 10: return separable_kernel<T, R, 10>;
        case 20: return separable_kernel<T, R, 20>;
        default: return nullptr;
    }
}

// The compiled tile counts: K up to 32, 64, 96, 128, 160 and 320.
int compiled_tiles(int k) {
    const int nt = tiles_per_warp(k);
    for (int c : {2, 4, 6, 8, 10, 20})
        if (nt <= c) return c;
    return 0;
}

template <class T>
KernelFn kernel_for(int r, int k) {
    const int nt = compiled_tiles(k);
    if (r == 3) return kernel_for_tiles<T, 3>(nt);
    if (r == 5) return kernel_for_tiles<T, 5>(nt);
    return nullptr;
}

KernelFn kernel_for(DType dtype, int r, int k) {
    if (dtype == DType::f16) return kernel_for<__half>(r, k);
    if (dtype == DType::bf16) return kernel_for<__nv_bfloat16>(r, k);
    return nullptr;
}

}  // namespace

size_t separable_smem_bytes(int k) {
    const int rows = 2 * compiled_tiles(k) * 8;
    return (size_t{kSepPixels} + rows) * kLd * 2;
}

void separable_launch(const SeparableParams& params, DType dtype, cudaStream_t stream) {
    KernelFn fn = kernel_for(dtype, params.r, params.k);
    const int64_t total = int64_t{params.n} * params.p * params.q;
    if (!fn || total == 0) return;  // separable_problem refuses the rest
    const int64_t blocks = (total + kSepPixels - 1) / kSepPixels;
    fn<<<static_cast<unsigned>(blocks), kSepThreads, separable_smem_bytes(params.k), stream>>>(params);
}

}  // namespace strata::cuda
