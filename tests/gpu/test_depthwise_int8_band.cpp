// test_depthwise_int8_band.cpp: the NCHW int8 band tiles (NOTE [depthwise int8 nchw band]) against the host reference
// of the quantized arithmetic, bit for bit: on the host with the mma emulated from its fragment layout (no GPU needed:
// every index of the kernel's pieces), on the GPU (the fragment layouts themselves), on MobileNet shapes, and the
// refusals. The reference is NHWC: the cases' nchw flag has depthwise_int8_cases.h transpose in and out.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include "backends/cuda/kernels/depthwise/depthwise_int8_band.h"
#include "core/check.h"
#include "depthwise_int8_cases.h"

namespace strata::test {
namespace {

using namespace dw_int8_cases;

DwInt8Tile band_tile(int per_warp) {
    return DwInt8Tile(-1, 1, {}, {}, {}, cuda::DwInt8Band{per_warp});
}

DwInt8Params band_params(const DwCase& cs, int per_warp) {
    DwInt8Params p = params_of(cs, band_tile(per_warp));
    p.nchw = true;
    return p;
}

/// A stride-1 case the band tiles take: k 3 or 5, any C, W a multiple of 4 (up to 72), planes up to 4096 bytes copied in
/// up to 32 passes, random pads
/// (up to k - 1 each side), biases, activations, int8 out; the right pad and W moved until Q meets the column tiles as
/// `cols` says (the kernel has a variant for each).
DwCase band_case(std::mt19937_64& rng, int k, cuda::DwInt8BandCols cols) {
    DwCase cs;
    DwInt8RefProblem& pr = cs.pr;
    pr.n = range(rng, 1, 3);
    pr.c = rng() % 3 == 0 ? range(rng, 1, 7) : range(rng, 8, 40);
    pr.kh = pr.kw = k;
    pr.pad_top = range(rng, 0, k - 1), pr.pad_bottom = range(rng, 0, k - 1);
    pr.pad_left = range(rng, 0, k - 1), pr.pad_right = range(rng, 0, k - 1);
    pr.w = 4 * range(rng, 1, rng() % 2 ? 6 : 16);
    pr.h = range(rng, 1, std::min(64, 4096 / pr.w));
    while (pr.q() < 1) pr.w += 4;
    // Q = W + pads - k + 1: the right pad (0 .. k - 1) and W, W + 4, W + 8 reach every Q % 8 with Q >= 1.
    const int w0 = pr.w;
    for (int tries = 0; pr.q() < 1 || cuda::dw_int8_band_cols(pr.q()) != cols; ++tries) {
        STRATA_ASSERT(tries < 3 * k, "no right pad and W give column case {}", static_cast<int>(cols));
        pr.pad_right = tries % k, pr.w = w0 + 4 * (tries / k);
    }
    // Planes of up to 4096 bytes that a warp copies in up to 32 passes of 32 / (W / 4) rows.
    pr.h = std::min({pr.h, 4096 / pr.w, 32 * std::max(1, 32 / (pr.w / 4))});
    while (pr.p() < 1) ++pr.h;
    fill_case(rng, cs, false, rng() % 5 == 0);
    cs.nchw = true;
    return cs;
}

constexpr cuda::DwInt8BandCols kBandCols[] = {cuda::DwInt8BandCols::whole, cuda::DwInt8BandCols::even,
                                               cuda::DwInt8BandCols::odd};

TEST(DepthwiseInt8Host, BandTilesMatchReferenceExactly) {
    const uint64_t seed = test_seed();
    std::mt19937_64 rng(seed + 31);
    for (int k : {3, 5})
        for (int per_warp : cuda::kDwInt8BandPerWarp)
            for (int rep = 0; rep < 3; ++rep) {
                const DwCase cs = band_case(rng, k, kBandCols[rep % 3]);
                ASSERT_EQ(run_host(cs, band_tile(per_warp)), "")
                    << "band, " << per_warp << " planes a warp: " << cs.str() << " (seed " << seed << ")";
            }
}

TEST(GpuDepthwiseInt8, BandKernelsMatchReferenceExactly) {
    STRATA_REQUIRE_GPU();
    const uint64_t seed = test_seed();
    SCOPED_TRACE(replay(seed, "BandKernelsMatchReferenceExactly"));
    std::mt19937_64 rng(seed + 32);
    for (int k : {3, 5})
        for (int per_warp : cuda::kDwInt8BandPerWarp)
            for (int rep = 0; rep < 6; ++rep) {
                const DwCase cs = band_case(rng, k, kBandCols[rep % 3]);
                std::string described;
                EXPECT_EQ(run_gpu(cs, band_tile(per_warp), &described), "") << described << ": " << cs.str();
            }
}

TEST(GpuDepthwiseInt8, BandTilesOnMobileNetShapesMatchReference) {
    STRATA_REQUIRE_GPU();
    const uint64_t seed = test_seed();
    SCOPED_TRACE(replay(seed, "BandTilesOnMobileNetShapesMatchReference"));
    std::mt19937_64 rng(seed + 33);
    struct Layer {
        int n, c, hw, k;
    };
    for (const Layer& l : {Layer{2, 144, 56, 3}, Layer{3, 240, 28, 5}, Layer{2, 192, 28, 3}, Layer{1, 40, 56, 5}}) {
        DwCase cs = layer_case(rng, l.n, l.c, l.hw, l.k, 1, false);
        cs.nchw = true;
        DwInt8Params p = band_params(cs, 1);
        const std::vector<DwInt8Tile> tiles = cuda::depthwise_int8_tiles(p);
        EXPECT_EQ(tiles.size(), std::size(cuda::kDwInt8BandPerWarp)) << cs.str();
        for (const DwInt8Tile& t : tiles) EXPECT_EQ(run_gpu(cs, t), "") << cs.str();
    }
}

TEST(DepthwiseInt8Host, BandTilesRefuseWhatTheyCannotRun) {
    std::mt19937_64 rng(test_seed() + 34);
    const DwCase cs = layer_case(rng, 1, 16, 28, 5, 1, false);
    alignas(16) static int8_t storage[64];
    static cuda::DwInt8Channel chan[1];
    auto problem = [&](DwInt8Params p) {
        p.x = storage, p.w = storage, p.y = storage, p.chan = chan;
        return cuda::depthwise_int8_problem(p);
    };
    EXPECT_EQ(problem(band_params(cs, 2)), "");
    DwInt8Params nhwc_band = band_params(cs, 2);
    nhwc_band.nchw = false;
    EXPECT_NE(problem(nhwc_band).find("NCHW"), std::string::npos);
    DwInt8Params nchw_fast = params_of(cs, cuda::depthwise_int8_select(params_of(cs, {}), 132));
    nchw_fast.nchw = true;
    EXPECT_NE(problem(nchw_fast).find("band tiles"), std::string::npos);
    DwCase odd = layer_case(rng, 1, 16, 14, 3, 1, false);
    EXPECT_NE(problem(band_params(odd, 1)).find("W 14 % 4"), std::string::npos);
    DwCase strided = layer_case(rng, 1, 16, 28, 3, 2, false);
    EXPECT_NE(problem(band_params(strided, 1)).find("stride 1"), std::string::npos);
    DwCase seven = layer_case(rng, 1, 16, 28, 7, 1, false);
    EXPECT_NE(problem(band_params(seven, 1)).find("3x3 and 5x5"), std::string::npos);
    DwCase fp16 = layer_case(rng, 1, 16, 28, 3, 1, true);
    EXPECT_NE(problem(band_params(fp16, 1)).find("int8 only"), std::string::npos);
    DwCase big = layer_case(rng, 1, 16, 112, 3, 1, false);
    EXPECT_NE(problem(band_params(big, 1)).find("planes of up to"), std::string::npos);
    EXPECT_TRUE(cuda::depthwise_int8_tiles(band_params(big, 1)).empty());
    DwCase wide = layer_case(rng, 1, 16, 28, 3, 1, false);  // 8 rows of 132 bytes: one row is more than a warp's pass
    wide.pr.h = 8, wide.pr.w = 132;
    EXPECT_NE(problem(band_params(wide, 1)).find("rows of up to 128 bytes"), std::string::npos);
    DwCase tall = layer_case(rng, 1, 16, 28, 3, 1, false);  // 60 rows of 68 bytes (4080): a row a pass, 60 passes
    tall.pr.h = 60, tall.pr.w = 68;
    EXPECT_NE(problem(band_params(tall, 1)).find("needs 60"), std::string::npos);
    EXPECT_EQ(cuda::depthwise_int8_select(band_params(big, 1), 132).band.per_warp, 0);
    EXPECT_GT(cuda::depthwise_int8_select(band_params(cs, 1), 132).band.per_warp, 0);
}

}  // namespace
}  // namespace strata::test
