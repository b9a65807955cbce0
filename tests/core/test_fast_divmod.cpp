// test_fast_divmod.cpp: cuda::FastDivmod (backends/cuda/kernels/common/fast_divmod.h) against `/` and `%`. The same
// arithmetic runs on the device (with __umulhi for the host's 64-bit product), so the host check covers it.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>

#include "backends/cuda/kernels/common/fast_divmod.h"
#include "test_support.h"

namespace strata::test {
namespace {

void expect_divides(uint32_t d, uint32_t x) {
    const cuda::FastDivmod f(d);
    uint32_t q = 0, r = 0;
    f.divmod(x, q, r);
    ASSERT_EQ(q, x / d) << x << " / " << d;
    ASSERT_EQ(r, x % d) << x << " % " << d;
}

TEST(FastDivmod, EverySmallDivisorAtTheEdgesOfItsQuotients) {
    for (uint32_t d = 1; d <= 4096; ++d)
        for (uint32_t x : {0u, 1u, d - 1, d, d + 1, 2 * d - 1, 2 * d, 0x7fffffffu, 0x80000000u, 0xfffffffeu,
                           0xffffffffu, 0xffffffffu - 0xffffffffu % d, 0xffffffffu - 0xffffffffu % d - 1})
            expect_divides(d, x);
}

TEST(FastDivmod, RandomDivisorsOfEveryMagnitude) {
    std::mt19937_64 rng(test_seed());
    for (int i = 0; i < 200000; ++i) {
        uint32_t d = static_cast<uint32_t>(rng() >> (32 + rng() % 32));
        expect_divides(d == 0 ? 1 : d, static_cast<uint32_t>(rng()));
    }
    for (uint32_t d : {0x80000000u, 0x80000001u, 0xfffffffeu, 0xffffffffu, 641u, 6700417u})
        for (int i = 0; i < 20000; ++i) expect_divides(d, static_cast<uint32_t>(rng()));
}

TEST(FastDivmod, ZeroDivisorCountsAsOne) {
    const cuda::FastDivmod f(0);
    EXPECT_EQ(f.divisor, 1u);
    EXPECT_EQ(f.div(12345u), 12345u);
}

}  // namespace
}  // namespace strata::test
