// depthwise_int8_reference.h: the plain host reference of the int8 depthwise convolution, written from NOTE
// [depthwise int8 arithmetic] in backends/cuda/kernels/depthwise/depthwise_int8.h and sharing no code with the
// kernels: loops over taps, std::fmaf, std::nearbyint and a saturating cast. The GPU test compares the kernels with
// it bit for bit; tests/reference checks its rounding and saturation on hand-picked values. No CUDA in here.
#pragma once

#include <cmath>
#include <cstdint>
#include <vector>

#include "core/half.h"

namespace strata::test {

enum class DwRefAct { none, relu, relu6 };

/// One depthwise convolution: NHWC int8 input, weights [C][kh][kw], output [N, P, Q, C] (int8 or fp16).
struct DwInt8RefProblem {
    int n = 1, c = 1, h = 1, w = 1;
    int kh = 3, kw = 3, stride_h = 1, stride_w = 1, dil_h = 1, dil_w = 1;
    int pad_top = 0, pad_left = 0, pad_bottom = 0, pad_right = 0;
    float in_scale = 1.0f;
    std::vector<float> w_scale;     ///< [C]
    std::vector<float> out_scale;   ///< [C] or [1]; int8 output only
    std::vector<float> bias;        ///< [C] real units, or empty
    std::vector<int32_t> bias_i32;  ///< [C] accumulator units, or empty
    DwRefAct act = DwRefAct::none;
    bool fp16_out = false;

    int p() const { return (h + pad_top + pad_bottom - dil_h * (kh - 1) - 1) / stride_h + 1; }
    int q() const { return (w + pad_left + pad_right - dil_w * (kw - 1) - 1) / stride_w + 1; }
    float out_scale_of(int ch) const { return out_scale.size() == 1 ? out_scale[0] : out_scale[ch]; }
};

/// saturate_int8(round_half_even(v)): std::nearbyint rounds in the default mode, to nearest with ties to even.
inline int8_t dw_ref_requantize(float v) {
    const float r = std::nearbyint(v);
    if (r <= -128.0f) return -128;
    if (r >= 127.0f) return 127;
    return static_cast<int8_t>(r);
}

/// The int32 accumulator of output (n, p, q, ch): taps inside the image, plus bias_i32 (wrapping int32 sums).
inline int32_t dw_ref_acc(const DwInt8RefProblem& pr, const std::vector<int8_t>& x, const std::vector<int8_t>& w, int n,
                          int p, int q, int ch) {
    uint32_t acc = pr.bias_i32.empty() ? 0u : static_cast<uint32_t>(pr.bias_i32[ch]);
    for (int r = 0; r < pr.kh; ++r) {
        const int ih = p * pr.stride_h - pr.pad_top + r * pr.dil_h;
        if (ih < 0 || ih >= pr.h) continue;
        for (int s = 0; s < pr.kw; ++s) {
            const int iw = q * pr.stride_w - pr.pad_left + s * pr.dil_w;
            if (iw < 0 || iw >= pr.w) continue;
            const int xv = x[((static_cast<int64_t>(n) * pr.h + ih) * pr.w + iw) * pr.c + ch];
            const int wv = w[(static_cast<int64_t>(ch) * pr.kh + r) * pr.kw + s];
            acc += static_cast<uint32_t>(xv * wv);
        }
    }
    return static_cast<int32_t>(acc);
}

/// v of channel ch before the final rounding: fmaf(float(acc), mul, add), then the activation in output units.
inline float dw_ref_value(const DwInt8RefProblem& pr, int32_t acc, int ch) {
    const float bias = pr.bias.empty() ? 0.0f : pr.bias[ch];
    float mul, add, six;
    if (pr.fp16_out) {
        mul = pr.in_scale * pr.w_scale[ch];
        add = bias;
        six = 6.0f;
    } else {
        const float os = pr.out_scale_of(ch);
        mul = (pr.in_scale * pr.w_scale[ch]) / os;
        add = bias / os;
        six = 6.0f / os;
    }
    if (add == 0.0f) add = 0.0f;  // the definition stores -0 as +0
    float v = std::fmaf(static_cast<float>(acc), mul, add);
    if (pr.act != DwRefAct::none) v = std::fmax(v, 0.0f);
    if (pr.act == DwRefAct::relu6) v = std::fmin(v, six);
    return v;
}

/// The whole output as bytes: int8 [N, P, Q, C], or fp16 bit patterns [N, P, Q, C] (two bytes each, little endian).
inline std::vector<uint8_t> dw_ref_run(const DwInt8RefProblem& pr, const std::vector<int8_t>& x,
                                       const std::vector<int8_t>& w) {
    const int P = pr.p(), Q = pr.q();
    const size_t elems = static_cast<size_t>(pr.n) * P * Q * pr.c;
    std::vector<uint8_t> out(elems * (pr.fp16_out ? 2 : 1));
    size_t e = 0;
    for (int n = 0; n < pr.n; ++n)
        for (int p = 0; p < P; ++p)
            for (int q = 0; q < Q; ++q)
                for (int ch = 0; ch < pr.c; ++ch, ++e) {
                    const float v = dw_ref_value(pr, dw_ref_acc(pr, x, w, n, p, q, ch), ch);
                    if (pr.fp16_out) {
                        const uint16_t h = float_to_fp16(v);
                        out[2 * e] = static_cast<uint8_t>(h & 0xff);
                        out[2 * e + 1] = static_cast<uint8_t>(h >> 8);
                    } else {
                        out[e] = static_cast<uint8_t>(dw_ref_requantize(v));
                    }
                }
    return out;
}

}  // namespace strata::test
