// test_conv_pdl.cpp: the convolution kernels with a programmatic dependent launch path (the sm90 implicit GEMM and
// the narrow pointwise kernel; NOTE [programmatic dependent launch], backends/cuda/pdl.h): chains of launches with
// PDL give the plain chain bit for bit (pdl_chain.h). Clip bounds every layer's output, so that the chain's values
// stay finite and every launch's result matters to the last one.
#include "backends/cuda/device.h"
#include "backends/cuda/kernels/conv/implicit_gemm_sm90.h"
#include "pdl_chain.h"

namespace strata::test {
namespace {

struct ConvPdlCase {
    const char* tactic;
    GpuConvCase conv;
    DType dtype;
    int config;
};

/// C == K and the same map in and out, so that a chain can ping-pong between two buffers.
GpuConvCase same_shape_conv(int64_t n, int64_t c, int64_t hw, int64_t k) {
    const int64_t p = k / 2;
    return GpuConvCase{n, c, hw, hw, c, k, k, 1, 1, 1, 1, p, p, p, p, 1, true, ir::UnaryKind::Clip, -1.5f, 2.0f};
}

TEST(GpuConvPdl, ChainsGiveThePlainLaunchesBitForBit) {
    STRATA_REQUIRE_GPU();
    const int cc = cuda::device_info(0).compute_capability();
    const bool pdl_device = cc >= 90;
    const int last_sm90 = cuda::kImplicitGemmSm90NumConfigs - 1;
    // Batch 1 (one wave: the next launch's blocks can be resident while this one runs) and multi-wave batches.
    const ConvPdlCase cases[] = {
        {"cuda.conv.implicit_gemm_sm90", same_shape_conv(1, 64, 14, 3), DType::f16, 0},
        {"cuda.conv.implicit_gemm_sm90", same_shape_conv(16, 128, 28, 3), DType::f16, last_sm90},
        {"cuda.conv.implicit_gemm_sm90", same_shape_conv(8, 64, 28, 1), DType::bf16, 0},
        {"cuda.conv.pointwise_narrow", same_shape_conv(1, 32, 56, 1), DType::f16, 0},
        {"cuda.conv.pointwise_narrow", same_shape_conv(8, 64, 28, 1), DType::bf16, 0},
        {"cuda.conv.pointwise_narrow", same_shape_conv(32, 16, 56, 1), DType::f16, 0},
    };
    uint64_t seed = test_seed() + 9000;
    int ran = 0;
    for (const ConvPdlCase& pc : cases) {
        seed += 10;
        auto graph = conv_case_graph(pc.conv, seed);
        const cuda::StepDesc desc = make_desc(*graph, graph->nodes()[0], pc.dtype, Layout::nhwc);
        const std::string what = fmt::format("{} config {} {}: {} (seed {})", pc.tactic, pc.config,
                                             dtype_name(pc.dtype), pc.conv.str(), seed);
        const cuda::CudaTactic* tactic = cuda::CudaTacticRegistry::global().find(pc.tactic);
        ASSERT_NE(tactic, nullptr) << what;
        const std::string refused = tactic->can_implement(desc, pc.config);
        if (cc == 90) {
            ASSERT_EQ(refused, "") << what;  // the H200: both kernels must take every case
        }
        if (!refused.empty()) continue;  // the sm90 kernel elsewhere
        expect_pdl_chain_matches(*graph, desc, pc.tactic, pc.config, pdl_device, seed, what);
        ++ran;
    }
    EXPECT_GT(ran, 0) << "the narrow pointwise kernel runs on every sm_80+ device";
}

}  // namespace
}  // namespace strata::test
