// test_separable.cpp: the fused depthwise -> pointwise kernel (backends/cuda/kernels/fused/separable.h) against a
// host computation of the same two convolutions: the depthwise result (bias, activation) rounded to the activation
// dtype, as the separate depthwise kernel would store it, then the 1x1 convolution in double with bias, residual
// and activation. MobileNetV2 and MnasNet block shapes (3x3 and 5x5, strides 1 and 2), K from 8 to 64 (every
// compiled tile count, K not a multiple of 16), Cm not a multiple of the 32-channel round (one round, several),
// maps that end inside an 8 x 16 tile and maps smaller than one, fp16 and bf16; random shapes; and the refusals.
// The output is poisoned with NaN first, so an element left unwritten cannot pass.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <optional>
#include <random>
#include <vector>

#include "backends/cuda/cuda_check.h"
#include "backends/cuda/device_buffer.h"
#include "backends/cuda/kernels/fused/separable.h"
#include "backends/reference/unary.h"
#include "core/half.h"
#include "gpu_support.h"
#include "test_support.h"

namespace strata::test {
namespace {

using ir::UnaryKind;

struct SepCase {
    int n, h, w, cm, k, r, stride;
    std::optional<UnaryKind> act_d = UnaryKind::Relu6, act_p = std::nullopt;
    bool residual = false, bias = true;
    int pad() const { return r / 2; }
    int p() const { return (h + 2 * pad() - r) / stride + 1; }
    int q() const { return (w + 2 * pad() - r) / stride + 1; }
    std::string str() const {
        return fmt::format("N{} H{} W{} Cm{} -> K{}, dw {}x{} s{} pad {}, act_d {}, act_p {}, residual {}, bias {}", n,
                           h, w, cm, k, r, r, stride, pad(), act_d ? static_cast<int>(*act_d) : -1,
                           act_p ? static_cast<int>(*act_p) : -1, residual, bias);
    }
};

uint16_t to_bits(DType dt, float v) {
    return dt == DType::f16 ? float_to_fp16(v) : float_to_bf16(v);
}
float from_bits(DType dt, uint16_t b) {
    return dt == DType::f16 ? fp16_to_float(b) : bf16_to_float(b);
}

// Random values rounded to the dtype: `bits` for the device, `vals` (the same numbers) for the host.
struct HostTensor {
    std::vector<uint16_t> bits;
    std::vector<float> vals;
};
HostTensor random_tensor(std::mt19937_64& rng, DType dt, size_t count, float lo, float hi) {
    std::uniform_real_distribution<float> u(lo, hi);
    HostTensor t;
    for (size_t i = 0; i < count; ++i) {
        t.bits.push_back(to_bits(dt, u(rng)));
        t.vals.push_back(from_bits(dt, t.bits.back()));
    }
    return t;
}

float activate(const std::optional<UnaryKind>& kind, float v) {
    if (!kind) return v;
    ir::UnaryAttrs a;
    a.kind = *kind;
    return backends::reference::apply_unary(a, v);
}

struct SepData {
    HostTensor x, wd, wp, z;  // x NHWC, wd [Cm][R*S], wp [K][Cm], z NHWC like y
    std::vector<float> bd, bp;
};

std::vector<double> host_separable(const SepCase& cs, DType dt, const SepData& d) {
    const int p = cs.p(), q = cs.q();
    std::vector<float> mid(static_cast<size_t>(cs.n) * p * q * cs.cm);
    for (int n = 0; n < cs.n; ++n)
        for (int op = 0; op < p; ++op)
            for (int oq = 0; oq < q; ++oq)
                for (int c = 0; c < cs.cm; ++c) {
                    double acc = 0;
                    for (int r = 0; r < cs.r; ++r)
                        for (int s = 0; s < cs.r; ++s) {
                            const int ih = op * cs.stride - cs.pad() + r, iw = oq * cs.stride - cs.pad() + s;
                            if (ih < 0 || ih >= cs.h || iw < 0 || iw >= cs.w) continue;
                            acc += double{d.x.vals[((size_t(n) * cs.h + ih) * cs.w + iw) * cs.cm + c]} *
                                   d.wd.vals[size_t(c) * cs.r * cs.r + r * cs.r + s];
                        }
                    const float v = activate(cs.act_d, static_cast<float>(acc + (cs.bias ? d.bd[c] : 0.0f)));
                    mid[((size_t(n) * p + op) * q + oq) * cs.cm + c] = from_bits(dt, to_bits(dt, v));
                }
    const size_t pixels = size_t(cs.n) * p * q;
    std::vector<double> y(pixels * cs.k);
    for (size_t pix = 0; pix < pixels; ++pix)
        for (int k = 0; k < cs.k; ++k) {
            double acc = cs.bias ? d.bp[k] : 0.0;
            for (int c = 0; c < cs.cm; ++c) acc += double{mid[pix * cs.cm + c]} * d.wp.vals[size_t(k) * cs.cm + c];
            if (cs.residual) acc += d.z.vals[pix * cs.k + k];
            y[pix * cs.k + k] = activate(cs.act_p, static_cast<float>(acc));
        }
    return y;
}

cuda::DeviceBuffer upload(const void* data, size_t bytes) {
    cuda::DeviceBuffer b(std::max<size_t>(bytes, 16), "test buffer");
    STRATA_CUDA_CHECK(cudaMemcpy(b.data(), data, bytes, cudaMemcpyHostToDevice), "upload");
    return b;
}

void expect_separable_matches(const SepCase& cs, DType dt, uint64_t seed) {
    const std::string what = fmt::format("{} {} (seed {})", cs.str(), dtype_name(dt), seed);
    ASSERT_EQ(cuda::separable_problem(dt, cs.cm, cs.k, cs.r, cs.r, cs.stride, cs.stride), "") << what;
    STRATA_CUDA_CHECK(cuda::separable_prepare(dt, cs.r, cs.stride, cs.k), "separable_prepare");
    std::mt19937_64 rng(seed);
    const size_t pixels = size_t(cs.n) * cs.p() * cs.q();
    SepData d;
    d.x = random_tensor(rng, dt, size_t(cs.n) * cs.h * cs.w * cs.cm, -1.0f, 1.0f);
    d.wd = random_tensor(rng, dt, size_t(cs.r) * cs.r * cs.cm, -0.5f, 0.5f);
    d.wp = random_tensor(rng, dt, size_t(cs.k) * cs.cm, -1.0f / std::sqrt(float(cs.cm)), 1.0f / std::sqrt(float(cs.cm)));
    d.z = random_tensor(rng, dt, pixels * cs.k, -1.0f, 1.0f);
    std::uniform_real_distribution<float> ub(-0.5f, 0.5f);
    for (int c = 0; c < cs.cm; ++c) d.bd.push_back(ub(rng));
    for (int k = 0; k < cs.k; ++k) d.bp.push_back(ub(rng));
    const std::vector<double> want = host_separable(cs, dt, d);

    cuda::DeviceBuffer x = upload(d.x.bits.data(), d.x.bits.size() * 2), wd = upload(d.wd.bits.data(), d.wd.bits.size() * 2);
    cuda::DeviceBuffer wp = upload(d.wp.bits.data(), d.wp.bits.size() * 2), z = upload(d.z.bits.data(), d.z.bits.size() * 2);
    cuda::DeviceBuffer bd = upload(d.bd.data(), d.bd.size() * 4), bp = upload(d.bp.data(), d.bp.size() * 4);
    cuda::DeviceBuffer y(pixels * cs.k * 2, "test output");
    STRATA_CUDA_CHECK(cudaMemset(y.data(), 0xff, y.bytes()), "poison");  // NaN in fp16 and bf16
    STRATA_CUDA_CHECK(cudaDeviceSynchronize(), "uploads");

    cuda::SeparableParams prm;
    prm.n = cs.n, prm.h = cs.h, prm.w = cs.w, prm.cm = cs.cm, prm.p = cs.p(), prm.q = cs.q(), prm.k = cs.k;
    prm.r = prm.s = cs.r, prm.stride_h = prm.stride_w = cs.stride, prm.pad_h = prm.pad_w = cs.pad();
    prm.x = x.data(), prm.wd = wd.data(), prm.wp = wp.data(), prm.y = y.data();
    prm.bd = cs.bias ? static_cast<const float*>(bd.data()) : nullptr;
    prm.act_d = cuda::activation_params(cs.act_d ? std::optional<ir::UnaryAttrs>(ir::UnaryAttrs{.kind = *cs.act_d})
                                                 : std::nullopt);
    prm.epilogue.bias = cs.bias ? static_cast<const float*>(bp.data()) : nullptr;
    prm.epilogue.residual = cs.residual ? z.data() : nullptr;
    prm.epilogue.act = cuda::activation_params(
        cs.act_p ? std::optional<ir::UnaryAttrs>(ir::UnaryAttrs{.kind = *cs.act_p}) : std::nullopt);
    cuda::separable_launch(prm, dt, nullptr);
    STRATA_CUDA_CHECK(cudaGetLastError(), "separable launch");
    STRATA_CUDA_CHECK(cudaDeviceSynchronize(), "separable kernel");
    std::vector<uint16_t> got(pixels * cs.k);
    STRATA_CUDA_CHECK(cudaMemcpy(got.data(), y.data(), got.size() * 2, cudaMemcpyDeviceToHost), "download");

    double max_want = 0, max_err = 0;
    size_t worst = 0, bad = 0;
    for (size_t i = 0; i < got.size(); ++i) {
        const double g = from_bits(dt, got[i]);
        max_want = std::max(max_want, std::fabs(want[i]));
        if (!std::isfinite(g)) ++bad;
        const double err = std::isfinite(g) ? std::fabs(g - want[i]) : INFINITY;
        if (err > max_err) max_err = err, worst = i;
    }
    EXPECT_EQ(bad, 0u) << what << ": outputs left unwritten or not finite";
    const double rel = max_err / std::max(max_want, 1e-30);
    EXPECT_LE(rel, 1e-2) << what << ": worst at pixel " << worst / cs.k << " channel " << worst % cs.k << ": got "
                         << from_bits(dt, got[worst]) << " want " << want[worst];
}

const DType kDtypes[] = {DType::f16, DType::bf16};

// n h w cm k r stride
const SepCase kCases[] = {
    {1, 13, 11, 32, 16, 3, 1},                                            // features.1: 32 -> 16, one round
    {2, 15, 16, 96, 24, 3, 2},                                            // features.2: stride 2
    {1, 9, 9, 144, 24, 3, 1, UnaryKind::Relu6, std::nullopt, true},       // features.3 with its residual
    {1, 11, 7, 192, 32, 3, 2},                                            // features.4
    {1, 7, 9, 384, 64, 3, 1, UnaryKind::Relu6, std::nullopt, true},       // K = 64, 12 rounds
    {1, 19, 35, 64, 56, 3, 1},                                            // several tiles each way, K = 56
    {1, 10, 9, 120, 40, 5, 2, UnaryKind::SiLU, UnaryKind::Relu},          // 5x5, Cm % 32 == 24, K = 40
    {2, 8, 7, 72, 24, 5, 1, UnaryKind::HardSwish, std::nullopt, true},    // 5x5 stride 1
    {1, 3, 3, 8, 8, 3, 1, UnaryKind::Relu, UnaryKind::Sigmoid},           // smallest: one channel group
    {1, 9, 13, 48, 48, 3, 2, std::nullopt, UnaryKind::HardSwish, false},  // no activation in between, no bias
    {3, 17, 33, 40, 16, 3, 2, UnaryKind::Relu6},                          // stride 2: tile edges in both directions
};

TEST(GpuSeparable, MatchesHostOnBlockShapes) {
    STRATA_REQUIRE_GPU();
    uint64_t seed = test_seed();
    for (const SepCase& cs : kCases)
        for (DType dt : kDtypes) expect_separable_matches(cs, dt, seed += 10);
}

TEST(GpuSeparable, MatchesHostOnRandomShapes) {
    STRATA_REQUIRE_GPU();
    uint64_t seed = test_seed() + 100000;
    std::mt19937_64 rng(seed);
    const std::optional<UnaryKind> kActs[] = {std::nullopt, UnaryKind::Relu, UnaryKind::Relu6, UnaryKind::SiLU,
                                              UnaryKind::HardSwish};
    for (int i = 0; i < 24; ++i) {
        SepCase cs{1 + int(rng() % 3), 1 + int(rng() % 40), 1 + int(rng() % 40), 8 * (1 + int(rng() % 40)),
                   8 * (1 + int(rng() % 8)), rng() % 3 ? 3 : 5, 1 + int(rng() % 2)};
        cs.h = std::max(cs.h, cs.r), cs.w = std::max(cs.w, cs.r);
        cs.act_d = kActs[rng() % 5], cs.act_p = kActs[rng() % 5];
        cs.residual = rng() % 3 == 0, cs.bias = rng() % 4 != 0;
        expect_separable_matches(cs, kDtypes[i % 2], seed + i);
    }
}

// Large enough that the grid is many blocks per SM: 8 x 56 x 56 pixels in 8 x 7 x 4 = 224 tiles, 5 rounds each.
TEST(GpuSeparable, ManyBlocks) {
    STRATA_REQUIRE_GPU();
    expect_separable_matches({8, 56, 56, 144, 24, 3, 1, UnaryKind::Relu6, std::nullopt, true}, DType::f16,
                             test_seed() + 200000);
}

TEST(Separable, RefusesWhatItDoesNotCover) {
    EXPECT_EQ(cuda::separable_problem(DType::f16, 144, 24, 3, 3, 1, 1), "");
    EXPECT_EQ(cuda::separable_problem(DType::bf16, 960, 64, 5, 5, 2, 2), "");
    auto expect_reason = [](const std::string& reason, const std::string& part) {
        EXPECT_NE(reason.find(part), std::string::npos) << "reason '" << reason << "' should mention '" << part << "'";
    };
    expect_reason(cuda::separable_problem(DType::f32, 144, 24, 3, 3, 1, 1), "fp16 and bf16");
    expect_reason(cuda::separable_problem(DType::f16, 144, 24, 7, 7, 1, 1), "3x3 or 5x5");
    expect_reason(cuda::separable_problem(DType::f16, 144, 24, 3, 5, 1, 1), "3x3 or 5x5");
    expect_reason(cuda::separable_problem(DType::f16, 144, 24, 3, 3, 1, 2), "stride");
    expect_reason(cuda::separable_problem(DType::f16, 144, 24, 3, 3, 3, 3), "stride");
    expect_reason(cuda::separable_problem(DType::f16, 12, 24, 3, 3, 1, 1), "Cm % 8");
    expect_reason(cuda::separable_problem(DType::f16, 144, 20, 3, 3, 1, 1), "K % 8");
    expect_reason(cuda::separable_problem(DType::f16, 576, 96, 3, 3, 1, 1), "K <= 64");
    EXPECT_EQ(cuda::separable_smem_bytes(DType::f16, 3, 1, 96), 0u);
}

}  // namespace
}  // namespace strata::test
