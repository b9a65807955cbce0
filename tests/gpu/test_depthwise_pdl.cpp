// test_depthwise_pdl.cpp: the depthwise kernels launched with programmatic dependent launch (NOTE [programmatic
// dependent launch], backends/cuda/pdl.h): chains of launches against the plain chain (pdl_chain.h), and the policy.
#include <cstdlib>

#include "backends/cuda/device.h"
#include "backends/cuda/pdl.h"
#include "pdl_chain.h"

namespace strata::test {
namespace {

const char* kTactic = "cuda.conv.depthwise";

struct PdlCase {
    GpuConvCase conv;
    DType dtype;
    Layout layout;
    int config;  ///< 0 = the selector's tile; 3 = a forced strip; 9 / 11 = staged, one block per tile / persistent;
                 ///< 28 / 30 = blocked walkers, two chains, the tile copied by cp.async / by the TMA
};

TEST(GpuDepthwisePdl, ChainsGiveThePlainLaunchesBitForBit) {
    STRATA_REQUIRE_GPU();
    const bool pdl_device = cuda::device_info(0).compute_capability() >= 90;
    auto dw = [](int64_t n, int64_t c, int64_t hw, int64_t k) {
        const int64_t p = k / 2;
        return GpuConvCase{n, c, hw, hw, c, k, k, 1, 1, 1, 1, p, p, p, p, c, true, ir::UnaryKind::Relu6};
    };
    // Batch 1 (one wave: the next launch's blocks can be resident while this one runs) and a multi-wave batch.
    const PdlCase cases[] = {
        {dw(1, 64, 28, 3), DType::f16, Layout::nhwc, 0},   {dw(16, 64, 56, 3), DType::f16, Layout::nhwc, 0},
        {dw(2, 96, 29, 5), DType::f32, Layout::nhwc, 3},   {dw(1, 32, 40, 3), DType::f16, Layout::nchw, 0},
        {dw(8, 48, 33, 7), DType::bf16, Layout::nchw, 0},  {dw(1, 128, 14, 3), DType::f16, Layout::nhwc, 9},
        {dw(16, 64, 56, 5), DType::f16, Layout::nhwc, 11}, {dw(4, 72, 30, 3), DType::bf16, Layout::nhwc, 11},
        {dw(4, 64, 28, 5), DType::f16, Layout::nhwc, 28},  {dw(4, 64, 28, 5), DType::f16, Layout::nhwc, 30},
        {dw(2, 32, 20, 3), DType::f32, Layout::nhwc, 30},  {dw(4, 64, 28, 5), DType::f16, Layout::nhwc, 31},
    };
    uint64_t seed = test_seed() + 7000;
    for (const PdlCase& pc : cases) {
        seed += 10;
        auto graph = conv_case_graph(pc.conv, seed);
        const cuda::StepDesc desc = make_desc(*graph, graph->nodes()[0], pc.dtype, pc.layout);
        const std::string what = fmt::format("{} config {} {} {}: {} (seed {})", kTactic, pc.config,
                                             dtype_name(pc.dtype), layout_name(pc.layout), pc.conv.str(), seed);
        const cuda::CudaTactic* tactic = cuda::CudaTacticRegistry::global().find(kTactic);
        ASSERT_NE(tactic, nullptr);
        ASSERT_EQ(tactic->can_implement(desc, pc.config), "") << what;
        expect_pdl_chain_matches(*graph, desc, kTactic, pc.config, pdl_device, seed, what);
    }
}

// The policy: off unless STRATA_PDL=1 asks for it (pdl.h says why), and never before sm_90 (no griddepcontrol there).
TEST(GpuDepthwisePdl, PolicyNeedsTheSwitchAndSm90) {
    unsetenv("STRATA_PDL");
    EXPECT_FALSE(cuda::use_pdl(90));
    {
        EnvSwitchScope off("STRATA_PDL", "0");
        EXPECT_FALSE(cuda::use_pdl(90));
    }
    EnvSwitchScope on("STRATA_PDL", "1");
    EXPECT_TRUE(cuda::use_pdl(90));
    EXPECT_TRUE(cuda::use_pdl(100));
    EXPECT_FALSE(cuda::use_pdl(89));
    EXPECT_FALSE(cuda::use_pdl(80));
    EXPECT_FALSE(cuda::use_pdl(static_cast<const cuda::DeviceInfo*>(nullptr)));  // a step that does not know its GPU
}

}  // namespace
}  // namespace strata::test
