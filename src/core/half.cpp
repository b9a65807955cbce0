// half.cpp: fp16 conversions by bit manipulation (no F16C dependency, so the binary runs on any x86-64).
#include "core/half.h"

namespace strata {

float fp16_to_float(uint16_t h) {
    uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
    uint32_t exp = (h >> 10) & 0x1fu;
    uint32_t man = h & 0x3ffu;
    if (exp == 0x1f) return bits_to_float(sign | 0x7f800000u | (man << 13));  // inf / nan
    if (exp == 0) {
        if (man == 0) return bits_to_float(sign);
        // Subnormal: value = man * 2^-24.
        float v = static_cast<float>(man) * (1.0f / 16777216.0f);
        return sign ? -v : v;
    }
    return bits_to_float(sign | ((exp + 112) << 23) | (man << 13));
}

uint16_t float_to_fp16(float f) {
    uint32_t b = float_to_bits(f);
    uint16_t sign = static_cast<uint16_t>((b >> 16) & 0x8000u);
    uint32_t abs = b & 0x7fffffffu;
    if (abs > 0x7f800000u) return sign | 0x7e00u;                // nan
    if (abs >= 0x477ff000u) return sign | 0x7c00u;               // rounds to inf (>= 65520)
    if (abs < 0x38800000u) {                                     // subnormal or zero in fp16
        if (abs < 0x33000000u) return sign;                      // below half the smallest subnormal
        uint32_t exp = abs >> 23;
        uint32_t man = (abs & 0x7fffffu) | 0x800000u;
        // value = man * 2^(exp - 150) and the fp16 subnormal unit is 2^-24, so drop (126 - exp) bits.
        uint32_t shift = 126 - exp;
        uint32_t rem = man & ((1u << shift) - 1);
        uint32_t halfway = 1u << (shift - 1);
        uint16_t r = static_cast<uint16_t>(man >> shift);
        if (rem > halfway || (rem == halfway && (r & 1u))) ++r;
        return sign | r;
    }
    uint32_t rounded = abs + 0xfffu + ((abs >> 13) & 1u);
    return sign | static_cast<uint16_t>((rounded - 0x38000000u) >> 13);
}

}  // namespace strata
