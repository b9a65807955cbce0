// wgmma.cuh: the sm_90a warpgroup tensor-core instructions (PTX ISA: wgmma.mma_async and its fence / commit / wait,
// shared-memory matrix descriptors, the generic-to-async proxy fence), wrapped once so that kernels read in tiles.
// Everything here needs sm_90a: include it only from sources compiled for compute_90a (see cmake/cuda.cmake).
//
// NOTE [wgmma 128B-swizzled K-major tile]
// A and B tiles are both K-major ("row": an output pixel of A or an output channel of B) with exactly 64 two-byte
// elements (128 bytes) of K per row, rows 128 bytes apart, tile base 1024-byte aligned. The 128-byte swizzle
// stores the 16-byte chunk j of row r at chunk position j ^ (r % 8) (swizzle_128b_offset); 8 rows form a
// 1024-byte atom and atoms follow each other (stride byte offset 1024). The k-th k16 step of a wgmma reads chunks
// 2k and 2k+1 of each row: its descriptor is the tile's with the start address moved by 32*k bytes; the hardware
// applies the XOR to the final address bits [4:6] ^= [7:9], which is why the tile must be 1024-byte aligned.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>

namespace strata::cuda {

/// Byte offset of 16-byte chunk `chunk` (0-7) of row `row` in a 128B-swizzled tile of 128-byte rows.
__host__ __device__ constexpr uint32_t swizzle_128b_offset(int row, int chunk) {
    return static_cast<uint32_t>(row * 128 + ((chunk ^ (row % 8)) * 16));
}

/// The matrix descriptor of a K-major 128B-swizzled tile starting at shared address `smem_addr` (1024-byte aligned
/// for the tile; a k-step adds 32*k bytes). Fields (PTX ISA, "matrix descriptor"): bits 0-13 start address >> 4,
/// 16-29 leading byte offset >> 4 (unused for swizzled K-major when one k16 step stays inside the 128-byte row:
/// set to 1), 32-45 stride byte offset >> 4 (1024: from one 8-row atom to the next), 49-51 base offset (0: atoms
/// are 1024-byte aligned), 62-63 swizzle mode (1 = 128B).
__device__ __forceinline__ uint64_t wgmma_desc_k_major_128b(uint32_t smem_addr) {
    uint64_t desc = 0;
    desc |= static_cast<uint64_t>((smem_addr >> 4) & 0x3FFF);
    desc |= static_cast<uint64_t>(1) << 16;
    desc |= static_cast<uint64_t>(1024 >> 4) << 32;
    desc |= static_cast<uint64_t>(1) << 62;
    return desc;
}

/// Orders this warpgroup's earlier register and shared-memory accesses before the wgmma.mma_async that follow;
/// every warp of the warpgroup issues it before the first mma of a batch.
__device__ __forceinline__ void wgmma_fence() {
    asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
}

/// Closes the batch of wgmma.mma_async issued since the last commit into one group.
__device__ __forceinline__ void wgmma_commit() {
    asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
}

/// Waits until at most N of this warpgroup's committed groups are still running (their accumulators and shared
/// operands may not be touched until then).
template <int N>
__device__ __forceinline__ void wgmma_wait() {
    asm volatile("wgmma.wait_group.sync.aligned %0;\n" ::"n"(N) : "memory");
}

/// Makes this thread's earlier generic-proxy writes to shared memory (st.shared, cp.async) visible to later
/// async-proxy reads (wgmma operands). Follow with a barrier so that every thread's writes are covered.
__device__ __forceinline__ void fence_proxy_async_shared() {
    asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
}

/// Keeps the compiler from moving accesses of accumulator registers across the asynchronous wgmma window (the asm
/// claims to read and write `r`, so nothing that uses it is reordered around it).
__device__ __forceinline__ void wgmma_fence_operand(float& r) {
    asm volatile("" : "+f"(r)::"memory");
}

/// d[N/2] += A(64 x 16, K-major, desc_a) * B(N x 16, K-major, desc_b)^T for one warpgroup, f32 accumulators. T is
/// __half or __nv_bfloat16; N is 64, 128 or 256 (see wgmma_ops.cuh). Accumulator layout (as mma.sync m16n8 per
/// warp, repeated over n8 blocks): warp w of the warpgroup, lane l, d[4*j + 2*i + c] is row 16*w + l/4 + 8*i,
/// column 8*j + 2*(l%4) + c.
template <class T, int N>
__device__ __forceinline__ void wgmma_m64k16_ss(float (&d)[N / 2], uint64_t desc_a, uint64_t desc_b);

}  // namespace strata::cuda

#include "backends/cuda/kernels/common/wgmma_ops.cuh"
