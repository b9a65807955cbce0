// channel_gather.cu: the fast path of Gather for whole channels (copy.h's ChannelGatherParams), the form ShuffleNet's
// channel shuffle takes after passes/channel_shuffle_gather. The generic gather kernel divides through every dim and
// reads an index per element; here a block reads the indices once into a shared-memory table and each thread writes
// one word of up to 16 bytes: in channels-last order a word packs several channels of one pixel (each read on its
// own from that pixel's row, so a warp's reads stay within a few cache lines), in nchw a word is part of a plane copy.
//
// The table holds int16 channels (ChannelGatherParams' limits keep them below 2^15) so that a thread fetches the V
// entries of its word in one shared-memory load of 2V bytes, consecutive threads reading consecutive bytes.
#include <cstdint>
#include <cstring>

#include "backends/cuda/kernels/data/copy.h"

namespace strata::cuda {
namespace {

// table[j] = the source channel of output channel j, or -1 when its index is out of range (that channel is zeros,
// as in the generic gather). Ends with a barrier: every thread of the block calls it before its grid-stride loop.
__device__ __forceinline__ void load_channel_table(const ChannelGatherParams& p, const void* indices, int16_t* table) {
    for (int j = static_cast<int>(threadIdx.x); j < p.out_channels; j += static_cast<int>(blockDim.x)) {
        int64_t c = p.index64 ? static_cast<const int64_t*>(indices)[j]
                              : static_cast<int64_t>(static_cast<const int32_t*>(indices)[j]);
        if (c < 0) c += p.in_channels;
        table[j] = c >= 0 && c < p.in_channels ? static_cast<int16_t>(c) : int16_t{-1};
    }
    __syncthreads();
}

// The V table entries of one output word, loaded together: 2V bytes at byte 2Vw of a table that starts 16-byte
// aligned (two 16-byte loads for V = 16).
template <int V>
struct alignas(2 * V < 16 ? 2 * V : 16) TableEntries {
    int16_t c[V];
};

// Channels last: output word i is word w = i % row_words of pixel i / row_words, V = sizeof(Word) / sizeof(T)
// channels from w * V on.
template <class T, class Word>
__global__ void __launch_bounds__(kCopyThreads, kChannelGatherBlocksPerSm)
    channel_gather_nhwc_kernel(ChannelGatherParams p, const T* __restrict__ data, const void* __restrict__ indices,
                               Word* __restrict__ out) {
    extern __shared__ int4 smem[];
    int16_t* table = reinterpret_cast<int16_t*>(smem);
    load_channel_table(p, indices, table);
    constexpr int V = static_cast<int>(sizeof(Word) / sizeof(T));
    const TableEntries<V>* entries = reinterpret_cast<const TableEntries<V>*>(table);
    const uint32_t step = gridDim.x * blockDim.x;
    for (uint32_t i = blockIdx.x * blockDim.x + threadIdx.x; i < p.words; i += step) {
        const uint32_t pixel = i / p.row_words, w = i - pixel * p.row_words;
        const T* row = data + static_cast<int64_t>(pixel) * p.in_channels;
        const TableEntries<V> e = entries[w];
        T v[V];
#pragma unroll
        for (int k = 0; k < V; ++k) v[k] = e.c[k] >= 0 ? row[e.c[k]] : T{};
        Word packed;
        memcpy(&packed, v, sizeof(Word));
        out[i] = packed;
    }
}

// nchw: output word i is word k of plane (n, j), read from word k of data plane (n, table[j]).
template <class Word>
__global__ void __launch_bounds__(kCopyThreads, kChannelGatherBlocksPerSm)
    channel_gather_nchw_kernel(ChannelGatherParams p, const Word* __restrict__ data, const void* __restrict__ indices,
                               Word* __restrict__ out) {
    extern __shared__ int4 smem[];
    int16_t* table = reinterpret_cast<int16_t*>(smem);
    load_channel_table(p, indices, table);
    const uint32_t step = gridDim.x * blockDim.x;
    const uint32_t channels = static_cast<uint32_t>(p.out_channels);
    for (uint32_t i = blockIdx.x * blockDim.x + threadIdx.x; i < p.words; i += step) {
        const uint32_t plane = i / p.row_words, k = i - plane * p.row_words;
        const uint32_t n = plane / channels, j = plane - n * channels;
        const int32_t c = table[j];
        const int64_t src_plane = static_cast<int64_t>(n) * p.in_channels + c;
        out[i] = c >= 0 ? data[src_plane * p.row_words + k] : Word{};
    }
}

// Calls f(W{}) with W an unsigned type of `bytes` bytes (8: uint2, 16: uint4).
template <class F>
void by_bytes(int bytes, F&& f) {
    switch (bytes) {
        case 16:
            f(uint4{});
            break;
        case 8:
            f(uint2{});
            break;
        case 4:
            f(uint32_t{});
            break;
        case 2:
            f(uint16_t{});
            break;
        default:
            f(uint8_t{});
            break;
    }
}

}  // namespace

void launch_channel_gather(const ChannelGatherParams& p, const void* data, const void* indices, void* out, int blocks,
                           cudaStream_t stream) {
    if (p.words == 0) return;
    // Whole int4s, so that the table's size keeps the launch's shared memory a multiple of 16 bytes.
    const size_t table_bytes = (static_cast<size_t>(p.out_channels) * sizeof(int16_t) + 15) / 16 * 16;
    by_bytes(p.word, [&](auto word) {
        using Word = decltype(word);
        Word* y = static_cast<Word*>(out);
        if (!p.channels_last) {
            channel_gather_nchw_kernel<Word>
                <<<blocks, kCopyThreads, table_bytes, stream>>>(p, static_cast<const Word*>(data), indices, y);
            return;
        }
        by_bytes(p.elem_size, [&](auto elem) {
            using T = decltype(elem);
            // The host makes word a multiple of elem_size (<= 8); other pairs are never instantiated.
            if constexpr (sizeof(T) <= sizeof(Word) && sizeof(T) <= 8) {
                channel_gather_nhwc_kernel<T, Word>
                    <<<blocks, kCopyThreads, table_bytes, stream>>>(p, static_cast<const T*>(data), indices, y);
            }
        });
    });
}

}  // namespace strata::cuda
