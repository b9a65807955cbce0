// test_conv_implicit_gemm_sm90.cpp: strata's Hopper convolution (cuda.conv.implicit_gemm_sm90: wgmma from 128B-
// swizzled shared memory, cp.async ring, 16-byte-store epilogue), every config, fp16 and bf16, NHWC, against the
// reference backend: odd N*P*Q (M tails), K and C multiples of 8 but not of 64 (N tails, K tails inside a slice,
// several taps per slice), 1x1 and 3x3, strides 1/2, asymmetric pads, dilation, bias/activation/residual, ResNet-50
// layer shapes at batch 1; and what the tactic must refuse, including devices other than compute capability 9.0
// (those checks need no GPU: they call can_implement with a DeviceInfo made here).
#include "backends/cuda/kernels/conv/implicit_gemm_sm90.h"
#include "backends/cuda/param_forms.h"
#include "conv_gpu_check.h"
#include "conv_step_runner.h"

namespace strata::test {
namespace {

using ir::UnaryKind;

constexpr const char* kTactic = "cuda.conv.implicit_gemm_sm90";
const DType kDtypes[] = {DType::f16, DType::bf16};

// n c h w m | kh kw sh sw dh dw | pt pl pb pr | group bias act
const GpuConvCase kSm90Cases[] = {
    {1, 8, 5, 7, 8, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 1, false},                           // M 35, one partial slice
    {3, 64, 13, 13, 64, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 1, true, UnaryKind::Relu},       // one full slice, M 507
    {1, 8, 17, 19, 16, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1, true, UnaryKind::Relu6},       // C 8: 8 taps per slice
    {2, 24, 13, 11, 40, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 1, true},                        // C 24: taps straddle slices
    {1, 72, 15, 15, 136, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1, true, UnaryKind::SiLU},      // C, K not multiples of 64
    {1, 16, 15, 17, 24, 3, 3, 1, 1, 2, 2, 2, 2, 2, 2, 1, true},                        // dilation 2
    {1, 40, 12, 13, 72, 3, 3, 2, 1, 1, 1, 0, 1, 2, 0, 1, true, UnaryKind::HardSwish},  // asymmetric pads, strides
    {1, 200, 9, 9, 264, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1, true},                        // K 1800, N tail past 256
    {3, 136, 7, 7, 520, 1, 1, 2, 2, 1, 1, 0, 0, 0, 0, 1, true, UnaryKind::Sigmoid},    // 1x1 stride 2, M 48
    {1, 16, 4, 5, 8, 3, 3, 1, 1, 1, 1, 2, 2, 2, 2, 1, true},                           // mostly padding
    {5, 32, 9, 7, 56, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1, false, UnaryKind::Relu},        // M 315 odd, no bias
};

// ResNet-50's distinct 1x1 and 3x3 layer shapes at batch 1 (the bench runs them at batch 64).
const GpuConvCase kResnet50Cases[] = {
    {1, 64, 56, 56, 64, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 1, true, UnaryKind::Relu},
    {1, 64, 56, 56, 64, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1, true, UnaryKind::Relu},
    {1, 64, 56, 56, 256, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 1, true},
    {1, 256, 56, 56, 128, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 1, true, UnaryKind::Relu},
    {1, 128, 56, 56, 128, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 1, true, UnaryKind::Relu},
    {1, 256, 56, 56, 512, 1, 1, 2, 2, 1, 1, 0, 0, 0, 0, 1, true},
    {1, 256, 14, 14, 256, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1, true, UnaryKind::Relu},
    {1, 1024, 14, 14, 256, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 1, true, UnaryKind::Relu},
    {1, 512, 7, 7, 2048, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 1, true},
    {1, 512, 7, 7, 512, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1, true, UnaryKind::Relu},
};

TEST(GpuConvImplicitGemmSm90, EveryConfigMatchesReferenceOnShapeTable) {
    STRATA_REQUIRE_GPU();
    uint64_t seed = test_seed() + 700000;
    for (int config = 0; config < cuda::kImplicitGemmSm90NumConfigs; ++config)
        for (const GpuConvCase& cc : kSm90Cases)
            for (DType dt : kDtypes) expect_conv_matches(cc, kTactic, config, dt, Layout::nhwc, seed += 10);
}

TEST(GpuConvImplicitGemmSm90, EveryConfigMatchesReferenceOnResnet50Layers) {
    STRATA_REQUIRE_GPU();
    uint64_t seed = test_seed() + 710000;
    for (int config = 0; config < cuda::kImplicitGemmSm90NumConfigs; ++config)
        for (const GpuConvCase& cc : kResnet50Cases)
            expect_conv_matches(cc, kTactic, config, kDtypes[config % 2], Layout::nhwc, seed += 10);
}

TEST(GpuConvImplicitGemmSm90, EveryConfigMatchesReferenceOnRandomCases) {
    STRATA_REQUIRE_GPU();
    uint64_t seed = test_seed() + 720000;
    std::mt19937_64 rng(seed);
    ConvCaseLimits lim;
    lim.channels = {8, 16, 24, 40, 64, 72, 96, 136, 200};
    lim.outputs = {8, 16, 24, 40, 64, 72, 136, 264};
    lim.kernels = {1, 3, 5,
                   7};  // sm90_can_implement takes any R x S (scripts/sim_implicit_gemm_sm90.py draws these too)
    lim.max_hw = 23;
    for (int config = 0; config < cuda::kImplicitGemmSm90NumConfigs; ++config) {
        for (int i = 0; i < 16; ++i) {
            GpuConvCase cc = random_conv_case(rng, lim);
            expect_conv_matches(cc, kTactic, config, kDtypes[i % 2], Layout::nhwc, seed + 97 * config + i, i % 3 == 1);
        }
    }
}

// y = relu(conv + bias + z): the residual is read 16 bytes at a time in the epilogue, before the activation.
TEST(GpuConvImplicitGemmSm90, EveryConfigAddsResidualBeforeActivation) {
    STRATA_REQUIRE_GPU();
    uint64_t seed = test_seed() + 730000;
    const GpuConvCase cases[] = {
        {2, 16, 11, 9, 24, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1, true},
        {1, 8, 7, 6, 16, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 1, false},
        {3, 72, 9, 9, 136, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 1, true},
        {1, 64, 15, 15, 264, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 1, true, UnaryKind::SiLU},
    };
    for (int config = 0; config < cuda::kImplicitGemmSm90NumConfigs; ++config) {
        for (const GpuConvCase& cc : cases) {
            for (DType dt : kDtypes) {
                seed += 10;
                const std::string what = fmt::format("{} config {} {} residual + Relu: {} (seed {})", kTactic, config,
                                                     dtype_name(dt), cc.str(), seed);
                ConvStepResult r = run_conv_step(cc, kTactic, config, dt, Layout::nhwc, seed, {.residual = true});
                ASSERT_EQ(r.refused, "") << what;
                EXPECT_LE(r.max_rel_error, gpu_tolerance(dt)) << what;
                EXPECT_EQ(r.unwritten, 0) << what;
                // The same through the IR: Conv's input 3, the case's own activation, as the GPU builder binds it.
                auto graph = conv_case_graph(cc, seed, /*residual=*/true);
                TacticRun ir = run_tactic(*graph, 0, kTactic, config, dt, Layout::nhwc, seed);
                ASSERT_TRUE(ir.ran) << what << " (IR input 3): refused: " << ir.refused;
                EXPECT_LE(ir.max_rel_error, gpu_tolerance(dt)) << what << " (IR input 3)";
                EXPECT_EQ(ir.unwritten, 0) << what << " (IR input 3)";
            }
        }
    }
}

// Each config is sized for blocks_per_sm blocks on an SM (shared memory, and registers through __launch_bounds__).
TEST(GpuConvImplicitGemmSm90, EveryConfigReachesItsOccupancy) {
    STRATA_REQUIRE_GPU();
    if (cuda::device_info(0).compute_capability() != 90 || !cuda::implicit_gemm_sm90_compiled())
        GTEST_SKIP() << "the sm90 tactic runs on compute capability 9.0 with sm_90a code only";
    for (int config = 0; config < cuda::kImplicitGemmSm90NumConfigs; ++config) {
        for (DType dt : kDtypes) {
            ASSERT_EQ(cuda::implicit_gemm_sm90_prepare(dt, config), cudaSuccess);
            EXPECT_GE(cuda::implicit_gemm_sm90_blocks_per_sm(dt, config),
                      cuda::kImplicitGemmSm90Configs[config].blocks_per_sm)
                << cuda::implicit_gemm_sm90_config_name(config) << " " << dtype_name(dt);
        }
    }
}

TEST(GpuConvImplicitGemmSm90, RefusesWhatItDoesNotCover) {
    STRATA_REQUIRE_GPU();
    if (cuda::device_info(0).compute_capability() != 90 || !cuda::implicit_gemm_sm90_compiled())
        GTEST_SKIP() << "the sm90 tactic runs on compute capability 9.0 with sm_90a code only";
    const GpuConvCase ok{1, 16, 9, 9, 16, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1, true};
    expect_conv_matches(ok, kTactic, 0, DType::f16, Layout::nhwc, test_seed());  // the baseline does run
    expect_conv_refused(ok, kTactic, 0, DType::f32, Layout::nhwc);
    expect_conv_refused(ok, kTactic, 0, DType::f16, Layout::nchw);
    expect_conv_refused(ok, kTactic, cuda::kImplicitGemmSm90NumConfigs, DType::f16, Layout::nhwc);
    GpuConvCase grouped = ok;
    grouped.group = 2;
    expect_conv_refused(grouped, kTactic, 0, DType::f16, Layout::nhwc);
    GpuConvCase odd_c = ok;
    odd_c.c = 12;
    expect_conv_refused(odd_c, kTactic, 0, DType::bf16, Layout::nhwc);
    GpuConvCase odd_k = ok;
    odd_k.m = 20;
    expect_conv_refused(odd_k, kTactic, 0, DType::bf16, Layout::nhwc);
    GpuConvCase one_d{1, 16, 0, 21, 16, 1, 3, 1, 1, 1, 1, 0, 1, 0, 1, 1, true};
    expect_conv_refused(one_d, kTactic, 0, DType::f16, Layout::nhwc);
}

// can_implement on a StepDesc for a device described here (no GPU needed).
std::string can_implement_on(const cuda::DeviceInfo* device, int config) {
    const GpuConvCase cc{1, 16, 9, 9, 16, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1, true};
    auto graph = conv_case_graph(cc, 1);
    const ir::Node& node = graph->nodes()[0];
    cuda::StepDesc desc;
    desc.node = &node;
    desc.name = node.name;
    desc.device = device;
    for (size_t i = 0; i < node.inputs.size(); ++i)
        desc.inputs.push_back(
            cuda::value_desc(graph->value(node.inputs[i]), DType::f16, Layout::nhwc, cuda::keeps_float32(node, i)));
    desc.outputs.push_back(cuda::value_desc(graph->value(node.outputs[0]), DType::f16, Layout::nhwc));
    const cuda::CudaTactic* tactic = cuda::CudaTacticRegistry::global().find(kTactic);
    EXPECT_NE(tactic, nullptr);
    return tactic ? tactic->can_implement(desc, config) : "no tactic";
}

cuda::DeviceInfo fake_device(int major, int minor) {
    cuda::DeviceInfo d;
    d.name = "made up";
    d.cc_major = major, d.cc_minor = minor;
    d.sm_count = 100;
    d.smem_per_block_optin = 232448;  // H100/H200's 227 KiB
    return d;
}

TEST(ConvImplicitGemmSm90Tactic, RefusesDevicesOtherThanComputeCapability90) {
    for (auto [major, minor] :
         {std::pair{8, 0}, std::pair{8, 6}, std::pair{8, 9}, std::pair{10, 0}, std::pair{12, 0}}) {
        const cuda::DeviceInfo d = fake_device(major, minor);
        for (int config = 0; config < cuda::kImplicitGemmSm90NumConfigs; ++config) {
            const std::string why = can_implement_on(&d, config);
            EXPECT_NE(why.find("sm_90a"), std::string::npos) << "cc " << major << "." << minor << ": '" << why << "'";
        }
    }
    EXPECT_NE(can_implement_on(nullptr, 0), "") << "no device: it cannot know the compute capability";
}

TEST(ConvImplicitGemmSm90Tactic, AcceptsComputeCapability90ExactlyWhenCompiledIn) {
    const cuda::DeviceInfo d = fake_device(9, 0);
    for (int config = 0; config < cuda::kImplicitGemmSm90NumConfigs; ++config) {
        const std::string why = can_implement_on(&d, config);
        if (cuda::implicit_gemm_sm90_compiled())
            EXPECT_EQ(why, "") << "config " << config;
        else
            EXPECT_NE(why.find("sm_90a"), std::string::npos) << why;
        EXPECT_LE(cuda::implicit_gemm_sm90_smem_bytes(config), d.smem_per_block_optin) << "config " << config;
    }
    cuda::DeviceInfo small = d;
    small.smem_per_block_optin = 64 * 1024;  // every config wants more than this
    for (int config = 0; config < cuda::kImplicitGemmSm90NumConfigs; ++config)
        EXPECT_NE(can_implement_on(&small, config), "") << "config " << config;
}

}  // namespace
}  // namespace strata::test
