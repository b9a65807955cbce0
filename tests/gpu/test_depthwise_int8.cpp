// test_depthwise_int8.cpp: the int8 depthwise kernels (backends/cuda/kernels/depthwise/depthwise_int8.h) against
// the host reference of the same quantized arithmetic (tests/support/depthwise_int8_reference.h), bit for bit, for
// int8 and fp16 output: every fast kernel at several strip heights, the generic kernel on odd shapes (C % 4 != 0,
// non-square and even kernels, strides 1-3, dilation, asymmetric pads), the selector's tiles on MobileNet shapes,
// and a launch captured in a CUDA graph. Outputs are poisoned twice (0x5a, 0xa5) with guard bytes around them, so
// an element left unwritten or a byte written out of bounds cannot pass. The DepthwiseInt8Host tests run the same
// thread programs on the CPU (depthwise_int8_run_on_host) and the host-side API, so they need no GPU. A difference
// prints the seed, the case, the tile and depthwise_int8_mismatch.h's report (position, values, accumulator, scales,
// taps, the spread of the differences, and what the host run of the same thread program gives there).
// Ordering: uploads and poison go through the legacy default stream or the test's stream, and the kernels run on a
// non-blocking stream (cuda::Stream), which does not wait for the legacy stream: the uploads end with
// cudaDeviceSynchronize and the poison is a cudaMemsetAsync on the kernel's stream.
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

namespace strata::test {
namespace {

using cuda::DwInt8Params;
using cuda::DwInt8Tile;
using cuda::kDwInt8FastShapes;

constexpr size_t kGuard = 256;  // poisoned bytes before and after the output (keeps the output 256-byte aligned)

struct DwCase {
    DwInt8RefProblem pr;
    std::vector<int8_t> x, w;  // x: NHWC, w: [C][kh][kw]
    bool ties = false;         // fill_case's exact-halves data

    std::string str() const {
        return fmt::format(
            "N{} C{} H{} W{} k{}x{} s{}x{} d{}x{} pads[t{} l{} b{} r{}] -> P{} Q{}, {} out, act {}, float bias {}, "
            "int32 bias {}, {} out scale, in_scale {:a}, {}",
            pr.n, pr.c, pr.h, pr.w, pr.kh, pr.kw, pr.stride_h, pr.stride_w, pr.dil_h, pr.dil_w, pr.pad_top, pr.pad_left,
            pr.pad_bottom, pr.pad_right, pr.p(), pr.q(), pr.fp16_out ? "fp16" : "int8",
            pr.act == DwRefAct::none ? "none" : pr.act == DwRefAct::relu ? "relu" : "relu6", !pr.bias.empty(),
            !pr.bias_i32.empty(), pr.out_scale.size() == 1 ? "per-tensor" : "per-channel", pr.in_scale,
            ties ? "tie data (small weights, mul 1/2 or 1)" : "full-range data");
    }
};

int pick(std::mt19937_64& rng, std::initializer_list<int> v) {
    return *(v.begin() + rng() % v.size());
}
int range(std::mt19937_64& rng, int lo, int hi) {
    return lo + static_cast<int>(rng() % (hi - lo + 1));
}
float uniform(std::mt19937_64& rng, float lo, float hi) {
    return std::uniform_real_distribution<float>(lo, hi)(rng);
}

/// Random int8 data over the full range (including -128), scales that put the output around +-60 output units (some
/// saturating, some clamped by ReLU6), or with `ties` small weights and mul = 1/2 so that half the outputs are exact
/// halves; random biases of both kinds; random activation.
void fill_case(std::mt19937_64& rng, DwCase& cs, bool fp16_out, bool ties) {
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
DwCase random_case(std::mt19937_64& rng, int fast, bool fp16_out, bool staged = false) {
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
DwCase layer_case(std::mt19937_64& rng, int n, int c, int hw, int k, int stride, bool fp16_out) {
    DwCase cs;
    DwInt8RefProblem& pr = cs.pr;
    pr.n = n, pr.c = c, pr.h = pr.w = hw, pr.kh = pr.kw = k, pr.stride_h = pr.stride_w = stride;
    pr.pad_top = pr.pad_left = pr.pad_bottom = pr.pad_right = k / 2;
    fill_case(rng, cs, fp16_out, false);
    return cs;
}

cuda::ConvGeometry geometry_of(const DwInt8RefProblem& pr) {
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

HostInputs host_inputs(const DwCase& cs) {
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

DwInt8Params params_of(const DwCase& cs, const DwInt8Tile& tile) {
    DwInt8Params p;
    p.g = geometry_of(cs.pr);
    p.out = cs.pr.fp16_out ? cuda::DwInt8Out::fp16 : cuda::DwInt8Out::int8;
    p.tile = tile;
    return p;
}

/// Compares the output (between its guards) with the reference; an empty string when equal, else the guard that
/// was overwritten or depthwise_int8_mismatch.h's report. `host`: the same tile's thread program run on the host
/// (empty: not run).
std::string compare(const std::vector<uint8_t>& got_with_guards, const std::vector<uint8_t>& want, uint8_t poison,
                    const DwCase& cs, const std::vector<uint8_t>& host = {}) {
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
        x = upload(cs.x), w = upload(in.w_packed), chan = upload(in.chan);
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
std::vector<uint8_t> host_output(const DwCase& cs, const DwInt8Tile& tile) {
    HostInputs in = host_inputs(cs);
    DwInt8Params p = params_of(cs, tile);
    p.x = cs.x.data(), p.w = in.w_packed.data(), p.chan = in.chan.data();
    p.bias_i32 = cs.pr.bias_i32.empty() ? nullptr : cs.pr.bias_i32.data();
    std::vector<uint8_t> y(in.y_bytes + 16);
    // Align the output like a device allocation (fp16 stores are 8 bytes wide).
    const size_t lead = (16 - reinterpret_cast<uintptr_t>(y.data()) % 16) % 16;
    p.y = y.data() + lead;
    if (!cuda::depthwise_int8_problem(p).empty()) return {};
    cuda::depthwise_int8_run_on_host(p);
    return std::vector<uint8_t>(y.begin() + lead, y.begin() + lead + in.y_bytes);
}

/// Runs the case with `tile` on the GPU twice (two poisons) and returns "" when both match the reference. On a
/// difference the report says what the host run of the same thread program gives.
std::string run_gpu(const DwCase& cs, const DwInt8Tile& tile, std::string* described = nullptr) {
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
        const std::vector<uint8_t> got = dev.download();
        if (compare(got, want, poison, cs).empty()) continue;
        return fmt::format("{}: {}", cuda::depthwise_int8_describe(p),
                           compare(got, want, poison, cs, host_output(cs, tile)));
    }
    return {};
}

/// The same with the thread programs run on the host.
std::string run_host(const DwCase& cs, const DwInt8Tile& tile) {
    const std::vector<uint8_t> want = dw_ref_run(cs.pr, cs.x, cs.w);
    HostInputs in = host_inputs(cs);
    DwInt8Params p = params_of(cs, tile);
    p.x = cs.x.data(), p.w = in.w_packed.data(), p.chan = in.chan.data();
    p.bias_i32 = cs.pr.bias_i32.empty() ? nullptr : cs.pr.bias_i32.data();
    std::vector<uint8_t> y(in.y_bytes + 2 * kGuard + 16);
    // Align the output like a device allocation (fp16 stores are 8 bytes wide).
    const size_t lead = (16 - reinterpret_cast<uintptr_t>(y.data()) % 16) % 16;
    p.y = y.data() + lead + kGuard;
    if (std::string why = cuda::depthwise_int8_problem(p); !why.empty()) return "refused: " + why;
    for (uint8_t poison : {uint8_t{0x5a}, uint8_t{0xa5}}) {
        std::fill(y.begin(), y.end(), poison);
        cuda::depthwise_int8_run_on_host(p);
        std::vector<uint8_t> got(y.begin() + lead, y.begin() + lead + in.y_bytes + 2 * kGuard);
        if (std::string diff = compare(got, want, poison, cs); !diff.empty()) return diff;
    }
    return {};
}

/// Strip heights worth testing for P output rows: 1, 2, 3, a random one and P (each at most P).
std::vector<int> rows_to_test(std::mt19937_64& rng, int p) {
    std::vector<int> rows = {1, 2, 3, range(rng, 1, p), p};
    for (int& r : rows) r = std::min(r, p);
    std::sort(rows.begin(), rows.end());
    rows.erase(std::unique(rows.begin(), rows.end()), rows.end());
    return rows;
}

std::string fast_name(int i) {
    return fmt::format("fast k{} s{}", kDwInt8FastShapes[i].k, kDwInt8FastShapes[i].stride);
}

/// Where a case came from, for SCOPED_TRACE: the seed and how to replay it.
std::string replay(uint64_t seed, const char* test) {
    return fmt::format("seed {} (replay: STRATA_SEED={} build/tests/test_gpu --gtest_filter=GpuDepthwiseInt8.{})", seed,
                       seed, test);
}

TEST(GpuDepthwiseInt8, FastKernelsMatchReferenceExactly) {
    STRATA_REQUIRE_GPU();
    const uint64_t seed = test_seed();
    SCOPED_TRACE(replay(seed, "FastKernelsMatchReferenceExactly"));
    std::mt19937_64 rng(seed);
    for (int fast = 0; fast < cuda::kDwInt8FastCount; ++fast) {
        for (bool fp16 : {false, true}) {
            for (int rep = 0; rep < 6; ++rep) {
                const DwCase cs = random_case(rng, fast, fp16);
                for (int rows : rows_to_test(rng, cs.pr.p())) {
                    std::string described;
                    const std::string diff = run_gpu(cs, {fast, rows}, &described);
                    EXPECT_EQ(diff, "") << "tile " << fast << " (" << fast_name(fast) << ") rows " << rows << ", rep "
                                        << rep << ": " << cs.str();
                    EXPECT_EQ(described.rfind(fast_name(fast), 0), 0u) << described;
                    if (!diff.empty()) return;
                }
            }
        }
    }
}

/// A random staged form of fast shape `fast` for the case: a channel-word count that divides C / 4, column tiles,
/// strips and a strip height, redrawn until the block fits (at most kDwInt8StagedMaxThreads threads, 48 KiB).
DwInt8Tile random_staged_tile(std::mt19937_64& rng, const DwCase& cs, int fast) {
    const int cwords = cs.pr.c / 4, q_tiles = (cs.pr.q() + kDwInt8FastShapes[fast].cols - 1) /
                                              kDwInt8FastShapes[fast].cols;
    std::vector<int> cls;
    for (int cl = 4; cl <= cwords; cl += 4)
        if (cwords % cl == 0) cls.push_back(cl);
    const std::vector<int8_t> dummy(64);
    const std::vector<cuda::DwInt8Channel> chan(cs.pr.c);
    for (int attempt = 0; attempt < 100; ++attempt) {
        DwInt8Tile t{fast, range(rng, 1, cs.pr.p()), {cls[rng() % cls.size()], range(rng, 1, q_tiles), range(rng, 1, 4)}};
        DwInt8Params p = params_of(cs, t);
        p.x = p.w = dummy.data(), p.chan = chan.data(), p.y = const_cast<int8_t*>(dummy.data());
        if (cuda::depthwise_int8_problem(p).empty()) return t;
    }
    ADD_FAILURE() << "no staged tile fits " << cs.str();
    return {fast, 1, {4, 1, 1}};
}

/// The stageable fast shapes (dw_int8_stageable).
std::vector<int> stageable_shapes() {
    std::vector<int> v;
    for (int i = 0; i < cuda::kDwInt8FastCount; ++i)
        if (cuda::dw_int8_stageable(kDwInt8FastShapes[i])) v.push_back(i);
    return v;
}

TEST(GpuDepthwiseInt8, StagedKernelsMatchReferenceExactly) {
    STRATA_REQUIRE_GPU();
    const uint64_t seed = test_seed();
    SCOPED_TRACE(replay(seed, "StagedKernelsMatchReferenceExactly"));
    std::mt19937_64 rng(seed + 7);
    for (int fast : stageable_shapes()) {
        for (bool fp16 : {false, true}) {
            for (int rep = 0; rep < 6; ++rep) {
                const DwCase cs = random_case(rng, fast, fp16, true);
                for (int draw = 0; draw < 3; ++draw) {
                    const DwInt8Tile t = random_staged_tile(rng, cs, fast);
                    std::string described;
                    const std::string diff = run_gpu(cs, t, &described);
                    EXPECT_EQ(diff, "") << "staged tile of " << fast << " rows " << t.rows << " cl " << t.stage.cl
                                        << " col_tiles " << t.stage.col_tiles << " strips " << t.stage.strips
                                        << ", rep " << rep << ": " << cs.str();
                    EXPECT_EQ(described.rfind("staged", 0), 0u) << described;
                    if (!diff.empty()) return;
                }
            }
        }
    }
}

TEST(GpuDepthwiseInt8, StagedTilesOnMobileNetShapesMatchReference) {
    STRATA_REQUIRE_GPU();
    const uint64_t seed = test_seed();
    std::mt19937_64 rng(seed + 8);
    struct Layer {
        int n, c, hw, k, stride;
    };
    for (const Layer& l : {Layer{2, 144, 56, 3, 1}, Layer{1, 96, 112, 3, 2}, Layer{3, 672, 14, 5, 1},
                           Layer{2, 960, 7, 3, 1}, Layer{2, 240, 28, 5, 2}}) {
        const DwCase cs = layer_case(rng, l.n, l.c, l.hw, l.k, l.stride, rng() % 2 == 1);
        int listed = 0;
        for (const DwInt8Tile& t : cuda::depthwise_int8_tiles(params_of(cs, {}))) {
            if (t.stage.cl == 0 || (listed > 0 && rng() % 3 != 0)) continue;  // the first, then a third of the rest
            ++listed;
            EXPECT_EQ(run_gpu(cs, t), "") << cs.str() << " staged rows " << t.rows << " col_tiles "
                                          << t.stage.col_tiles << " strips " << t.stage.strips << " (seed " << seed
                                          << ")";
        }
        EXPECT_GT(listed, 0) << cs.str();
    }
}

TEST(GpuDepthwiseInt8, GenericKernelMatchesReferenceExactly) {
    STRATA_REQUIRE_GPU();
    const uint64_t seed = test_seed();
    SCOPED_TRACE(replay(seed, "GenericKernelMatchesReferenceExactly"));
    std::mt19937_64 rng(seed + 1);
    for (int rep = 0; rep < 60; ++rep) {
        // Every third case is a fast-kernel shape forced onto the generic kernel.
        const DwCase cs =
            random_case(rng, rep % 3 == 0 ? static_cast<int>(rng() % cuda::kDwInt8FastCount) : -1, rep % 2 == 1);
        std::string described;
        const std::string diff = run_gpu(cs, {-1, 1}, &described);
        ASSERT_EQ(diff, "") << "rep " << rep << ": " << cs.str();
        EXPECT_EQ(described.rfind("generic", 0), 0u) << described;
    }
}

TEST(GpuDepthwiseInt8, SelectedTilesOnMobileNetShapesMatchReference) {
    STRATA_REQUIRE_GPU();
    const uint64_t seed = test_seed();
    std::mt19937_64 rng(seed + 2);
    const int sms = cuda::device_info(0).sm_count;
    struct Layer {
        int n, c, hw, k, stride;
    };
    for (const Layer& l :
         {Layer{2, 144, 56, 3, 1}, Layer{1, 96, 112, 3, 2}, Layer{4, 672, 14, 5, 1}, Layer{1, 32, 112, 3, 1},
          Layer{2, 240, 28, 5, 2}, Layer{8, 960, 7, 3, 1}, Layer{1, 64, 30, 7, 1}, Layer{3, 24, 19, 7, 2}}) {
        for (bool fp16 : {false, true}) {
            const DwCase cs = layer_case(rng, l.n, l.c, l.hw, l.k, l.stride, fp16);
            DwInt8Params p = params_of(cs, {});
            const DwInt8Tile tile = cuda::depthwise_int8_select(p, sms);
            ASSERT_GE(tile.fast, 0) << cs.str() << " should run a fast kernel";
            std::string described;
            EXPECT_EQ(run_gpu(cs, tile, &described), "") << cs.str() << " (seed " << seed << ")";
            std::printf("[dw int8] %s: %s\n", cs.str().c_str(), described.c_str());
        }
    }
}

TEST(GpuDepthwiseInt8, LaunchIsGraphCapturable) {
    STRATA_REQUIRE_GPU();
    const uint64_t seed = test_seed();
    std::mt19937_64 rng(seed + 3);
    const DwCase cs = layer_case(rng, 2, 96, 29, 3, 1, false);
    const std::vector<uint8_t> want = dw_ref_run(cs.pr, cs.x, cs.w);
    DeviceCase dev(cs);
    DwInt8Params p = params_of(cs, {});
    p.tile = cuda::depthwise_int8_select(p, cuda::device_info(0).sm_count);
    dev.bind(p);
    ASSERT_EQ(cuda::depthwise_int8_problem(p), "");
    cuda::Stream stream;
    cudaGraph_t graph = nullptr;
    STRATA_CUDA_CHECK(cudaStreamBeginCapture(stream.get(), cudaStreamCaptureModeGlobal), "begin capture");
    cuda::depthwise_int8_launch(p, stream.get());
    cuda::depthwise_int8_launch(p, stream.get());
    STRATA_CUDA_CHECK(cudaStreamEndCapture(stream.get(), &graph), "end capture");
    cuda::check_launch("depthwise int8 capture");
    cudaGraphExec_t exec = nullptr;
    STRATA_CUDA_CHECK(cudaGraphInstantiate(&exec, graph, 0), "instantiate");
    for (uint8_t poison : {uint8_t{0x5a}, uint8_t{0xa5}}) {
        dev.poison(poison, stream.get());
        STRATA_CUDA_CHECK(cudaGraphLaunch(exec, stream.get()), "graph launch");
        stream.synchronize("graph replay");
        EXPECT_EQ(compare(dev.download(), want, poison, cs), "") << cs.str() << " (seed " << seed << ")";
    }
    STRATA_CUDA_CHECK(cudaGraphExecDestroy(exec), "destroy graph exec");
    STRATA_CUDA_CHECK(cudaGraphDestroy(graph), "destroy graph");
}

// Needs no GPU: the kernels' thread programs on the host, one simulated thread after another.
TEST(DepthwiseInt8Host, ThreadProgramsMatchReferenceExactly) {
    const uint64_t seed = test_seed();
    std::mt19937_64 rng(seed + 4);
    for (int fast = 0; fast < cuda::kDwInt8FastCount; ++fast) {
        for (bool fp16 : {false, true}) {
            for (int rep = 0; rep < 3; ++rep) {
                const DwCase cs = random_case(rng, fast, fp16);
                for (int rows : rows_to_test(rng, cs.pr.p()))
                    ASSERT_EQ(run_host(cs, {fast, rows}), "")
                        << "tile " << fast << " rows " << rows << ": " << cs.str() << " (seed " << seed << ")";
            }
        }
    }
    for (int rep = 0; rep < 30; ++rep) {
        const DwCase cs = random_case(rng, -1, rep % 2 == 1);
        ASSERT_EQ(run_host(cs, {-1, 1}), "") << "generic: " << cs.str() << " (seed " << seed << ")";
    }
}

// The report a GPU difference prints: one byte changed in a reference output must be found, placed and explained.
TEST(DepthwiseInt8Host, StagedThreadProgramsMatchReferenceExactly) {
    const uint64_t seed = test_seed();
    std::mt19937_64 rng(seed + 9);
    for (int fast : stageable_shapes()) {
        for (bool fp16 : {false, true}) {
            for (int rep = 0; rep < 3; ++rep) {
                const DwCase cs = random_case(rng, fast, fp16, true);
                for (int draw = 0; draw < 2; ++draw) {
                    const DwInt8Tile t = random_staged_tile(rng, cs, fast);
                    ASSERT_EQ(run_host(cs, t), "") << "staged tile of " << fast << " rows " << t.rows << " cl "
                                                   << t.stage.cl << " col_tiles " << t.stage.col_tiles << " strips "
                                                   << t.stage.strips << ": " << cs.str() << " (seed " << seed << ")";
                }
            }
        }
    }
}

TEST(DepthwiseInt8Host, StagedTilesAreListedExplainedAndChecked) {
    std::mt19937_64 rng(10);
    const DwCase big = layer_case(rng, 32, 144, 56, 3, 1, false);
    const std::vector<int8_t> dummy(64);
    const std::vector<cuda::DwInt8Channel> chan(big.pr.c);
    DwInt8Params p = params_of(big, {});
    p.x = p.w = dummy.data(), p.chan = chan.data(), p.y = const_cast<int8_t*>(dummy.data());
    int staged = 0;
    for (const DwInt8Tile& t : cuda::depthwise_int8_tiles(p)) {
        if (t.stage.cl == 0) continue;
        ++staged;
        p.tile = t;
        EXPECT_EQ(cuda::depthwise_int8_problem(p), "");
        const cuda::DwInt8StagedGeometry sg = cuda::depthwise_int8_staged_geometry(p);
        EXPECT_EQ(t.stage.cl, 12);  // C 144 = 36 words: the largest multiple of 4 up to 32 that divides 36
        EXPECT_LE(sg.bytes, cuda::kDwInt8StagedMaxBytes);
        EXPECT_GE(sg.threads, 64);
        EXPECT_LE(sg.threads, cuda::kDwInt8StagedMaxThreads);
        EXPECT_GE(int64_t{sg.tiles_p} * sg.tile_p, big.pr.p());
        EXPECT_GE(int64_t{sg.tiles_q} * sg.tile_q, big.pr.q());
        EXPECT_EQ(cuda::depthwise_int8_threads(p), sg.blocks * sg.threads);
        EXPECT_EQ(cuda::depthwise_int8_describe(p).rfind("staged k3 s1", 0), 0u) << cuda::depthwise_int8_describe(p);
    }
    EXPECT_GT(staged, 0);
    // What a staged tile cannot take, said plainly.
    p.tile = {0, 14, {12, 2, 2}};
    ASSERT_EQ(cuda::depthwise_int8_problem(p), "");
    DwInt8Params q = p;
    q.g.c = q.g.k = q.g.group = 136;  // C % 16 != 0: not whole 16-byte chunks
    EXPECT_NE(cuda::depthwise_int8_problem(q).find("C % 16 == 0"), std::string::npos) << cuda::depthwise_int8_problem(q);
    q = p;
    q.tile.stage.cl = 16;  // does not divide 36
    EXPECT_NE(cuda::depthwise_int8_problem(q).find("divides C / 4 = 36"), std::string::npos);
    q = p;
    q.tile.stage.col_tiles = 14, q.tile.stage.strips = 2;  // 336 threads
    EXPECT_NE(cuda::depthwise_int8_problem(q).find("threads"), std::string::npos);
    q = p;
    q.tile.rows = 56, q.tile.stage.col_tiles = 7, q.tile.stage.strips = 1;  // 58 x 30 x 48 bytes
    EXPECT_NE(cuda::depthwise_int8_problem(q).find("bytes"), std::string::npos);
    q = p;
    q.tile.fast = 10;  // k3 s1 with two rows ahead: no staged form
    EXPECT_NE(cuda::depthwise_int8_problem(q).find("no staged form"), std::string::npos);
    q = p;
    q.x = dummy.data() + 4;
    EXPECT_NE(cuda::depthwise_int8_problem(q).find("16-byte"), std::string::npos);
}

TEST(DepthwiseInt8Host, MismatchReportPlacesAndExplainsTheDifference) {
    const uint64_t seed = test_seed();
    std::mt19937_64 rng(seed + 7);
    for (bool fp16 : {false, true}) {
        const DwCase cs = random_case(rng, 0, fp16);
        const std::vector<uint8_t> want = dw_ref_run(cs.pr, cs.x, cs.w);
        std::vector<uint8_t> got(kGuard, 0x5a);
        got.insert(got.end(), want.begin(), want.end());
        got.insert(got.end(), kGuard, 0x5a);
        EXPECT_EQ(compare(got, want, 0x5a, cs), "") << cs.str();
        const size_t elems = want.size() / (fp16 ? 2 : 1), e = rng() % elems;
        got[kGuard + e * (fp16 ? 2 : 1)] ^= 1;  // one unit (int8) or one ulp (fp16) away
        const DwInt8Pos at = dw_int8_pos(cs.pr, static_cast<int64_t>(e));
        const std::string report = compare(got, want, 0x5a, cs, want);
        EXPECT_NE(report.find(fmt::format("element {} = (n {}, p {}, q {}, c {})", e, at.n, at.p, at.q, at.c)),
                  std::string::npos)
            << report;
        const int flipped = dw_int8_elem(got.data() + kGuard, static_cast<int64_t>(e), fp16);
        const bool is_poison = flipped == (fp16 ? 0x5a5a : 0x5a);
        EXPECT_NE(report.find(fmt::format("1 of {} differ; {} still hold the poison", elems, is_poison ? 1 : 0)),
                  std::string::npos)
            << report;
        EXPECT_NE(report.find("1 off by one"), std::string::npos) << report;  // flipping bit 0 moves by one unit/ulp
        EXPECT_NE(report.find("reference: acc "), std::string::npos) << report;
        EXPECT_NE(report.find("the host run gives the device's value at 0 of them"), std::string::npos) << report;
        got[kGuard + want.size()] = 0;
        EXPECT_NE(compare(got, want, 0x5a, cs).find("trailing byte 0"), std::string::npos);
    }
}

TEST(DepthwiseInt8Host, SelectorPicksFastTilesAndExplainsThem) {
    std::mt19937_64 rng(5);
    const DwCase big = layer_case(rng, 32, 144, 56, 3, 1, false);
    DwInt8Params p = params_of(big, {});
    p.tile = cuda::depthwise_int8_select(p, 132);
    ASSERT_GE(p.tile.fast, 0);
    EXPECT_EQ(kDwInt8FastShapes[p.tile.fast].k, 3);
    EXPECT_EQ(kDwInt8FastShapes[p.tile.fast].stride, 1);
    EXPECT_GE(cuda::depthwise_int8_threads(p), 132 * 1024);
    EXPECT_EQ(cuda::depthwise_int8_describe(p).rfind("fast k3 s1", 0), 0u) << cuda::depthwise_int8_describe(p);
    // Batch 1 on a small map cannot fill the GPU: the most threads there are (one output row per strip).
    const DwCase small = layer_case(rng, 1, 672, 14, 5, 1, false);
    DwInt8Params ps = params_of(small, {});
    ps.tile = cuda::depthwise_int8_select(ps, 132);
    ASSERT_GE(ps.tile.fast, 0);
    EXPECT_EQ(ps.tile.rows, 1);
    // C % 4 != 0 and dilation go to the generic kernel, with the reason in the description.
    DwCase odd = layer_case(rng, 1, 30, 20, 3, 1, false);
    DwInt8Params po = params_of(odd, {});
    EXPECT_EQ(cuda::depthwise_int8_select(po, 132).fast, -1);
    po.tile = {-1, 1};
    EXPECT_NE(cuda::depthwise_int8_describe(po).find("C 30 % 4 != 0"), std::string::npos);
    DwInt8Params pd = params_of(big, {});
    pd.g.dil_h = 2;
    EXPECT_EQ(cuda::depthwise_int8_select(pd, 132).fast, -1);
    // Every listed tile is launchable (pointers aside), and the generic kernel comes last.
    const std::vector<DwInt8Tile> tiles = cuda::depthwise_int8_tiles(p);
    ASSERT_FALSE(tiles.empty());
    EXPECT_EQ(tiles.back().fast, -1);
    const std::vector<int8_t> dummy(64);
    const std::vector<cuda::DwInt8Channel> chan(big.pr.c);
    for (DwInt8Tile t : tiles) {
        DwInt8Params q = p;
        q.tile = t;
        q.x = q.w = dummy.data();
        q.chan = chan.data();
        q.y = const_cast<int8_t*>(dummy.data());
        EXPECT_EQ(cuda::depthwise_int8_problem(q), "") << t.fast << " " << t.rows;
    }
}

TEST(DepthwiseInt8Host, ProblemsAreReported) {
    std::mt19937_64 rng(6);
    const DwCase cs = layer_case(rng, 1, 16, 9, 3, 1, false);
    const std::vector<int8_t> dummy(64);
    const std::vector<cuda::DwInt8Channel> chan(16);
    DwInt8Params p = params_of(cs, {0, 2});
    EXPECT_NE(cuda::depthwise_int8_problem(p), "");  // no pointers
    p.x = p.w = dummy.data(), p.chan = chan.data(), p.y = const_cast<int8_t*>(dummy.data());
    EXPECT_EQ(cuda::depthwise_int8_problem(p), "");
    DwInt8Params q = p;
    q.tile = {4, 2};  // a 5x5 kernel on a 3x3 shape
    EXPECT_NE(cuda::depthwise_int8_problem(q).find("fast tile 4"), std::string::npos);
    q = p;
    q.g.group = 1;
    EXPECT_NE(cuda::depthwise_int8_problem(q).find("group == C"), std::string::npos);
    q = p;
    q.tile.rows = 0;
    EXPECT_NE(cuda::depthwise_int8_problem(q), "");
    q = p;
    q.g.c = q.g.k = q.g.group = 18;  // C % 4 != 0 cannot take a fast tile
    EXPECT_NE(cuda::depthwise_int8_problem(q).find("C 18 % 4 != 0"), std::string::npos);
    // The channel table checks sizes and scales.
    cuda::DwInt8Quant quant;
    quant.w_scale.assign(16, 1.0f);
    quant.out_scale = {1.0f, 2.0f};
    EXPECT_THROW(cuda::depthwise_int8_channels(quant, 16), std::exception);
    quant.out_scale = {0.0f};
    EXPECT_THROW(cuda::depthwise_int8_channels(quant, 16), std::exception);
    quant.out_scale = {0.5f};
    quant.act = cuda::DwInt8Act::relu6;
    const std::vector<cuda::DwInt8Channel> table = cuda::depthwise_int8_channels(quant, 16);
    EXPECT_EQ(table[3].mul, 2.0f);
    EXPECT_EQ(table[3].lo, 0.0f);
    EXPECT_EQ(table[3].hi, 12.0f);
}

}  // namespace
}  // namespace strata::test
