// copy_kernel.cu: the data-movement kernels of copy.h. Elements are moved as unsigned words of their size: copies do
// not care what the bits mean, so one instantiation per element size serves every dtype.
#include <cstdint>

#include "backends/cuda/kernels/data/copy.h"

namespace strata::cuda {
namespace {

// Copies rows of `words` words; Index is uint32_t when the segment has fewer than 2^32 words (32-bit division is
// several times cheaper than 64-bit, and these copies move only 16 bytes per division).
template <class W, class Index>
__device__ __forceinline__ void copy_rows(const RowCopySegment& s, Index words, Index total) {
    const Index src_pitch = static_cast<Index>(s.src_pitch / static_cast<int64_t>(sizeof(W)));
    const Index dst_pitch = static_cast<Index>(s.dst_pitch / static_cast<int64_t>(sizeof(W)));
    const W* src = reinterpret_cast<const W*>(s.src);
    W* dst = reinterpret_cast<W*>(s.dst);
    const Index step = static_cast<Index>(gridDim.x) * blockDim.x;
    for (Index i = static_cast<Index>(blockIdx.x) * blockDim.x + threadIdx.x; i < total; i += step) {
        Index r = i / words, c = i - r * words;
        dst[static_cast<int64_t>(r) * dst_pitch + c] = src[static_cast<int64_t>(r) * src_pitch + c];
    }
}

template <class W>
__global__ void row_copy_kernel(RowCopyParams p) {
    const RowCopySegment s = p.seg[blockIdx.y];
    const int64_t words = s.row_bytes / static_cast<int64_t>(sizeof(W));
    const int64_t total = s.rows * words;
    // Below 2^31 words, i + step cannot wrap a uint32_t (the grid is far smaller than 2^31 threads).
    constexpr int64_t kLimit = int64_t{1} << 31;
    const int64_t word_bytes = static_cast<int64_t>(sizeof(W));
    if (total < kLimit && s.src_pitch / word_bytes < kLimit && s.dst_pitch / word_bytes < kLimit)
        copy_rows<W, uint32_t>(s, static_cast<uint32_t>(words), static_cast<uint32_t>(total));
    else
        copy_rows<W, int64_t>(s, words, total);
}

// The source coordinate for output coordinate o of dim d, or -1 for the fill value.
__device__ __forceinline__ int64_t source_coord(const StridedCopyParams& p, int d, int64_t o) {
    const int64_t n = p.in_size[d];
    switch (p.mode[d]) {
        case MapMode::linear:
            return o;
        case MapMode::tile:
            return o % n;
        case MapMode::pad_constant: {
            int64_t i = o - p.shift[d];
            return i >= 0 && i < n ? i : -1;
        }
        case MapMode::pad_edge: {
            int64_t i = o - p.shift[d];
            return i < 0 ? 0 : (i >= n ? n - 1 : i);
        }
        case MapMode::pad_reflect: {
            int64_t i = o - p.shift[d];
            if (i >= 0 && i < n) return i;
            if (n == 1) return 0;
            int64_t period = 2 * (n - 1);
            i %= period;
            if (i < 0) i += period;
            return i < n ? i : period - i;
        }
    }
    return -1;
}

template <class T>
__global__ void strided_copy_kernel(StridedCopyParams p, const T* __restrict__ in, T* __restrict__ out) {
    T fill;
    memcpy(&fill, &p.fill, sizeof(T));
    for (uint32_t idx = blockIdx.x * blockDim.x + threadIdx.x; idx < p.total; idx += gridDim.x * blockDim.x) {
        uint32_t rest = idx;
        int64_t src = p.in_base, dst = p.out_base;
        bool is_fill = false;
        for (int d = p.rank - 1; d >= 0; --d) {
            uint32_t o = rest % p.size[d];
            rest /= p.size[d];
            dst += static_cast<int64_t>(o) * p.out_stride[d];
            int64_t i = source_coord(p, d, o);
            is_fill |= i < 0;
            src += i * p.in_stride[d];
        }
        out[dst] = is_fill ? fill : in[src];
    }
}

template <class T>
__global__ void gather_kernel(GatherParams p, const T* __restrict__ data, const void* __restrict__ indices,
                              T* __restrict__ out) {
    for (uint32_t idx = blockIdx.x * blockDim.x + threadIdx.x; idx < p.total; idx += gridDim.x * blockDim.x) {
        uint32_t rest = idx;
        int64_t src = 0, at = 0;
        for (int d = p.rank - 1; d >= 0; --d) {
            uint32_t o = rest % p.size[d];
            rest /= p.size[d];
            src += static_cast<int64_t>(o) * p.data_stride[d];
            at += static_cast<int64_t>(o) * p.index_stride[d];
        }
        int64_t index = p.index64 ? static_cast<const int64_t*>(indices)[at]
                                  : static_cast<int64_t>(static_cast<const int32_t*>(indices)[at]);
        if (index < 0) index += p.axis_size;
        out[idx] = index >= 0 && index < p.axis_size ? data[src + index * p.axis_stride] : T{};
    }
}

template <class T>
__global__ void fill_kernel(T* out, int64_t count, uint64_t bits) {
    T v;
    memcpy(&v, &bits, sizeof(T));
    const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
    for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < count; i += step) out[i] = v;
}

__global__ void write_shape_kernel(ShapeValues v, int64_t* out) {
    if (static_cast<int>(threadIdx.x) < v.count) out[threadIdx.x] = v.value[threadIdx.x];
}

// Calls f(W{}) with W an unsigned word of elem_size bytes.
template <class F>
void by_elem_size(int elem_size, F&& f) {
    switch (elem_size) {
        case 1:
            f(uint8_t{});
            break;
        case 2:
            f(uint16_t{});
            break;
        case 4:
            f(uint32_t{});
            break;
        default:
            f(uint64_t{});
            break;
    }
}

}  // namespace

void launch_row_copy(const RowCopyParams& p, int word, int blocks, cudaStream_t stream) {
    if (p.count == 0) return;
    dim3 grid(blocks, p.count);
    switch (word) {
        case 16:
            row_copy_kernel<uint4><<<grid, kCopyThreads, 0, stream>>>(p);
            break;
        case 8:
            row_copy_kernel<uint64_t><<<grid, kCopyThreads, 0, stream>>>(p);
            break;
        case 4:
            row_copy_kernel<uint32_t><<<grid, kCopyThreads, 0, stream>>>(p);
            break;
        case 2:
            row_copy_kernel<uint16_t><<<grid, kCopyThreads, 0, stream>>>(p);
            break;
        default:
            row_copy_kernel<uint8_t><<<grid, kCopyThreads, 0, stream>>>(p);
            break;
    }
}

void launch_strided_copy(const StridedCopyParams& p, int elem_size, const void* in, void* out, int blocks,
                         cudaStream_t stream) {
    if (p.total == 0) return;
    by_elem_size(elem_size, [&](auto zero) {
        using T = decltype(zero);
        strided_copy_kernel<T><<<blocks, kCopyThreads, 0, stream>>>(p, static_cast<const T*>(in), static_cast<T*>(out));
    });
}

void launch_gather(const GatherParams& p, int elem_size, const void* data, const void* indices, void* out, int blocks,
                   cudaStream_t stream) {
    if (p.total == 0) return;
    by_elem_size(elem_size, [&](auto zero) {
        using T = decltype(zero);
        gather_kernel<T>
            <<<blocks, kCopyThreads, 0, stream>>>(p, static_cast<const T*>(data), indices, static_cast<T*>(out));
    });
}

void launch_fill(void* out, int64_t count, int elem_size, uint64_t bits, int blocks, cudaStream_t stream) {
    if (count == 0) return;
    by_elem_size(elem_size, [&](auto zero) {
        using T = decltype(zero);
        fill_kernel<T><<<blocks, kCopyThreads, 0, stream>>>(static_cast<T*>(out), count, bits);
    });
}

void launch_write_shape(const ShapeValues& v, int64_t* out, cudaStream_t stream) {
    if (v.count == 0) return;
    write_shape_kernel<<<1, 32, 0, stream>>>(v, out);
}

}  // namespace strata::cuda
