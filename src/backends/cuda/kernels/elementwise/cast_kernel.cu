// cast_kernel.cu: the Cast kernels (elementwise.h). The network's edges (fp32 nchw in, fp16/bf16 nhwc inside, and
// back) are float-to-float casts with a layout change: a batched 2-D transpose through a padded shared-memory tile, so
// both the read and the write are coalesced (a short side, as a 3-channel input, takes one thread per output element
// instead). Same-layout float casts are a flat vectorised loop. Every other pair
// (integers, bool) goes through one generic kernel with the reference's rules (backends/reference/cast.cpp): float ->
// integer truncates, NaN gives 0, out-of-range saturates; integer -> narrower integer wraps; bool is 0 or 1.
#include <cstdint>

#include "backends/cuda/kernels/common/dtype.cuh"
#include "backends/cuda/kernels/elementwise/elementwise.h"

namespace strata::cuda {
namespace {

constexpr int kTile = 32;
constexpr int kTileRows = 8;  // each thread of a (32, 8) block moves 4 elements of a tile

template <class In, class Out>
__global__ void cast_flat_kernel(const In* __restrict__ x, Out* __restrict__ y, int64_t n) {
    constexpr int kVec = 4;  // 4 elements: 16 bytes of float, 8 of half; both aligned when the pointers are
    const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
    const int64_t first = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
    const bool aligned = (reinterpret_cast<uintptr_t>(x) % (kVec * sizeof(In))) == 0 &&
                         (reinterpret_cast<uintptr_t>(y) % (kVec * sizeof(Out))) == 0;
    const int64_t vectors = aligned ? n / kVec : 0;
    struct alignas(kVec * sizeof(In)) VIn {
        In v[kVec];
    };
    struct alignas(kVec * sizeof(Out)) VOut {
        Out v[kVec];
    };
    for (int64_t i = first; i < vectors; i += step) {
        VIn a = reinterpret_cast<const VIn*>(x)[i];
        VOut b;
#pragma unroll
        for (int k = 0; k < kVec; ++k) b.v[k] = from_float<Out>(to_float(a.v[k]));
        reinterpret_cast<VOut*>(y)[i] = b;
    }
    for (int64_t i = vectors * kVec + first; i < n; i += step) y[i] = from_float<Out>(to_float(x[i]));
}

// x [batch, rows, cols] -> y [batch, cols, rows]. Block (32, 8) moves one 32x32 tile; the +1 column keeps the
// transposed reads from shared memory free of bank conflicts.
template <class In, class Out>
__global__ void cast_transpose_kernel(const In* __restrict__ x, Out* __restrict__ y, int64_t batch, int64_t rows,
                                      int64_t cols) {
    __shared__ float tile[kTile][kTile + 1];
    const int64_t r0 = static_cast<int64_t>(blockIdx.y) * kTile, c0 = static_cast<int64_t>(blockIdx.x) * kTile;
    for (int64_t n = blockIdx.z; n < batch; n += gridDim.z) {
        const In* src = x + n * rows * cols;
        Out* dst = y + n * rows * cols;
        for (int i = threadIdx.y; i < kTile; i += kTileRows) {
            int64_t r = r0 + i, c = c0 + threadIdx.x;
            if (r < rows && c < cols) tile[i][threadIdx.x] = to_float(src[r * cols + c]);
        }
        __syncthreads();
        for (int i = threadIdx.y; i < kTile; i += kTileRows) {
            int64_t c = c0 + i, r = r0 + threadIdx.x;
            if (r < rows && c < cols) dst[c * rows + r] = from_float<Out>(tile[threadIdx.x][i]);
        }
        __syncthreads();  // the next batch overwrites the tile
    }
}

// The same transpose for a short side (fewer than 32 rows or columns, as the 3 channels of a network input), where
// a 32x32 tile would idle most of its threads: one thread per output element, in output order (coalesced writes;
// a warp's reads fall in a few short runs).
template <class In, class Out>
__global__ void cast_transpose_narrow_kernel(const In* __restrict__ x, Out* __restrict__ y, uint32_t batch,
                                             uint32_t rows, uint32_t cols) {
    const uint32_t total = batch * rows * cols;  // below 2^31: cuda.cast's can_implement checks
    for (uint32_t idx = blockIdx.x * blockDim.x + threadIdx.x; idx < total; idx += gridDim.x * blockDim.x) {
        const uint32_t r = idx % rows, t = idx / rows, c = t % cols, b = t / cols;
        y[idx] = from_float<Out>(to_float(x[(static_cast<int64_t>(b) * rows + r) * cols + c]));
    }
}

// One element as an integer or a floating value, as the reference reads it.
struct Scalar {
    bool is_int;
    int64_t i;
    double f;
};

__device__ Scalar read_scalar(DType t, const char* p) {
    switch (t) {
        case DType::f32:
            return {false, 0, *reinterpret_cast<const float*>(p)};
        case DType::f16:
            return {false, 0, __half2float(*reinterpret_cast<const __half*>(p))};
        case DType::bf16:
            return {false, 0, __bfloat162float(*reinterpret_cast<const __nv_bfloat16*>(p))};
        case DType::i8:
            return {true, *reinterpret_cast<const int8_t*>(p), 0};
        case DType::u8:
            return {true, *reinterpret_cast<const uint8_t*>(p), 0};
        case DType::i32:
            return {true, *reinterpret_cast<const int32_t*>(p), 0};
        case DType::i64:
            return {true, *reinterpret_cast<const int64_t*>(p), 0};
        case DType::boolean:
            return {true, *reinterpret_cast<const uint8_t*>(p) != 0, 0};
    }
    return {true, 0, 0};
}

template <class I>
__device__ I to_integer(const Scalar& s, I lowest, I highest) {
    if (s.is_int) return static_cast<I>(static_cast<uint64_t>(s.i));  // modular, as C++20 and numpy
    if (isnan(s.f)) return 0;
    double t = trunc(s.f);
    if (t <= static_cast<double>(lowest)) return lowest;
    if (t >= static_cast<double>(highest)) return highest;  // for int64, 2^63: the first double past the range
    return static_cast<I>(t);
}

__device__ void write_scalar(DType t, const Scalar& s, char* p) {
    double f = s.is_int ? static_cast<double>(s.i) : s.f;
    switch (t) {
        case DType::f32:
            *reinterpret_cast<float*>(p) = static_cast<float>(f);
            return;
        case DType::f16:
            *reinterpret_cast<__half*>(p) = __float2half_rn(static_cast<float>(f));
            return;
        case DType::bf16:
            *reinterpret_cast<__nv_bfloat16*>(p) = __float2bfloat16_rn(static_cast<float>(f));
            return;
        case DType::i8:
            *reinterpret_cast<int8_t*>(p) = to_integer<int8_t>(s, INT8_MIN, INT8_MAX);
            return;
        case DType::u8:
            *reinterpret_cast<uint8_t*>(p) = to_integer<uint8_t>(s, 0, UINT8_MAX);
            return;
        case DType::i32:
            *reinterpret_cast<int32_t*>(p) = to_integer<int32_t>(s, INT32_MIN, INT32_MAX);
            return;
        case DType::i64:
            *reinterpret_cast<int64_t*>(p) = to_integer<int64_t>(s, INT64_MIN, INT64_MAX);
            return;
        case DType::boolean:
            *reinterpret_cast<uint8_t*>(p) = s.is_int ? s.i != 0 : f != 0.0;
            return;
    }
}

__device__ __forceinline__ int dtype_bytes(DType t) {
    switch (t) {
        case DType::f32:
        case DType::i32:
            return 4;
        case DType::f16:
        case DType::bf16:
            return 2;
        case DType::i64:
            return 8;
        default:
            return 1;
    }
}

__global__ void cast_any_kernel(CastParams p, const char* __restrict__ x, char* __restrict__ y) {
    const DType from = static_cast<DType>(p.from), to = static_cast<DType>(p.to);
    const int in_bytes = dtype_bytes(from), out_bytes = dtype_bytes(to);
    for (uint32_t idx = blockIdx.x * blockDim.x + threadIdx.x; idx < p.total; idx += gridDim.x * blockDim.x) {
        uint32_t rest = idx;
        int64_t src = 0;
        for (int d = p.rank - 1; d >= 0; --d) {
            uint32_t o = rest % p.size[d];
            rest /= p.size[d];
            src += static_cast<int64_t>(o) * p.in_stride[d];
        }
        write_scalar(to, read_scalar(from, x + src * in_bytes), y + static_cast<int64_t>(idx) * out_bytes);
    }
}

// Calls f(In{}, Out{}) for a float dtype pair.
template <class F>
void dispatch_float_pair(DType from, DType to, F&& f) {
    dispatch_float(from, [&](auto in) { dispatch_float(to, [&](auto out) { f(in, out); }); });
}

}  // namespace

void launch_cast_flat(DType from, DType to, const void* x, void* y, int64_t n, int blocks, cudaStream_t stream) {
    if (n == 0) return;
    dispatch_float_pair(from, to, [&](auto in, auto out) {
        using In = decltype(in);
        using Out = decltype(out);
        cast_flat_kernel<In, Out>
            <<<blocks, kElementwiseThreads, 0, stream>>>(static_cast<const In*>(x), static_cast<Out*>(y), n);
    });
}

void launch_cast_transpose(DType from, DType to, const void* x, void* y, int64_t batch, int64_t rows, int64_t cols,
                           int blocks, cudaStream_t stream) {
    if (batch * rows * cols == 0) return;
    const bool narrow = rows < kTile || cols < kTile;
    dim3 grid(static_cast<unsigned>((cols + kTile - 1) / kTile), static_cast<unsigned>((rows + kTile - 1) / kTile),
              static_cast<unsigned>(batch < 65535 ? batch : 65535));
    dispatch_float_pair(from, to, [&](auto in, auto out) {
        using In = decltype(in);
        using Out = decltype(out);
        const In* src = static_cast<const In*>(x);
        Out* dst = static_cast<Out*>(y);
        if (narrow)
            cast_transpose_narrow_kernel<In, Out><<<blocks, kElementwiseThreads, 0, stream>>>(
                src, dst, static_cast<uint32_t>(batch), static_cast<uint32_t>(rows), static_cast<uint32_t>(cols));
        else
            cast_transpose_kernel<In, Out><<<grid, dim3(kTile, kTileRows), 0, stream>>>(src, dst, batch, rows, cols);
    });
}

void launch_cast_any(const CastParams& p, const void* x, void* y, int blocks, cudaStream_t stream) {
    if (p.total == 0) return;
    cast_any_kernel<<<blocks, kElementwiseThreads, 0, stream>>>(p, static_cast<const char*>(x), static_cast<char*>(y));
}

}  // namespace strata::cuda
