// tma.cuh: the sm_90 instructions of a tensor-memory-accelerator copy (PTX ISA: mbarrier, cp.async.bulk.tensor),
// wrapped once so that kernels read in terms of a box landing in shared memory, not inline assembly. Callers compile
// these for sm_90 and up; the CUtensorMap is encoded on the host and passed as a __grid_constant__ parameter.
#pragma once

#include <cuda.h>

#include <cstdint>

namespace strata::cuda {

/// Where an mbarrier placed after `bytes` of shared memory starts: the next 8-byte boundary (host and device agree).
__host__ __device__ constexpr uint32_t mbarrier_offset(size_t bytes) {
    return static_cast<uint32_t>((bytes + 7) / 8 * 8);
}

__device__ __forceinline__ void mbarrier_init(uint32_t bar, uint32_t count) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(bar), "r"(count) : "memory");
    // The initialisation visible to the tensor copy's (async proxy) completion.
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
}

__device__ __forceinline__ void mbarrier_expect_bytes(uint32_t bar, uint32_t bytes) {
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(bar), "r"(bytes) : "memory");
}

__device__ __forceinline__ void mbarrier_wait(uint32_t bar, uint32_t phase) {
    uint32_t done = 0;
    while (!done)
        asm volatile(
            "{\n .reg .pred p;\n mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n selp.u32 %0, 1, 0, p;\n}"
            : "=r"(done)
            : "r"(bar), "r"(phase)
            : "memory");
}

/// The box of `map` at (c, w, h, n) into shared memory at `dst`; its bytes complete on the mbarrier `bar`.
__device__ __forceinline__ void tma_load_box(uint32_t dst, const CUtensorMap* map, int c, int w, int h, int n,
                                             uint32_t bar) {
    asm volatile(
        "cp.async.bulk.tensor.4d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3, %4, "
        "%5}], [%6];" ::"r"(dst),
        "l"(reinterpret_cast<uint64_t>(map)), "r"(c), "r"(w), "r"(h), "r"(n), "r"(bar)
        : "memory");
}

}  // namespace strata::cuda
