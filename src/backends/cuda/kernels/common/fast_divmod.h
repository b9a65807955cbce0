// fast_divmod.h: division of a 32-bit unsigned value by a divisor fixed at launch, by a multiply-high and shifts
// (Granlund & Montgomery, "Division by invariant integers using multiplication", PLDI 1994, section 4). A kernel
// that splits its thread index into (n, c, row, column) with `/` and `%` by runtime values pays ~20 instructions per
// operation in 32 bits and a subroutine call in 64; at batch 1 those dependent instructions are a visible part of a
// depthwise launch's few microseconds. Host and device code: the host computes the constants, the tests check the
// device arithmetic on the host.
#pragma once

#include <cstdint>

#ifndef STRATA_HOST_DEVICE
#if defined(__CUDACC__)
#define STRATA_HOST_DEVICE __host__ __device__
#else
#define STRATA_HOST_DEVICE
#endif
#endif

namespace strata::cuda {

/// x / d and x % d for any 32-bit unsigned x and a fixed d >= 1.
struct FastDivmod {
    uint32_t divisor = 1;
    uint32_t multiplier = 0;  ///< floor(2^32 * (2^l - d) / d) + 1, l = ceil(log2 d)
    uint32_t shift1 = 0;      ///< min(l, 1)
    uint32_t shift2 = 0;      ///< max(l - 1, 0)

    FastDivmod() = default;
    /// d >= 1 (d = 0 is treated as 1: the callers' divisors are counts of at least one).
    explicit FastDivmod(uint32_t d) : divisor(d == 0 ? 1 : d) {
        uint32_t l = 0;
        while (l < 32 && (uint64_t{1} << l) < divisor) ++l;
        multiplier = static_cast<uint32_t>(((uint64_t{1} << 32) * ((uint64_t{1} << l) - divisor)) / divisor + 1);
        shift1 = l < 1 ? l : 1;
        shift2 = l > 0 ? l - 1 : 0;
    }

    STRATA_HOST_DEVICE uint32_t div(uint32_t x) const {
        const uint32_t t = mul_high(multiplier, x);
        return (t + ((x - t) >> shift1)) >> shift2;
    }
    /// q = x / d and r = x % d.
    STRATA_HOST_DEVICE void divmod(uint32_t x, uint32_t& q, uint32_t& r) const {
        q = div(x);
        r = x - q * divisor;
    }

private:
    static STRATA_HOST_DEVICE uint32_t mul_high(uint32_t a, uint32_t b) {
#if defined(__CUDA_ARCH__)
        return __umulhi(a, b);
#else
        return static_cast<uint32_t>((uint64_t{a} * b) >> 32);
#endif
    }
};

}  // namespace strata::cuda
