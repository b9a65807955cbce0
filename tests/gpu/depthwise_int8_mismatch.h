// depthwise_int8_mismatch.h: what the int8 depthwise tests print when an output differs from the reference, so that
// one GPU run explains itself: the first differing element's position, both values, its accumulator, the channel's
// scales and epilogue constants, its taps, how the differences are spread (poison bytes left, off by one unit,
// which rows / columns / channels), and whether the same thread program run on the host gives the device's value.
// Host only, no CUDA: the callers pass the outputs.
#pragma once

#include <fmt/format.h>

#include <cstdint>
#include <cstdlib>
#include <map>
#include <string>
#include <vector>

#include "core/half.h"
#include "depthwise_int8_reference.h"

namespace strata::test {

/// (n, p, q, c) of output element e of an NHWC [N, P, Q, C] output.
struct DwInt8Pos {
    int n, p, q, c;
};
inline DwInt8Pos dw_int8_pos(const DwInt8RefProblem& pr, int64_t e) {
    DwInt8Pos at;
    at.c = static_cast<int>(e % pr.c), e /= pr.c;
    at.q = static_cast<int>(e % pr.q()), e /= pr.q();
    at.p = static_cast<int>(e % pr.p());
    at.n = static_cast<int>(e / pr.p());
    return at;
}

/// Element e of an output as an integer: the int8 value, or the fp16 bit pattern.
inline int dw_int8_elem(const uint8_t* out, int64_t e, bool fp16) {
    return fp16 ? out[2 * e] | (out[2 * e + 1] << 8) : static_cast<int8_t>(out[e]);
}

inline std::string dw_int8_show(int v, bool fp16) {
    if (!fp16) return fmt::format("{}", v);
    return fmt::format("{:#06x} ({:.9g})", v, fp16_to_float(static_cast<uint16_t>(v)));
}

/// A short list of the keys of a histogram: "0:12 1:3 ..." (at most 16 entries).
inline std::string dw_int8_hist(const std::map<int, int64_t>& h) {
    std::string s;
    int shown = 0;
    for (const auto& [k, v] : h) {
        if (shown++ == 16) return s + " ...";
        s += fmt::format(" {}:{}", k, v);
    }
    return s;
}

/// The channel's quantisation and, for output (n, p, q, c), its in-image taps "x*w" and the reference's accumulator
/// and value before rounding.
inline std::string dw_int8_explain_element(const DwInt8RefProblem& pr, const std::vector<int8_t>& x,
                                           const std::vector<int8_t>& w, const DwInt8Pos& at) {
    const int c = at.c;
    std::string s = fmt::format("  channel {}: in_scale {:a} w_scale {:a}", c, pr.in_scale, pr.w_scale[c]);
    if (!pr.fp16_out) s += fmt::format(" out_scale {:a}", pr.out_scale_of(c));
    s += pr.bias.empty() ? " no float bias" : fmt::format(" bias {:a}", pr.bias[c]);
    s += pr.bias_i32.empty() ? " no int32 bias" : fmt::format(" bias_i32 {}", pr.bias_i32[c]);
    const int32_t acc = dw_ref_acc(pr, x, w, at.n, at.p, at.q, c);
    const float v = dw_ref_value(pr, acc, c);
    s += fmt::format("\n  reference: acc {} -> v {:.9g} ({:a}) before the final rounding\n  taps (r,s x*w):", acc, v, v);
    for (int r = 0; r < pr.kh; ++r) {
        const int ih = at.p * pr.stride_h - pr.pad_top + r * pr.dil_h;
        for (int t = 0; t < pr.kw; ++t) {
            const int iw = at.q * pr.stride_w - pr.pad_left + t * pr.dil_w;
            if (ih < 0 || ih >= pr.h || iw < 0 || iw >= pr.w) continue;
            const int xv = x[((static_cast<int64_t>(at.n) * pr.h + ih) * pr.w + iw) * pr.c + c];
            s += fmt::format(" {},{} {}*{}", r, t, xv, w[(static_cast<int64_t>(c) * pr.kh + r) * pr.kw + t]);
        }
    }
    return s;
}

/// Neighbours (dp, dq, dc within +-2, +-2, +-4) whose reference value equals `got`: an indexing error shows here.
inline std::string dw_int8_neighbours(const DwInt8RefProblem& pr, const std::vector<uint8_t>& want,
                                      const DwInt8Pos& at, int got) {
    std::string s;
    for (int dp = -2; dp <= 2; ++dp)
        for (int dq = -2; dq <= 2; ++dq)
            for (int dc = -4; dc <= 4; ++dc) {
                const int p = at.p + dp, q = at.q + dq, c = at.c + dc;
                if ((dp | dq | dc) == 0 || p < 0 || p >= pr.p() || q < 0 || q >= pr.q() || c < 0 || c >= pr.c)
                    continue;
                const int64_t e = ((static_cast<int64_t>(at.n) * pr.p() + p) * pr.q() + q) * pr.c + c;
                if (dw_int8_elem(want.data(), e, pr.fp16_out) == got) s += fmt::format(" ({},{},{})", dp, dq, dc);
            }
    return s.empty() ? " none" : s;
}

/// The whole story of the differences between `got` (the output without guards) and `want`; `host` is the same
/// tile's thread program run on the host (empty when not run). Empty when they are equal.
inline std::string dw_int8_mismatch_report(const DwInt8RefProblem& pr, const std::vector<int8_t>& x,
                                           const std::vector<int8_t>& w, const uint8_t* got,
                                           const std::vector<uint8_t>& want, const std::vector<uint8_t>& host,
                                           uint8_t poison) {
    const bool fp16 = pr.fp16_out;
    const int64_t elems = static_cast<int64_t>(want.size()) / (fp16 ? 2 : 1);
    const int poison_elem = fp16 ? poison | (poison << 8) : static_cast<int8_t>(poison);
    int64_t bad = 0, poisoned = 0, one_unit = 0, host_like_device = 0, first = -1;
    std::map<int, int64_t> by_n, by_p, by_q, by_c4, by_diff;
    for (int64_t e = 0; e < elems; ++e) {
        const int g = dw_int8_elem(got, e, fp16), r = dw_int8_elem(want.data(), e, fp16);
        if (g == r) continue;
        if (first < 0) first = e;
        ++bad;
        poisoned += g == poison_elem;
        // fp16: adjacent bit patterns of one sign are one ulp apart.
        one_unit += std::abs(g - r) == 1;
        if (!host.empty()) host_like_device += dw_int8_elem(host.data(), e, fp16) == g;
        const DwInt8Pos at = dw_int8_pos(pr, e);
        ++by_n[at.n], ++by_p[at.p], ++by_q[at.q], ++by_c4[at.c % 4];
        if (!fp16) ++by_diff[g - r];
    }
    if (bad == 0) return {};
    const DwInt8Pos at = dw_int8_pos(pr, first);
    const int g = dw_int8_elem(got, first, fp16), r = dw_int8_elem(want.data(), first, fp16);
    std::string s = fmt::format("\n  first difference: element {} = (n {}, p {}, q {}, c {}): got {} want {}", first,
                                at.n, at.p, at.q, at.c, dw_int8_show(g, fp16), dw_int8_show(r, fp16));
    if (!host.empty())
        s += fmt::format(", the host run of the same thread program gives {}",
                         dw_int8_show(dw_int8_elem(host.data(), first, fp16), fp16));
    s += "\n" + dw_int8_explain_element(pr, x, w, at);
    s += fmt::format("\n  reference equals got at neighbours (dp,dq,dc):{}", dw_int8_neighbours(pr, want, at, g));
    s += fmt::format("\n  {} of {} differ; {} still hold the poison {:#x}; {} off by one {}", bad, elems, poisoned,
                     poison, one_unit, fp16 ? "ulp (bit pattern)" : "unit");
    if (!host.empty()) s += fmt::format("; the host run gives the device's value at {} of them", host_like_device);
    s += "\n  differing n:" + dw_int8_hist(by_n) + "\n  differing p:" + dw_int8_hist(by_p) +
         "\n  differing q:" + dw_int8_hist(by_q) + "\n  differing c%4:" + dw_int8_hist(by_c4);
    if (!fp16) s += "\n  got - want:" + dw_int8_hist(by_diff);
    return s;
}

}  // namespace strata::test
