// depthwise_int8_cases.h: what the int8 depthwise tests share (test_depthwise_int8.cpp, the fast and generic kernels
// and the host API; test_depthwise_int8_staged.cpp, the staged tiles): random cases over the quantized arithmetic, the
// host inputs the kernels read, runs on the GPU and on the host compared bit for bit with the reference, and the
// seed to replay a case with.
#pragma once

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <vector>
#include "backends/cuda/cuda_check.h"
#include "backends/cuda/device.h"
#include "backends/cuda/device_buffer.h"
#include "backends/cuda/kernels/depthwise/depthwise_int8.h"
#include "depthwise_int8_mismatch.h"
#include "depthwise_int8_reference.h"
#include "gpu_support.h"
#include "test_support.h"

namespace strata::test::dw_int8_cases {

using cuda::DwInt8Params;
using cuda::DwInt8Tile;
using cuda::kDwInt8FastShapes;

inline constexpr size_t kGuard = 256;  // poisoned bytes before and after the output (keeps the output 256-byte aligned)

struct DwCase {
    DwInt8RefProblem pr;
    std::vector<int8_t> x, w;  // x: NHWC, w: [C][kh][kw]
    bool ties = false;         // fill_case's exact-halves data
    bool nchw = false;         // the kernels get x and give y in NCHW (the reference stays NHWC; kernel_x, as_nhwc)

    std::string str() const {
        return fmt::format(
            "N{} C{} H{} W{} k{}x{} s{}x{} d{}x{} pads[t{} l{} b{} r{}] -> P{} Q{}, {} out, act {}, float bias {}, "
            "int32 bias {}, {} out scale, in_scale {:a}, {}",
            pr.n, pr.c, pr.h, pr.w, pr.kh, pr.kw, pr.stride_h, pr.stride_w, pr.dil_h, pr.dil_w, pr.pad_top, pr.pad_left,
            pr.pad_bottom, pr.pad_right, pr.p(), pr.q(), pr.fp16_out ? "fp16" : "int8",
            pr.act == DwRefAct::none ? "none" : pr.act == DwRefAct::relu ? "relu" : "relu6", !pr.bias.empty(),
            !pr.bias_i32.empty(), pr.out_scale.size() == 1 ? "per-tensor" : "per-channel", pr.in_scale,
            ties ? "tie data (small weights, mul 1/2 or 1)" : "full-range data") +
               (nchw ? ", NCHW" : "");
    }
};

inline int pick(std::mt19937_64& rng, std::initializer_list<int> v) {
    return *(v.begin() + rng() % v.size());
}
inline int range(std::mt19937_64& rng, int lo, int hi) {
    return lo + static_cast<int>(rng() % (hi - lo + 1));
}
inline float uniform(std::mt19937_64& rng, float lo, float hi) {
    return std::uniform_real_distribution<float>(lo, hi)(rng);
}

/// Random int8 data over the full range (including -128), scales that put the output around +-60 output units (some
/// saturating, some clamped by ReLU6), or with `ties` small weights and mul = 1/2 so that half the outputs are exact
/// halves; random biases of both kinds; random activation.
inline void fill_case(std::mt19937_64& rng, DwCase& cs, bool fp16_out, bool ties) {
    DwInt8RefProblem& pr = cs.pr;
    pr.fp16_out = fp16_out;
    cs.ties = ties;
    cs.x.resize(static_cast<size_t>(pr.n) * pr.h * pr.w * pr.c);
    cs.w.resize(static_cast<size_t>(pr.c) * pr.kh * pr.kw);
    for (int8_t& v : cs.x) v = static_cast<int8_t>(range(rng, -128, 127));
    for (int8_t& v : cs.w) v = static_cast<int8_t>(ties ? range(rng, -2, 2) : range(rng, -128, 127));
    const float taps = static_cast<float>(pr.kh * pr.kw);
    const float acc_std = ties ? 74.0f * std::sqrt(2.0f * taps) : 5461.0f * std::sqrt(taps);
    pr.in_scale = ties ? 1.0f : uniform(rng, 0.5f, 2.0f) / 64;
    pr.w_scale.resize(pr.c);
    for (float& s : pr.w_scale) s = ties ? 1.0f : uniform(rng, 0.5f, 2.0f) / 64;
    const bool per_tensor = rng() % 3 == 0;
    pr.out_scale.assign(per_tensor ? 1 : pr.c, 0.0f);
    for (size_t k = 0; k < pr.out_scale.size(); ++k) {
        const float mul = ties ? 0.5f : uniform(rng, 0.5f, 2.0f) * 60.0f / acc_std;
        pr.out_scale[k] = pr.in_scale * pr.w_scale[k] / mul;
    }
    pr.bias.clear();
    pr.bias_i32.clear();
    if (rng() % 2) {
        pr.bias.resize(pr.c);
        for (int k = 0; k < pr.c; ++k)
            pr.bias[k] = fp16_out ? uniform(rng, -3.0f, 3.0f) : uniform(rng, -30.0f, 30.0f) * pr.out_scale_of(k);
    }
    if (rng() % 2) {
        pr.bias_i32.resize(pr.c);
        const int span = ties ? 20 : static_cast<int>(2 * acc_std);
        for (int32_t& b : pr.bias_i32) b = range(rng, -span, span);
    }
    pr.act = static_cast<DwRefAct>(rng() % 3);
}

/// A shape for fast kernel `fast` (C % 4 == 0, its k and stride, no dilation; C % 16 == 0 with `staged`), or for the
/// generic kernel.
inline DwCase random_case(std::mt19937_64& rng, int fast, bool fp16_out, bool staged = false) {
    DwCase cs;
    DwInt8RefProblem& pr = cs.pr;
    pr.n = range(rng, 1, 4);
    if (fast >= 0) {
        pr.c = rng() % 8 == 0 ? 144 : staged ? 16 * range(rng, 1, 6) : 4 * range(rng, 1, 12);
        pr.kh = pr.kw = kDwInt8FastShapes[fast].k;
        pr.stride_h = pr.stride_w = kDwInt8FastShapes[fast].stride;
    } else {
        pr.c = rng() % 2 ? pick(rng, {1, 2, 3, 5, 6, 7, 13, 30}) : 4 * range(rng, 1, 8);
        pr.kh = pick(rng, {1, 2, 3, 4, 5, 7});
        pr.kw = rng() % 2 ? pr.kh : pick(rng, {1, 2, 3, 5, 9});
        pr.stride_h = range(rng, 1, 3);
        pr.stride_w = rng() % 2 ? pr.stride_h : range(rng, 1, 3);
        pr.dil_h = range(rng, 1, 2);
        pr.dil_w = range(rng, 1, 2);
    }
    pr.pad_top = range(rng, 0, pr.kh - 1), pr.pad_bottom = range(rng, 0, pr.kh - 1);
    pr.pad_left = range(rng, 0, pr.kw - 1), pr.pad_right = range(rng, 0, pr.kw - 1);
    pr.h = range(rng, 1, 19), pr.w = range(rng, 1, 23);
    while (pr.p() < 1) ++pr.h;
    while (pr.q() < 1) ++pr.w;
    fill_case(rng, cs, fp16_out, rng() % 5 == 0);
    return cs;
}

/// A MobileNet-like layer: pads k/2 on every side.
inline DwCase layer_case(std::mt19937_64& rng, int n, int c, int hw, int k, int stride, bool fp16_out) {
    DwCase cs;
    DwInt8RefProblem& pr = cs.pr;
    pr.n = n, pr.c = c, pr.h = pr.w = hw, pr.kh = pr.kw = k, pr.stride_h = pr.stride_w = stride;
    pr.pad_top = pr.pad_left = pr.pad_bottom = pr.pad_right = k / 2;
    fill_case(rng, cs, fp16_out, false);
    return cs;
}

inline cuda::ConvGeometry geometry_of(const DwInt8RefProblem& pr) {
    cuda::ConvGeometry g;
    g.n = pr.n, g.c = pr.c, g.h = pr.h, g.w = pr.w;
    g.k = pr.c, g.p = pr.p(), g.q = pr.q(), g.r = pr.kh, g.s = pr.kw;
    g.stride_h = pr.stride_h, g.stride_w = pr.stride_w, g.dil_h = pr.dil_h, g.dil_w = pr.dil_w;
    g.pad_h = pr.pad_top, g.pad_w = pr.pad_left, g.group = pr.c;
    return g;
}

/// What the kernels read, on the host: packed weights and the per-channel table from the host API.
struct HostInputs {
    std::vector<int8_t> w_packed;
    std::vector<cuda::DwInt8Channel> chan;
    size_t y_bytes = 0;
};

inline HostInputs host_inputs(const DwCase& cs) {
    const DwInt8RefProblem& pr = cs.pr;
    cuda::DwInt8Quant q;
    q.in_scale = pr.in_scale, q.w_scale = pr.w_scale, q.out_scale = pr.out_scale, q.bias = pr.bias;
    q.act = static_cast<cuda::DwInt8Act>(static_cast<int>(pr.act));
    q.out = pr.fp16_out ? cuda::DwInt8Out::fp16 : cuda::DwInt8Out::int8;
    HostInputs in;
    in.w_packed = cuda::depthwise_int8_pack_weights(cs.w.data(), pr.c, pr.kh, pr.kw);
    in.chan = cuda::depthwise_int8_channels(q, pr.c);
    in.y_bytes = static_cast<size_t>(pr.n) * pr.p() * pr.q() * pr.c * (pr.fp16_out ? 2 : 1);
    return in;
}

inline DwInt8Params params_of(const DwCase& cs, const DwInt8Tile& tile) {
    DwInt8Params p;
    p.g = geometry_of(cs.pr);
    p.out = cs.pr.fp16_out ? cuda::DwInt8Out::fp16 : cuda::DwInt8Out::int8;
    p.tile = tile;
    p.nchw = cs.nchw;
    return p;
}

/// The input the kernels read: cs.x, transposed to NCHW for an NCHW case.
inline std::vector<int8_t> kernel_x(const DwCase& cs) {
    if (!cs.nchw) return cs.x;
    const DwInt8RefProblem& pr = cs.pr;
    std::vector<int8_t> out(cs.x.size());
    for (int b = 0; b < pr.n; ++b)
        for (int i = 0; i < pr.h; ++i)
            for (int j = 0; j < pr.w; ++j)
                for (int k = 0; k < pr.c; ++k)
                    out[((static_cast<size_t>(b) * pr.c + k) * pr.h + i) * pr.w + j] =
                        cs.x[((static_cast<size_t>(b) * pr.h + i) * pr.w + j) * pr.c + k];
    return out;
}

/// A kernel's output as the reference lays it out (NHWC): `y` from byte `at` on, transposed for an NCHW case; the
/// bytes before `at` and after the output (the guards) are kept as they are. int8 output only for NCHW.
inline std::vector<uint8_t> as_nhwc(const std::vector<uint8_t>& y, const DwCase& cs, size_t at = 0) {
    if (!cs.nchw) return y;
    const DwInt8RefProblem& pr = cs.pr;
    const int p = pr.p(), q = pr.q();
    std::vector<uint8_t> out(y);
    for (int b = 0; b < pr.n; ++b)
        for (int i = 0; i < p; ++i)
            for (int j = 0; j < q; ++j)
                for (int k = 0; k < pr.c; ++k)
                    out[at + ((static_cast<size_t>(b) * p + i) * q + j) * pr.c + k] =
                        y[at + ((static_cast<size_t>(b) * pr.c + k) * p + i) * q + j];
    return out;
}

/// Compares the output (between its guards) with the reference; an empty string when equal, else the guard that
/// was overwritten or depthwise_int8_mismatch.h's report. `host`: the same tile's thread program run on the host
/// (empty: not run).
inline std::string compare(const std::vector<uint8_t>& got_with_guards, const std::vector<uint8_t>& want,
                           uint8_t poison, const DwCase& cs, const std::vector<uint8_t>& host = {}) {
    for (size_t i = 0; i < kGuard; ++i)
        if (got_with_guards[i] != poison || got_with_guards[kGuard + want.size() + i] != poison)
            return fmt::format("a guard byte was overwritten (poison {:#x}, {} byte {})", poison,
                               got_with_guards[i] != poison ? "leading" : "trailing", i);
    return dw_int8_mismatch_report(cs.pr, cs.x, cs.w, got_with_guards.data() + kGuard, want, host, poison);
}

template <class T>
cuda::DeviceBuffer upload(const std::vector<T>& v) {
    cuda::DeviceBuffer b(std::max<size_t>(v.size() * sizeof(T), 16), "a depthwise int8 test buffer");
    STRATA_CUDA_CHECK(cudaMemcpy(b.data(), v.data(), v.size() * sizeof(T), cudaMemcpyHostToDevice), "test upload");
    return b;
}

/// Device copies of a case's inputs, and an output buffer with guards.
struct DeviceCase {
    cuda::DeviceBuffer x, w, chan, bias_i32, y;
    size_t y_bytes = 0;

    explicit DeviceCase(const DwCase& cs) {
        HostInputs in = host_inputs(cs);
        x = upload(kernel_x(cs)), w = upload(in.w_packed), chan = upload(in.chan);
        if (!cs.pr.bias_i32.empty()) bias_i32 = upload(cs.pr.bias_i32);
        y_bytes = in.y_bytes;
        y = cuda::DeviceBuffer(y_bytes + 2 * kGuard, "a depthwise int8 test output");
        // cudaMemcpy from pageable memory may return before its DMA lands, and the kernels run on a non-blocking
        // stream that does not wait for the legacy stream: finish the uploads here.
        STRATA_CUDA_CHECK(cudaDeviceSynchronize(), "finishing the depthwise int8 test uploads");
    }
    void bind(DwInt8Params& p) const {
        p.x = static_cast<const int8_t*>(x.data());
        p.w = static_cast<const int8_t*>(w.data());
        p.chan = static_cast<const cuda::DwInt8Channel*>(chan.data());
        p.bias_i32 = static_cast<const int32_t*>(bias_i32.data());
        p.y = static_cast<uint8_t*>(y.data()) + kGuard;
    }
    /// On the kernel's stream: a cudaMemset (legacy stream, asynchronous for device memory) would race the kernel.
    void poison(uint8_t value, cudaStream_t stream) const {
        STRATA_CUDA_CHECK(cudaMemsetAsync(y.data(), value, y_bytes + 2 * kGuard, stream), "poisoning the output");
    }
    std::vector<uint8_t> download() const {
        std::vector<uint8_t> out(y_bytes + 2 * kGuard);
        STRATA_CUDA_CHECK(cudaMemcpy(out.data(), y.data(), out.size(), cudaMemcpyDeviceToHost), "test download");
        return out;
    }
};

/// The output of `tile`'s thread program run on the host (no guards), or empty when the tile is refused.
inline std::vector<uint8_t> host_output(const DwCase& cs, const DwInt8Tile& tile) {
    HostInputs in = host_inputs(cs);
    DwInt8Params p = params_of(cs, tile);
    const std::vector<int8_t> x = kernel_x(cs);
    p.x = x.data(), p.w = in.w_packed.data(), p.chan = in.chan.data();
    p.bias_i32 = cs.pr.bias_i32.empty() ? nullptr : cs.pr.bias_i32.data();
    std::vector<uint8_t> y(in.y_bytes + 16);
    // Align the output like a device allocation (fp16 stores are 8 bytes wide).
    const size_t lead = (16 - reinterpret_cast<uintptr_t>(y.data()) % 16) % 16;
    p.y = y.data() + lead;
    if (!cuda::depthwise_int8_problem(p).empty()) return {};
    cuda::depthwise_int8_run_on_host(p);
    return as_nhwc(std::vector<uint8_t>(y.begin() + lead, y.begin() + lead + in.y_bytes), cs);
}

/// Runs the case with `tile` on the GPU twice (two poisons) and returns "" when both match the reference. On a
/// difference the report says what the host run of the same thread program gives.
inline std::string run_gpu(const DwCase& cs, const DwInt8Tile& tile, std::string* described = nullptr) {
    const std::vector<uint8_t> want = dw_ref_run(cs.pr, cs.x, cs.w);
    DeviceCase dev(cs);
    DwInt8Params p = params_of(cs, tile);
    dev.bind(p);
    if (std::string why = cuda::depthwise_int8_problem(p); !why.empty()) return "refused: " + why;
    if (described) *described = cuda::depthwise_int8_describe(p);
    cuda::Stream stream;
    for (uint8_t poison : {uint8_t{0x5a}, uint8_t{0xa5}}) {
        dev.poison(poison, stream.get());
        cuda::depthwise_int8_launch(p, stream.get());
        cuda::check_launch("depthwise int8 test");
        stream.synchronize("depthwise int8 test");
        const std::vector<uint8_t> got = as_nhwc(dev.download(), cs, kGuard);
        if (compare(got, want, poison, cs).empty()) continue;
        return fmt::format("{}: {}", cuda::depthwise_int8_describe(p),
                           compare(got, want, poison, cs, host_output(cs, tile)));
    }
    return {};
}

/// The same with the thread programs run on the host.
inline std::string run_host(const DwCase& cs, const DwInt8Tile& tile) {
    const std::vector<uint8_t> want = dw_ref_run(cs.pr, cs.x, cs.w);
    HostInputs in = host_inputs(cs);
    DwInt8Params p = params_of(cs, tile);
    const std::vector<int8_t> x = kernel_x(cs);
    p.x = x.data(), p.w = in.w_packed.data(), p.chan = in.chan.data();
    p.bias_i32 = cs.pr.bias_i32.empty() ? nullptr : cs.pr.bias_i32.data();
    std::vector<uint8_t> y(in.y_bytes + 2 * kGuard + 16);
    // Align the output like a device allocation (fp16 stores are 8 bytes wide).
    const size_t lead = (16 - reinterpret_cast<uintptr_t>(y.data()) % 16) % 16;
    p.y = y.data() + lead + kGuard;
    if (std::string why = cuda::depthwise_int8_problem(p); !why.empty()) return "refused: " + why;
    for (uint8_t poison : {uint8_t{0x5a}, uint8_t{0xa5}}) {
        std::fill(y.begin(), y.end(), poison);
        cuda::depthwise_int8_run_on_host(p);
        const std::vector<uint8_t> got =
            as_nhwc(std::vector<uint8_t>(y.begin() + lead, y.begin() + lead + in.y_bytes + 2 * kGuard), cs, kGuard);
        if (std::string diff = compare(got, want, poison, cs); !diff.empty()) return diff;
    }
    return {};
}

/// Strip heights worth testing for P output rows: 1, 2, 3, a random one and P (each at most P).
inline std::vector<int> rows_to_test(std::mt19937_64& rng, int p) {
    std::vector<int> rows = {1, 2, 3, range(rng, 1, p), p};
    for (int& r : rows) r = std::min(r, p);
    std::sort(rows.begin(), rows.end());
    rows.erase(std::unique(rows.begin(), rows.end()), rows.end());
    return rows;
}

inline std::string fast_name(int i) {
    return fmt::format("fast k{} s{}", kDwInt8FastShapes[i].k, kDwInt8FastShapes[i].stride);
}

/// A case's params with placeholder buffers (aligned like device allocations, never read): for the host-side checks
/// of tiles, sizes and refusals.
struct HostOnlyParams {
    std::vector<int8_t> bytes = std::vector<int8_t>(64);
    std::vector<cuda::DwInt8Channel> chan;
    DwInt8Params p;

    explicit HostOnlyParams(const DwCase& cs) : chan(cs.pr.c), p(params_of(cs, {})) {
        p.x = p.w = bytes.data(), p.chan = chan.data(), p.y = bytes.data();
    }
};

/// The tiles depthwise_int8_tiles() lists for `p` that `in_family` takes: each is set as p.tile, must have no problem,
/// and goes to `check(tile)`. Returns how many there were.
template <class InFamily, class Check>
int check_listed_tiles(DwInt8Params& p, InFamily in_family, Check check) {
    int listed = 0;
    for (const DwInt8Tile& t : cuda::depthwise_int8_tiles(p)) {
        if (!in_family(t)) continue;
        ++listed;
        p.tile = t;
        EXPECT_EQ(cuda::depthwise_int8_problem(p), "");
        check(t);
    }
    return listed;
}

/// depthwise_int8_problem(q) refuses q and says `what`.
inline void expect_refused(const DwInt8Params& q, const std::string& what) {
    const std::string why = cuda::depthwise_int8_problem(q);
    EXPECT_NE(why.find(what), std::string::npos) << "'" << why << "' should say '" << what << "'";
}

/// Where a case came from, for SCOPED_TRACE: the seed and how to replay it.
inline std::string replay(uint64_t seed, const char* test) {
    return fmt::format("seed {} (replay: STRATA_SEED={} build/tests/test_gpu --gtest_filter=GpuDepthwiseInt8.{})", seed,
                       seed, test);
}

}  // namespace strata::test::dw_int8_cases
