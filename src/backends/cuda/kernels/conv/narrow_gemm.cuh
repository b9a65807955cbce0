// narrow_gemm.cuh: the tensor-core kernel shared by the convolutions whose reduction is short (at most 64 input
// channels of a 1x1 convolution, cuda.conv.pointwise_narrow; the R*S*C = 27 or 147 taps of a 3-channel stem,
// cuda.conv.stem_gemm): all K output channels of 16 pixels per warp tile, weights staged once per block, fp32
// accumulators, 16-byte stores. What differs is how a warp fills its shared tile of input rows: the Tile policy.
//
// Tile policy (a struct the kernel makes per warp from the params and a Tile::Source, holding copies):
//   static constexpr int kRows;                      pixels per round, a multiple of 16
//   __device__ void load(int64_t round, int lane);    start round `round`'s loads (pixels round * kRows ...)
//   __device__ void store(uint16_t* xt, int ldx, int lane);  write them, kRows rows of KS*16 columns, to the tile
// The kernel calls load for the next round before it multiplies this one, so a policy that keeps its loads in
// registers overlaps them with the mma work.
#pragma once

#include "backends/cuda/kernels/common/activation_fast.cuh"
#include "backends/cuda/kernels/common/dtype.cuh"
#include "backends/cuda/kernels/common/mma.cuh"
#include "backends/cuda/kernels/common/pack.cuh"
#include "backends/cuda/kernels/common/pdl.cuh"
#include "backends/cuda/kernels/conv/pointwise_narrow.h"

namespace strata::cuda {

// NOTE [pointwise narrow tiles]
// Block: 8 warps share the weights, staged once per block in shared memory in mma-fragment order, and the bias;
// blocks then stride over the pixel tiles, so the staging is paid once per block, not per pixel.
// Warp tile: 16 consecutive output pixels x all K channels. The warp loads the 16 input pixels' C channels with
// 16-byte loads (16*C/8 chunks, at most 4 per lane) into its own shared tile, reads them back as mma A fragments
// (ldmatrix, Cp/16 = KS k-steps), and loads the next tile's chunks into registers while it computes this one.
// Channel group: 32 output channels = 4 mma n-tiles of 8. The weight rows are permuted inside the group so that
// the accumulator layout (lane = 4g + t holds columns 2t, 2t+1 of each n-tile, rows g and g+8) puts channels
// 8t .. 8t+7 of the group in lane t: n-tile nt's column n computes channel 8*(n/2) + 2*nt + n%2. So each lane
// ends with 8 consecutive channels of 2 pixels, applies the epilogue and stores 16 bytes per pixel; the 4 lanes of
// a quad write one pixel's 64 contiguous bytes. K not a multiple of 32: the last group computes zeros for the
// missing channels (zero weights) and its lanes past K store nothing.
// Why tensor cores and not fp32 FMAs: on H200 the issue budget at 4 TB/s is ~19 instructions per output element of
// features.2 (C=16, K=96; 180 MB in 45 us = 1.5 G lane-instructions for 77 M outputs). One FFMA per input channel
// per output (16-24 here, 64 at C=64) plus weight loads and the epilogue would make the kernel issue-bound.
// Instructions per output element, per lane per group (16 outputs): 2*KS LDS.128 (weights) + 2 LDS.128 (bias) +
// 16 MOV (accumulators from the bias) + 4*KS HMMA + 8 F2F (pack pairs) + 2 STG.128 + ~12 address/predicate, plus the
// activation (16 for ReLU, 32 for ReLU6, ~5 per value for SiLU: see pw_activation) and the residual (2 LDG.128 +
// ~32) when fused: about 4 per output with ReLU6 and no residual (KS = 1), ~9 with SiLU, +2 with a residual; the
// tile loads add < 1. So the store stream, not issue, is the bound.

constexpr int kNarrowThreads = kPwWarps * 32;

// The weights as the kernel's reduction reads them: the pair of 2-byte weights at reduction positions c0 (even) and
// c0 + 1 of output channel ch, packed low-high, zero past the reduction. This one: contiguous [K][C] rows (C the
// input channels of a 1x1 convolution, or R*S*C of a stem's KRSC weights; an odd C ends inside a pair).
struct ContiguousWeights {
    const uint16_t* w;
    int c;
    __device__ __forceinline__ uint32_t pair(int ch, int c0) const {
        if (c0 >= c) return 0;
        const int64_t at = int64_t{ch} * c + c0;
        return uint32_t{w[at]} | (c0 + 1 < c ? uint32_t{w[at + 1]} << 16 : 0u);
    }
};

// Weights -> shared uint4 [group][ks][half][lane]: lane (g, t)'s B fragments of the four n-tiles of k-step ks,
// half 0 holding n-tiles 0-1 and half 1 n-tiles 2-3 (each n-tile: k rows 2t, 2t+1, then 2t+8, 2t+9, of column g).
// Lane-contiguous uint4 rows make the fragment reads conflict-free. Zero past K (and wherever `weights` says).
template <int KS, class Weights>
__device__ void narrow_stage_weights(const PointwiseNarrowParams& prm, const Weights& weights, int groups,
                                     uint32_t* words, float* bias_s) {
    const int total = groups * KS * 2 * 32 * 4;
    // Unrolled so that several iterations' L2 reads are in flight at once: every block pays this latency once,
    // up front, and a 20 us layer has ~10 of these per thread.
#pragma unroll 4
    for (int i = threadIdx.x; i < total; i += blockDim.x) {
        const int word = i % 4, lane = (i / 4) % 32, half = (i / 128) % 2, ks = (i / 256) % KS, kg = i / (256 * KS);
        const int nt = 2 * half + word / 2, reg = word % 2;
        const int g = lane / 4, t = lane % 4;
        const int ch = kg * kPwGroupChannels + 8 * (g >> 1) + 2 * nt + (g & 1);
        const int c0 = ks * 16 + reg * 8 + 2 * t;
        words[i] = ch < prm.k ? weights.pair(ch, c0) : 0u;
    }
    for (int i = threadIdx.x; i < groups * kPwGroupChannels; i += blockDim.x)
        bias_s[i] = prm.epilogue.bias && i < prm.k ? prm.epilogue.bias[i] : 0.0f;
}

// Channel group kg of the warp's tile: 4 n-tiles x KS k-steps of mma, then lane (g, t) finishes channels
// kg*32 + 8t .. +8 of pixels pix0 (row g) and pix0 + 8 (row g + 8), those below `end` (output pixels are rows of
// Y [pixels][K]; a tile that stops early, at the end of Y or of an image row, stores only its valid rows).
template <class T, int KS>
__device__ __forceinline__ void narrow_group_mma_store(const PointwiseNarrowParams& prm, const uint32_t (&a)[KS][4],
                                                const uint4* w_frag, const float* bias_s, int kg, int lane,
                                                int64_t pix0, int64_t end) {
    const int t = lane % 4, ch = kg * kPwGroupChannels + 8 * t;
    const float4 b_lo = *reinterpret_cast<const float4*>(bias_s + ch);
    const float4 b_hi = *reinterpret_cast<const float4*>(bias_s + ch + 4);
    const float bias[8] = {b_lo.x, b_lo.y, b_lo.z, b_lo.w, b_hi.x, b_hi.y, b_hi.z, b_hi.w};
    float acc[4][4];
#pragma unroll
    for (int nt = 0; nt < 4; ++nt) {
        acc[nt][0] = acc[nt][2] = bias[2 * nt];
        acc[nt][1] = acc[nt][3] = bias[2 * nt + 1];
    }
#pragma unroll
    for (int ks = 0; ks < KS; ++ks) {
        const uint4 lo = w_frag[((kg * KS + ks) * 2 + 0) * 32 + lane];
        const uint4 hi = w_frag[((kg * KS + ks) * 2 + 1) * 32 + lane];
        const uint32_t b[4][2] = {{lo.x, lo.y}, {lo.z, lo.w}, {hi.x, hi.y}, {hi.z, hi.w}};
#pragma unroll
        for (int nt = 0; nt < 4; ++nt) mma_16816<T>(acc[nt], a[ks], b[nt]);
    }
    if (ch >= prm.k) return;  // the last group's lanes past K (after the warp-wide mma)
    // v[r * 8 + j]: row r, channel ch + j, where j = 2nt + e came from n-tile nt's accumulator column 2t + e.
    float v[16];
#pragma unroll
    for (int j = 0; j < 8; ++j) v[j] = acc[j / 2][j % 2], v[8 + j] = acc[j / 2][2 + j % 2];
    const int64_t pix[2] = {pix0, pix0 + 8};
    if (prm.epilogue.residual) {
        const T* z = static_cast<const T*>(prm.epilogue.residual);
#pragma unroll
        for (int r = 0; r < 2; ++r) {
            if (pix[r] >= end) continue;
            // A plain load, not __ldg: should a plan ever run this step in place (Y over Z), each lane still reads
            // its 16 bytes of Z before it writes the same 16 bytes of Y, and no other lane touches them.
            const uint4 zz = *reinterpret_cast<const uint4*>(z + pix[r] * prm.k + ch);
            const uint32_t zw[4] = {zz.x, zz.y, zz.z, zz.w};
#pragma unroll
            for (int i = 0; i < 4; ++i) {
                const float2 f = unpack2<T>(zw[i]);
                v[r * 8 + 2 * i] += f.x, v[r * 8 + 2 * i + 1] += f.y;
            }
        }
    }
    fast_activation<16>(prm.epilogue.act, v);
    T* y = static_cast<T*>(prm.y);
#pragma unroll
    for (int r = 0; r < 2; ++r) {
        if (pix[r] >= end) continue;
        const float* u = v + r * 8;
        const uint4 out =
            make_uint4(pack2<T>(u[0], u[1]), pack2<T>(u[2], u[3]), pack2<T>(u[4], u[5]), pack2<T>(u[6], u[7]));
        *reinterpret_cast<uint4*>(y + pix[r] * prm.k + ch) = out;
    }
}

// The kernel's body; each family's .cu wraps it in a __global__ function of its policy, __launch_bounds__
// (kNarrowThreads), launched with kNarrowThreads threads and narrow_gemm_smem_bytes of dynamic shared memory.
template <class T, int KS, class Tile>
__device__ __forceinline__ void narrow_gemm_body(const PointwiseNarrowParams& prm,
                                                 const typename Tile::Source& src) {
    constexpr int kCp = KS * 16, kLdx = kCp + 8;  // tile row stride: an odd number of 16-byte units
    extern __shared__ __align__(16) unsigned char smem[];
    const int groups = (prm.k + kPwGroupChannels - 1) / kPwGroupChannels;
    uint4* w_frag = reinterpret_cast<uint4*>(smem);
    float* bias_s = reinterpret_cast<float*>(smem + static_cast<size_t>(groups) * kPwGroupChannels * kCp * 2);
    uint16_t* tiles = reinterpret_cast<uint16_t*>(bias_s + groups * kPwGroupChannels);
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    uint16_t* xt = tiles + warp * Tile::kRows * kLdx;

    // Plain: the first round's loads fly while the block stages the weights. PDL (NOTE [programmatic dependent
    // launch]): the weights stage while the kernel before ends, and the loads wait for it.
    const int64_t rounds = (prm.pixels + Tile::kRows - 1) / Tile::kRows;
    const int64_t step = int64_t{gridDim.x} * kPwWarps;
    int64_t round = int64_t{blockIdx.x} * kPwWarps + warp;
    Tile tile(prm, src);
    if (!prm.pdl && round < rounds) tile.load(round, lane);
    narrow_stage_weights<KS>(prm, ContiguousWeights{static_cast<const uint16_t*>(prm.w), prm.c}, groups,
                             reinterpret_cast<uint32_t*>(w_frag), bias_s);
    if (prm.pdl) {
        pdl_wait();
        pdl_launch_dependents();
        if (round < rounds) tile.load(round, lane);
    }
    const int pad = kCp - prm.c;  // columns a policy may leave unwritten: the mma must read zeros there
    for (int i = lane; i < Tile::kRows * pad; i += 32) xt[(i / pad) * kLdx + prm.c + i % pad] = 0;
    __syncthreads();

    for (; round < rounds; round += step) {
        tile.store(xt, kLdx, lane);
        __syncwarp();
        if (round + step < rounds) tile.load(round + step, lane);  // in flight while we compute
#pragma unroll
        for (int sub = 0; sub < Tile::kRows / kPwTileRows; ++sub) {
            uint32_t a[KS][4];
#pragma unroll
            for (int ks = 0; ks < KS; ++ks)
                ldmatrix_x4(a[ks],
                            shared_address(xt + (sub * kPwTileRows + (lane & 15)) * kLdx + ks * 16 + (lane >> 4) * 8));
            const int64_t pix0 = round * Tile::kRows + sub * kPwTileRows + lane / 4;
            for (int kg = 0; kg < groups; ++kg)
                narrow_group_mma_store<T, KS>(prm, a, w_frag, bias_s, kg, lane, pix0, prm.pixels);
        }
        __syncwarp();  // every lane has read the tile before the next round overwrites it
    }
}

}  // namespace strata::cuda
