// half.h: IEEE fp16 and bfloat16 <-> float on the host (storage is a uint16_t bit pattern). Round to nearest even.
#pragma once

#include <cstdint>
#include <cstring>

namespace strata {

inline float bits_to_float(uint32_t b) { float f; std::memcpy(&f, &b, 4); return f; }
inline uint32_t float_to_bits(float f) { uint32_t b; std::memcpy(&b, &f, 4); return b; }

inline float bf16_to_float(uint16_t h) { return bits_to_float(static_cast<uint32_t>(h) << 16); }
inline uint16_t float_to_bf16(float f) {
    uint32_t b = float_to_bits(f);
    if ((b & 0x7fffffffu) > 0x7f800000u) return static_cast<uint16_t>((b >> 16) | 0x40);  // quiet NaN
    b += 0x7fffu + ((b >> 16) & 1u);
    return static_cast<uint16_t>(b >> 16);
}

float fp16_to_float(uint16_t h);
uint16_t float_to_fp16(float f);

}  // namespace strata
