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
#include <gtest/gtest.h>

#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "depthwise_int8_cases.h"

namespace strata::test {
namespace {

using namespace dw_int8_cases;

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
