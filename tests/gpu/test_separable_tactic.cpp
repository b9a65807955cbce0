// test_separable_tactic.cpp: the tactic cuda.fused.separable (a SeparableConv step on the fused kernel of
// kernels/fused/separable.cu) against the reference backend on MobileNetV2-like blocks in fp16 and bf16: 3x3 and
// 5x5, stride 1 and 2, odd sizes that end inside a tile, biases or not, activations on either half, the residual;
// and its can_implement reasons, checked on the host without a GPU.
#include <fmt/format.h>

#include "backends/cuda/cuda_tactic.h"
#include "backends/cuda/param_forms.h"
#include "conv_gpu_check.h"

namespace strata::test {
namespace {

using ir::UnaryKind;

constexpr const char* kSep = "cuda.fused.separable";
const DType kDtypes[] = {DType::f16, DType::bf16};

struct SepCase {
    int64_t n, cm, h, w, k, kernel, stride, pad;
    bool bd, bp, residual;
    std::optional<UnaryKind> act_d, act_p;
    int64_t dilation = 1;

    std::string str() const {
        return fmt::format("N{} Cm{} H{} W{} K{} k{} s{} p{} d{} bd{} bp{} z{} act_d {} act_p {}", n, cm, h, w, k,
                           kernel, stride, pad, dilation, bd, bp, residual, act_d ? static_cast<int>(*act_d) : -1,
                           act_p ? static_cast<int>(*act_p) : -1);
    }
};

// A one-node SeparableConv graph: X (and Z) graph inputs, weights and biases constants drawn from `seed`.
std::shared_ptr<ir::Graph> sep_graph(const SepCase& sc, uint64_t seed) {
    ir::Builder b("sep");
    ir::ValueId x = b.input("x", DType::f32, {sc.n, sc.cm, sc.h, sc.w});
    ir::SeparableConvAttrs a{ir::conv2d_attrs(sc.kernel, sc.stride, sc.pad, sc.cm, sc.dilation), ir::conv2d_attrs(1)};
    if (sc.act_d) a.depthwise.activation = ir::UnaryAttrs{*sc.act_d};
    if (sc.act_p) a.pointwise.activation = ir::UnaryAttrs{*sc.act_p};
    const int64_t span = (sc.kernel - 1) * sc.dilation + 1;
    const int64_t p = (sc.h + 2 * sc.pad - span) / sc.stride + 1, q = (sc.w + 2 * sc.pad - span) / sc.stride + 1;
    std::vector<ir::ValueId> in = {
        x, b.constant("wd", random_tensor(DType::f32, {sc.cm, 1, sc.kernel, sc.kernel}, seed + 1, -0.5, 0.5)),
        sc.bd ? b.constant("bd", random_tensor(DType::f32, {sc.cm}, seed + 2)) : ir::kNoValue,
        b.constant("wp", random_tensor(DType::f32, {sc.k, sc.cm, 1, 1}, seed + 3, -0.5, 0.5)),
        sc.bp ? b.constant("bp", random_tensor(DType::f32, {sc.k}, seed + 4)) : ir::kNoValue};
    if (sc.residual) in.push_back(b.input("z", DType::f32, {sc.n, sc.k, p, q}));
    b.output(b.op(ir::OpKind::SeparableConv, in, a, "sep"), "y");
    auto g = b.finish();
    ir::infer_shapes(*g);
    return g;
}

void expect_sep_matches(const SepCase& sc, DType dtype, uint64_t seed) {
    const std::string what = fmt::format("{} {}: {} (case seed {})", kSep, dtype_name(dtype), sc.str(), seed);
    auto g = sep_graph(sc, seed);
    TacticRun r = run_tactic(*g, 0, kSep, 0, dtype, Layout::nhwc, seed);
    ASSERT_TRUE(r.ran) << what << ": refused: " << r.refused;
    EXPECT_LE(r.max_rel_error, gpu_tolerance(dtype)) << what;
    EXPECT_EQ(r.unwritten, 0) << what;
}

// MobileNetV2's separable blocks at batch 1 and 2 (their 1x1 projections: K <= 64), and the cases around them.
const SepCase kCases[] = {
    {1, 32, 112, 112, 16, 3, 1, 1, true, true, false, UnaryKind::Relu6, std::nullopt},  // features.1
    {2, 96, 56, 56, 24, 3, 2, 1, true, true, false, UnaryKind::Relu6, std::nullopt},    // features.2 (stride 2)
    {1, 144, 56, 56, 24, 3, 1, 1, true, true, true, UnaryKind::Relu6, std::nullopt},    // features.3 (residual)
    {1, 144, 56, 56, 32, 3, 2, 1, true, true, false, UnaryKind::Relu6, std::nullopt},   // features.4
    {2, 192, 28, 28, 32, 3, 1, 1, true, true, true, UnaryKind::Relu6, std::nullopt},    // features.5
    {1, 192, 28, 28, 64, 3, 2, 1, true, true, false, UnaryKind::Relu6, std::nullopt},   // features.7
    {1, 384, 14, 14, 64, 3, 1, 1, true, true, true, UnaryKind::Relu6, std::nullopt},    // features.8
    {1, 40, 13, 11, 8, 5, 1, 2, false, false, false, std::nullopt, std::nullopt},       // 5x5, no biases, odd sizes
    {3, 24, 17, 9, 40, 5, 2, 2, true, false, false, UnaryKind::SiLU, UnaryKind::HardSwish},
    {1, 8, 9, 23, 16, 3, 2, 0, false, true, true, UnaryKind::Relu, UnaryKind::Relu},     // no padding, residual + act
    {2, 16, 1, 1, 8, 3, 1, 1, true, true, false, UnaryKind::Relu6, UnaryKind::Sigmoid},  // one pixel
};

TEST(GpuSeparableTactic, MatchesReferenceOnMobileNetBlocks) {
    STRATA_REQUIRE_GPU();
    uint64_t seed = test_seed();
    for (const SepCase& sc : kCases)
        for (DType dt : kDtypes) expect_sep_matches(sc, dt, seed += 10);
}

TEST(GpuSeparableTactic, MatchesReferenceOnRandomCases) {
    STRATA_REQUIRE_GPU();
    uint64_t seed = test_seed() + 100000;
    std::mt19937_64 rng(seed);
    const std::optional<UnaryKind> kActs[] = {std::nullopt, UnaryKind::Relu, UnaryKind::Relu6, UnaryKind::SiLU,
                                              UnaryKind::HardSwish};
    for (int i = 0; i < 30; ++i) {
        SepCase sc{};
        sc.n = 1 + static_cast<int64_t>(rng() % 3);
        sc.cm = 8 * (1 + static_cast<int64_t>(rng() % 24));  // 8 .. 192: chunk tails of every size
        sc.k = 8 * (1 + static_cast<int64_t>(rng() % 8));    // 8 .. 64
        sc.kernel = rng() % 2 ? 3 : 5;
        sc.stride = rng() % 2 ? 1 : 2;
        sc.pad = static_cast<int64_t>(rng() % (sc.kernel / 2 + 1));
        sc.h = sc.kernel + static_cast<int64_t>(rng() % 30), sc.w = sc.kernel + static_cast<int64_t>(rng() % 30);
        sc.bd = rng() % 4 != 0, sc.bp = rng() % 4 != 0, sc.residual = rng() % 3 == 0;
        sc.act_d = kActs[rng() % 5], sc.act_p = kActs[rng() % 5];
        expect_sep_matches(sc, kDtypes[i % 2], seed + 13 * i);
    }
}

// can_implement's reason for the case as the builder would describe it; without `device` the device checks are off.
std::string host_reason(const SepCase& sc, DType dtype, Layout layout, const cuda::DeviceInfo* device = nullptr) {
    auto g = sep_graph(sc, 1);
    const ir::Node& node = g->nodes()[0];
    cuda::StepDesc desc;
    desc.node = &node;
    desc.name = node.name;
    desc.device = device;
    for (size_t i = 0; i < node.inputs.size(); ++i) {
        if (node.inputs[i] == ir::kNoValue) {
            desc.inputs.push_back(cuda::TensorDesc{DType::f32, Layout::rowmajor, {}, false});
            continue;
        }
        desc.inputs.push_back(cuda::value_desc(g->value(node.inputs[i]), dtype, layout, cuda::keeps_float32(node, i)));
    }
    desc.outputs.push_back(cuda::value_desc(g->value(node.outputs[0]), dtype, layout));
    const cuda::CudaTactic* tactic = cuda::CudaTacticRegistry::global().find(kSep);
    EXPECT_NE(tactic, nullptr);
    return tactic ? tactic->can_implement(desc, 0) : "no tactic";
}

TEST(GpuSeparableTactic, CanImplementReasonsOnHost) {
    const SepCase ok{1, 32, 20, 20, 16, 3, 1, 1, true, true, true, UnaryKind::Relu6, std::nullopt};
    auto expect_reason = [](const std::string& reason, const std::string& part) {
        EXPECT_NE(reason.find(part), std::string::npos) << "reason '" << reason << "' should mention '" << part << "'";
    };
    EXPECT_EQ(host_reason(ok, DType::f16, Layout::nhwc), "");
    EXPECT_EQ(host_reason(ok, DType::bf16, Layout::nhwc), "");
    SepCase five = ok;
    five.kernel = 5, five.stride = 2, five.pad = 2, five.bd = five.bp = five.residual = false;
    EXPECT_EQ(host_reason(five, DType::f16, Layout::nhwc), "");

    expect_reason(host_reason(ok, DType::f32, Layout::nhwc), "fp16 and bf16");
    expect_reason(host_reason(ok, DType::f16, Layout::nchw), "nhwc");
    SepCase dilated = ok;
    dilated.dilation = 2, dilated.pad = 2;
    expect_reason(host_reason(dilated, DType::f16, Layout::nhwc), "dilation");
    SepCase seven = ok;
    seven.kernel = 7, seven.pad = 3;
    expect_reason(host_reason(seven, DType::f16, Layout::nhwc), "3x3 or 5x5");
    SepCase stride3 = ok;
    stride3.stride = 3;
    expect_reason(host_reason(stride3, DType::f16, Layout::nhwc), "stride 1 or 2");
    SepCase odd_c = ok;
    odd_c.cm = 12;
    expect_reason(host_reason(odd_c, DType::f16, Layout::nhwc), "Cm % 8");
    SepCase wide = ok;
    wide.k = 72;
    expect_reason(host_reason(wide, DType::f16, Layout::nhwc), "K <= 64");
    SepCase odd_k = ok;
    odd_k.k = 20;
    expect_reason(host_reason(odd_k, DType::f16, Layout::nhwc), "K % 8");
}

// The device checks, on made-up devices: an H200's opt-in shared memory fits the largest block (5x5, stride 2,
// K = 64: about 127 KiB); 48 KiB does not; a Turing GPU lacks the instructions.
TEST(GpuSeparableTactic, DeviceLimitsOnHost) {
    SepCase big{1, 64, 30, 30, 64, 5, 2, 2, true, true, false, UnaryKind::Relu6, std::nullopt};
    cuda::DeviceInfo h200;
    h200.cc_major = 9, h200.cc_minor = 0, h200.smem_per_block_optin = 227 * 1024;
    EXPECT_EQ(host_reason(big, DType::f16, Layout::nhwc, &h200), "");
    cuda::DeviceInfo small = h200;
    small.smem_per_block_optin = 48 * 1024;
    EXPECT_NE(host_reason(big, DType::bf16, Layout::nhwc, &small).find("shared memory"), std::string::npos);
    cuda::DeviceInfo turing = h200;
    turing.cc_major = 7, turing.cc_minor = 5;
    EXPECT_NE(host_reason(big, DType::f16, Layout::nhwc, &turing).find("sm_80"), std::string::npos);
}

}  // namespace
}  // namespace strata::test
