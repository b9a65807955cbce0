// mma.cuh: the sm_80+ instructions tensor-core kernels are built from (PTX ISA: cp.async, ldmatrix, mma.sync),
// wrapped once so that kernels read in terms of tiles, not inline assembly. Callers compile these for sm_80 and up.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>
#include <type_traits>

namespace strata::cuda {

/// The 32-bit shared-state-space address of a pointer into shared memory (what cp.async and ldmatrix take).
__device__ __forceinline__ uint32_t shared_address(const void* p) {
    return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}

/// Copies 16 bytes global -> shared without waiting. Only the first `src_bytes` (0 or 16 here) are read; the rest of
/// the 16 are zero-filled, so src_bytes == 0 writes zeros and reads nothing (padding, rows past the end).
__device__ __forceinline__ void cp_async_16(uint32_t dst, const void* src, int src_bytes) {
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(dst), "l"(__cvta_generic_to_global(src)),
                 "r"(src_bytes)
                 : "memory");
}

/// Closes the group of cp.async issued since the last commit.
__device__ __forceinline__ void cp_async_commit() {
    asm volatile("cp.async.commit_group;\n" ::: "memory");
}

/// Waits until at most N committed groups are still in flight (this thread's copies only: follow with a barrier).
template <int N>
__device__ __forceinline__ void cp_async_wait() {
    asm volatile("cp.async.wait_group %0;\n" ::"n"(N) : "memory");
}

/// Four 8x8 b16 matrices from shared memory: lanes 8i..8i+7 give the row addresses of matrix i, and register i of
/// every lane receives matrix i's elements (row lane/4, columns 2*(lane%4) and +1).
__device__ __forceinline__ void ldmatrix_x4(uint32_t (&r)[4], uint32_t address) {
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(address)
                 : "memory");
}

/// d += a * b on a 16x8x16 tile: a row-major 16x16 (4 regs), b column-major 16x8 (2 regs), f32 accumulators.
/// T (__half or __nv_bfloat16) picks the input type.
template <class T>
__device__ __forceinline__ void mma_16816(float (&d)[4], const uint32_t (&a)[4], const uint32_t (&b)[2]) {
    if constexpr (std::is_same_v<T, __half>) {
        asm volatile(
            "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
            "{%0, %1, %2, %3};\n"
            : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
            : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
    } else {
        static_assert(std::is_same_v<T, __nv_bfloat16>, "mma_16816 takes __half or __nv_bfloat16");
        asm volatile(
            "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
            "{%0, %1, %2, %3};\n"
            : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
            : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
    }
}

/// An fp32 value rounded (to nearest, ties away) to tf32, in a 32-bit register as mma's tf32 operands want it.
__device__ __forceinline__ uint32_t f32_to_tf32(uint32_t f32_bits) {
    uint32_t r;
    asm("cvt.rna.tf32.f32 %0, %1;\n" : "=r"(r) : "f"(__uint_as_float(f32_bits)));
    return r;
}

/// d += a * b on a 16x8x8 tile of tf32: a row-major 16x8 (4 regs: (g, t), (g+8, t), (g, t+4), (g+8, t+4) with
/// g = lane/4, t = lane%4), b column-major 8x8 (2 regs: (t, g), (t+4, g)), f32 accumulators laid out as in
/// mma_16816. Both operand tiles span 32 bytes of K, like mma_16816's.
__device__ __forceinline__ void mma_1688_tf32(float (&d)[4], const uint32_t (&a)[4], const uint32_t (&b)[2]) {
    asm volatile(
        "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
        "{%0, %1, %2, %3};\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}

}  // namespace strata::cuda
