// stem_gemm.cu: the stem convolution's im2col tile policy and launcher (see stem_gemm.h; the kernel is
// narrow_gemm.cuh's).
#include "backends/cuda/kernels/conv/narrow_gemm.cuh"
#include "backends/cuda/kernels/conv/stem_gemm.h"

namespace strata::cuda {

namespace {

// One round: 32 output pixels, lane = pixel, each lane writing its pixel's KS*16 taps as one tile row. The (r, s, c)
// of every column is a compile-time constant (R, S, C are template parameters and the loops unroll), so a tap costs
// a predicated 2-byte load and an add: the row and column offsets and their bounds are worked out once per pixel.
// The loads go straight to the tile (no register prefetch: a 7x7 row is 80 words); the other warps of the SM hide
// their latency.
template <int KS, int R, int S, int C>
struct StemTile {
    static constexpr int kRows = kStemGemmRows;
    static constexpr int kTaps = R * S * C;
    static_assert(kTaps <= KS * 16 && kTaps > KS * 16 - 16, "KS is the tap count in k-steps of 16");
    using Source = StemGather;

    __device__ StemTile(const PointwiseNarrowParams& prm, const Source& src)
        : x(static_cast<const uint16_t*>(prm.x)), pixels(prm.pixels), src(src) {}

    __device__ __forceinline__ void load(int64_t r, int) { round = r; }

    __device__ __forceinline__ void store(uint16_t* xt, int ldx, int lane) const {
        const int64_t pix = round * kRows + lane;
        const bool live = pix < pixels;
        const int64_t pq = int64_t{src.out_h} * src.out_w;
        const int64_t n = pix / pq, rem = pix - n * pq;
        const int p = static_cast<int>(rem / src.out_w), q = static_cast<int>(rem - int64_t{p} * src.out_w);
        const int ih0 = p * src.stride_h - src.pad_h, iw0 = q * src.stride_w - src.pad_w;
        const uint16_t* base = x + n * src.x_stride[0];
        int64_t row_off[R], col_off[S];
        bool row_ok[R], col_ok[S];
#pragma unroll
        for (int r = 0; r < R; ++r) {
            const int ih = ih0 + r * src.dil_h;
            row_ok[r] = live && ih >= 0 && ih < src.in_h;
            row_off[r] = ih * src.x_stride[2];
        }
#pragma unroll
        for (int s = 0; s < S; ++s) {
            const int iw = iw0 + s * src.dil_w;
            col_ok[s] = iw >= 0 && iw < src.in_w;
            col_off[s] = iw * src.x_stride[3];
        }
        auto tap = [&](int kk) -> uint32_t {  // kk is a constant after unrolling
            if (kk >= kTaps) return 0;
            const int r = kk / (S * C), s = (kk / C) % S, c = kk % C;
            return row_ok[r] && col_ok[s] ? uint32_t{__ldg(base + row_off[r] + col_off[s] + c * src.x_stride[1])} : 0u;
        };
        uint16_t* row = xt + lane * ldx;
#pragma unroll
        for (int chunk = 0; chunk < KS * 2; ++chunk) {
            uint32_t w[4];
#pragma unroll
            for (int e = 0; e < 4; ++e) w[e] = tap(chunk * 8 + 2 * e) | (tap(chunk * 8 + 2 * e + 1) << 16);
            *reinterpret_cast<uint4*>(row + chunk * 8) = make_uint4(w[0], w[1], w[2], w[3]);
        }
    }

    const uint16_t* x;
    int64_t pixels;
    StemGather src;
    int64_t round = 0;
};

template <class T, int KS, int R, int S, int C>
__global__ void __launch_bounds__(kNarrowThreads) stem_gemm_kernel(PointwiseNarrowParams prm, StemGather gather) {
    narrow_gemm_body<T, KS, StemTile<KS, R, S, C>>(prm, gather);
}

// NOTE [stem rows]
// The gather above spends R*S*C 2-byte loads per output pixel, one per lane, each an L1 request over a 32-pixel
// span; for the 7x7 stem that is ~150 requests per lane and pixel, and the kernel ran at ~575 GB/s. With stride 2
// and 3 NHWC channels a pixel's taps of filter row r are 3*S consecutive elements of input row r starting 6 elements
// after its left neighbour's: A[q][r][j] = row_r[6 q + j]. So a block stages the R input rows of an output row
// segment once (coalesced 2-byte loads, 128 pixels' worth), and each lane reads its mma A fragments straight
// from them, two elements per 32-bit shared load, with the reduction laid out as R rows of kStemRowWidth = 3S
// rounded up to even (the padding elements read real, finite input and meet zero weights; positions past R rows
// read an extra zero row). Blocks are persistent over (image, output row, segment) tasks, so the weights are
// staged once per block.

constexpr int kRowsSegment = kPwWarps * kPwTileRows;  // output pixels per task: 8 warps x one 16-pixel m-tile

template <int S, int C>
constexpr int row_width() {
    return (S * C + 1) / 2 * 2;
}
template <int S, int C>
constexpr int staged_row_length() {  // elements of one staged input row: 2C per pixel plus the last window
    return 2 * C * kRowsSegment + row_width<S, C>();
}

// The KRSC weights in the rows layout: reduction position k = r * row_width + j, j = s * C + c.
template <int R, int S, int C>
struct RowsWeights {
    const uint16_t* w;
    __device__ __forceinline__ uint32_t pair(int ch, int c0) const {
        constexpr int kWidth = row_width<S, C>();
        const int r = c0 / kWidth, j = c0 - r * kWidth;  // j even: the pair shares its row
        if (r >= R || j >= S * C) return 0;
        const int64_t at = (int64_t{ch} * R + r) * S * C + j;
        return uint32_t{w[at]} | (j + 1 < S * C ? uint32_t{w[at + 1]} << 16 : 0u);
    }
};

template <class T, int KS, int R, int S, int C>
__global__ void __launch_bounds__(kNarrowThreads) stem_rows_kernel(PointwiseNarrowParams prm, StemGather gather) {
    constexpr int kWidth = row_width<S, C>(), kLen = staged_row_length<S, C>();
    static_assert(KS * 16 <= (R + 1) * kWidth, "k-steps past the last row must land in the zero row");
    extern __shared__ __align__(16) unsigned char smem[];
    const int groups = (prm.k + kPwGroupChannels - 1) / kPwGroupChannels;
    uint4* w_frag = reinterpret_cast<uint4*>(smem);
    float* bias_s = reinterpret_cast<float*>(smem + static_cast<size_t>(groups) * kPwGroupChannels * KS * 16 * 2);
    uint16_t* rows = reinterpret_cast<uint16_t*>(bias_s + groups * kPwGroupChannels);  // [R + 1][kLen]
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;

    narrow_stage_weights<KS>(prm, RowsWeights<R, S, C>{static_cast<const uint16_t*>(prm.w)}, groups,
                             reinterpret_cast<uint32_t*>(w_frag), bias_s);
    for (int i = threadIdx.x; i < kLen; i += blockDim.x) rows[R * kLen + i] = 0;
    // This lane's A-fragment offsets into the staged rows: k = ks*16 + 2t (+8) -> row k / width, element k % width.
    int offset[KS][2];
#pragma unroll
    for (int ks = 0; ks < KS; ++ks)
#pragma unroll
        for (int h = 0; h < 2; ++h) {
            const int k = ks * 16 + 2 * (lane % 4) + 8 * h;
            offset[ks][h] = k / kWidth * kLen + k % kWidth;
        }

    const int segments = (gather.out_w + kRowsSegment - 1) / kRowsSegment;
    const int64_t tasks = int64_t{prm.pixels / gather.out_w} * segments;  // images x output rows x segments
    const uint16_t* x = static_cast<const uint16_t*>(prm.x);
    for (int64_t task = blockIdx.x; task < tasks; task += gridDim.x) {
        const int64_t image_row = task / segments;  // n * P + p
        const int q0 = static_cast<int>(task - image_row * segments) * kRowsSegment;
        const int64_t n = image_row / gather.out_h;
        const int p = static_cast<int>(image_row - n * gather.out_h);
        __syncthreads();  // the previous task's rows are read (and, the first time, the weights are staged)
        const int iw0 = q0 * 2 - gather.pad_w;
#pragma unroll
        for (int r = 0; r < R; ++r) {
            const int ih = p * 2 - gather.pad_h + r;
            const bool row_ok = ih >= 0 && ih < gather.in_h;
            const uint16_t* src = x + n * gather.x_stride[0] + int64_t{ih} * gather.x_stride[2];
            for (int e = threadIdx.x; e < kLen; e += blockDim.x) {
                const int col = e / C, c = e - col * C, iw = iw0 + col;
                rows[r * kLen + e] = row_ok && iw >= 0 && iw < gather.in_w
                                         ? __ldg(src + iw * gather.x_stride[3] + c * gather.x_stride[1])
                                         : uint16_t{0};
            }
        }
        __syncthreads();
        const int q_tile = q0 + warp * kPwTileRows;
        if (q_tile >= gather.out_w) continue;  // no barrier follows before the next task's first
        const uint16_t* base = rows + 2 * C * (warp * kPwTileRows + lane / 4);
        uint32_t a[KS][4];
#pragma unroll
        for (int ks = 0; ks < KS; ++ks) {
            a[ks][0] = *reinterpret_cast<const uint32_t*>(base + offset[ks][0]);
            a[ks][1] = *reinterpret_cast<const uint32_t*>(base + 2 * C * 8 + offset[ks][0]);
            a[ks][2] = *reinterpret_cast<const uint32_t*>(base + offset[ks][1]);
            a[ks][3] = *reinterpret_cast<const uint32_t*>(base + 2 * C * 8 + offset[ks][1]);
        }
        const int64_t row_start = image_row * gather.out_w;
        const int64_t pix0 = row_start + q_tile + lane / 4;
        for (int kg = 0; kg < groups; ++kg)
            narrow_group_mma_store<T, KS>(prm, a, w_frag, bias_s, kg, lane, pix0, row_start + gather.out_w);
    }
}

using KernelFn = void (*)(PointwiseNarrowParams, StemGather);

template <class T>
KernelFn kernel_for(int config, int r, int s, int c) {
    if (c != 3 || r != s || (r != 3 && r != 7)) return nullptr;
    if (config == kStemGather) return r == 3 ? stem_gemm_kernel<T, 2, 3, 3, 3> : stem_gemm_kernel<T, 10, 7, 7, 3>;
    if (config == kStemRows) return r == 3 ? stem_rows_kernel<T, 2, 3, 3, 3> : stem_rows_kernel<T, 10, 7, 7, 3>;
    return nullptr;
}

KernelFn kernel_for(DType dtype, int config, int r, int s, int c) {
    if (dtype == DType::f16) return kernel_for<__half>(config, r, s, c);
    if (dtype == DType::bf16) return kernel_for<__nv_bfloat16>(config, r, s, c);
    return nullptr;
}

}  // namespace

size_t stem_gemm_smem_bytes(int config, int r, int s, int c, int k) {
    if (config == kStemRows) {  // weights and bias (no per-warp tiles), then R + 1 staged rows
        const int width = (s * c + 1) / 2 * 2;
        const size_t len = static_cast<size_t>(2 * c * kRowsSegment + width);
        return narrow_gemm_smem_bytes(r * width, k, 0) + (r + 1) * len * 2;
    }
    return narrow_gemm_smem_bytes(r * s * c, k, kStemGemmRows);
}

cudaError_t stem_gemm_prepare(DType dtype, int config, int r, int s, int c, size_t smem_bytes, size_t smem_limit,
                              int* blocks_per_sm) {
    KernelFn fn = kernel_for(dtype, config, r, s, c);
    if (!fn || smem_bytes > smem_limit) return cudaErrorInvalidValue;
    cudaError_t e = cudaFuncSetAttribute(fn, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(smem_limit));
    if (e != cudaSuccess) return e;
    return cudaOccupancyMaxActiveBlocksPerMultiprocessor(blocks_per_sm, fn, kNarrowThreads, smem_bytes);
}

void stem_gemm_launch(const PointwiseNarrowParams& params, const StemGather& gather, DType dtype, int config, int r,
                      int s, int c, int grid, cudaStream_t stream) {
    KernelFn fn = kernel_for(dtype, config, r, s, c);
    if (!fn || params.pixels == 0 || grid <= 0) return;  // the tactic refuses other dtypes and shapes
    fn<<<grid, kNarrowThreads, stem_gemm_smem_bytes(config, r, s, c, params.k), stream>>>(params, gather);
}

}  // namespace strata::cuda
