// test_depthwise_int8_mma.cpp: the tensor-core int8 depthwise tiles, banded (NOTE [depthwise int8 mma tile]) and
// channel-mma (NOTE [depthwise int8 channel mma]), against the host reference of the quantized arithmetic, bit for
// bit: every instantiated tile on random stride-1 shapes (k 3, 5 and 7 banded; 3 channel-mma; ragged maps, pads,
// biases, activations), the listed tiles on MobileNet shapes, the same on the host with the mma emulated from its
// fragment layout (no GPU needed: that checks the kernels' indexing, the GPU runs the layouts), and the tile lists
// and the refusals. Cases, runs and reports: depthwise_int8_cases.h.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "depthwise_int8_cases.h"

namespace strata::test {
namespace {

using namespace dw_int8_cases;

/// The first fast shape of kernel size k and stride 1: the tensor-core tiles carry its index.
int stride1_fast(int k) {
    for (int i = 0; i < cuda::kDwInt8FastCount; ++i)
        if (kDwInt8FastShapes[i].k == k && kDwInt8FastShapes[i].stride == 1) return i;
    return -1;
}

DwInt8Tile mma_tile(int k, const cuda::DwInt8Mma& m) {
    return {stride1_fast(k), 8 * m.rs, {}, m};
}

/// A stride-1 case for the tensor-core tiles: int8 out, C % 16 == 0, maps from 1 to 45 (several tiles each way).
DwCase mma_case(std::mt19937_64& rng, int k) {
    DwCase cs = random_case(rng, stride1_fast(k), false, true);
    if (rng() % 2) {
        cs.pr.h = range(rng, 1, 45), cs.pr.w = range(rng, 1, 45);
        while (cs.pr.p() < 1) ++cs.pr.h;
        while (cs.pr.q() < 1) ++cs.pr.w;
        fill_case(rng, cs, false, rng() % 5 == 0);
    }
    return cs;
}

TEST(DepthwiseInt8Host, MmaTilesMatchReferenceExactly) {
    const uint64_t seed = test_seed();
    std::mt19937_64 rng(seed + 21);
    for (int k : {3, 5, 7}) {
        for (const cuda::DwInt8Mma& m : cuda::kDwInt8MmaConfigs) {
            for (int rep = 0; rep < 2; ++rep) {
                const DwCase cs = mma_case(rng, k);
                ASSERT_EQ(run_host(cs, mma_tile(k, m)), "")
                    << "mma rs " << m.rs << " qb " << m.qb << ": " << cs.str() << " (seed " << seed << ")";
            }
        }
    }
}

TEST(GpuDepthwiseInt8, MmaKernelsMatchReferenceExactly) {
    STRATA_REQUIRE_GPU();
    const uint64_t seed = test_seed();
    SCOPED_TRACE(replay(seed, "MmaKernelsMatchReferenceExactly"));
    std::mt19937_64 rng(seed + 22);
    for (int k : {3, 5, 7}) {
        for (const cuda::DwInt8Mma& m : cuda::kDwInt8MmaConfigs) {
            for (int rep = 0; rep < 4; ++rep) {
                const DwCase cs = mma_case(rng, k);
                std::string described;
                EXPECT_EQ(run_gpu(cs, mma_tile(k, m), &described), "")
                    << "mma rs " << m.rs << " qb " << m.qb << " (" << described << "): " << cs.str();
            }
        }
    }
}

TEST(GpuDepthwiseInt8, MmaTilesOnMobileNetShapesMatchReference) {
    STRATA_REQUIRE_GPU();
    const uint64_t seed = test_seed();
    SCOPED_TRACE(replay(seed, "MmaTilesOnMobileNetShapesMatchReference"));
    std::mt19937_64 rng(seed + 23);
    struct Layer {
        int n, c, hw, k;
    };
    for (const Layer& l : {Layer{2, 144, 56, 3}, Layer{1, 32, 112, 3}, Layer{3, 672, 14, 5}, Layer{2, 960, 7, 3},
                           Layer{2, 240, 28, 5}, Layer{2, 192, 28, 7}}) {
        const DwCase cs = layer_case(rng, l.n, l.c, l.hw, l.k, 1, false);
        int listed = 0;
        for (const DwInt8Tile& t : cuda::depthwise_int8_tiles(params_of(cs, {}))) {
            if (t.mma.rs == 0) continue;
            ++listed;
            EXPECT_EQ(run_gpu(cs, t), "") << cs.str() << " mma rs " << t.mma.rs << " qb " << t.mma.qb;
        }
        EXPECT_EQ(listed, cuda::kDwInt8MmaConfigCount) << cs.str();
    }
}

DwInt8Tile diag_tile(const cuda::DwInt8Diag& d) {
    return {stride1_fast(3), cuda::dw_int8_diag_shape(3, d.rw, d.qb).tile_p, {}, {}, d};
}

TEST(DepthwiseInt8Host, ChannelMmaTilesMatchReferenceExactly) {
    const uint64_t seed = test_seed();
    std::mt19937_64 rng(seed + 25);
    for (const cuda::DwInt8Diag& d : cuda::kDwInt8DiagConfigs) {
        for (int rep = 0; rep < 3; ++rep) {
            const DwCase cs = mma_case(rng, 3);
            ASSERT_EQ(run_host(cs, diag_tile(d)), "")
                << "channel-mma rw " << d.rw << " qb " << d.qb << ": " << cs.str() << " (seed " << seed << ")";
        }
    }
}

TEST(GpuDepthwiseInt8, ChannelMmaKernelsMatchReferenceExactly) {
    STRATA_REQUIRE_GPU();
    const uint64_t seed = test_seed();
    SCOPED_TRACE(replay(seed, "ChannelMmaKernelsMatchReferenceExactly"));
    std::mt19937_64 rng(seed + 26);
    for (const cuda::DwInt8Diag& d : cuda::kDwInt8DiagConfigs) {
        for (int rep = 0; rep < 8; ++rep) {
            const DwCase cs = mma_case(rng, 3);
            std::string described;
            EXPECT_EQ(run_gpu(cs, diag_tile(d), &described), "")
                << "channel-mma rw " << d.rw << " qb " << d.qb << " (" << described << "): " << cs.str();
        }
    }
    // MobileNet shapes, every listed channel-mma tile.
    for (int hw : {112, 56, 28, 14, 7}) {
        const DwCase cs = layer_case(rng, 2, hw >= 56 ? 32 : 192, hw, 3, 1, false);
        int listed = 0;
        for (const DwInt8Tile& t : cuda::depthwise_int8_tiles(params_of(cs, {}))) {
            if (t.diag.rw == 0) continue;
            ++listed;
            EXPECT_EQ(run_gpu(cs, t), "") << cs.str() << " channel-mma rw " << t.diag.rw << " qb " << t.diag.qb;
        }
        EXPECT_EQ(listed, cuda::kDwInt8DiagConfigCount) << cs.str();
    }
    // More tiles per slab than blocks fit on the GPU at once (1 slab of 16 channels, 32 images of 112x112: 512 tiles
    // of 28x32 and more of the smaller ones against at most 3 blocks per SM): each block walks several tiles, the next
    // one's copy in flight while it computes the current one.
    const DwCase many = layer_case(rng, 32, 16, 112, 3, 1, false);
    for (const cuda::DwInt8Diag& d : cuda::kDwInt8DiagConfigs)
        EXPECT_EQ(run_gpu(many, diag_tile(d)), "") << many.str() << " channel-mma rw " << d.rw << " qb " << d.qb;
}

TEST(DepthwiseInt8Host, ChannelMmaTilesAreListedExplainedAndChecked) {
    std::mt19937_64 rng(27);
    const DwCase big = layer_case(rng, 32, 144, 56, 3, 1, false);
    HostOnlyParams host(big);
    DwInt8Params& p = host.p;
    const int listed = check_listed_tiles(
        p, [](const DwInt8Tile& t) { return t.diag.rw != 0; },
        [&](const DwInt8Tile& t) {
            const cuda::DwInt8MmaGeometry mg = cuda::depthwise_int8_mma_geometry(p);
            EXPECT_EQ(mg.tile_p * t.diag.qb, 8 * t.diag.rw);  // 8 warps, qb of them across
            EXPECT_EQ(mg.tile_q, 16 * t.diag.qb);
            EXPECT_LE(mg.bytes, size_t{48} << 10);
            EXPECT_EQ(cuda::depthwise_int8_threads(p), mg.blocks * cuda::kDwInt8MmaThreads);
            EXPECT_EQ(cuda::depthwise_int8_describe(p).rfind("channel-mma k3 s1", 0), 0u)
                << cuda::depthwise_int8_describe(p);
        });
    EXPECT_EQ(listed, cuda::kDwInt8DiagConfigCount);
    EXPECT_EQ(cuda::depthwise_int8_select(p, 132).diag.rw, 0);
    p.tile = diag_tile({4, 2});
    ASSERT_EQ(cuda::depthwise_int8_problem(p), "");
    DwInt8Params q = p;
    q.g.r = q.g.s = 5;
    q.tile.fast = stride1_fast(5);
    expect_refused(q, "3x3 stride 1");
    q = p;
    q.tile.diag = {3, 2};
    expect_refused(q, "not instantiated");
    q = p;
    q.out = cuda::DwInt8Out::fp16;
    expect_refused(q, "int8 only");
    q = p;
    q.tile.mma = {2, 1};
    expect_refused(q, "not several");
}

TEST(DepthwiseInt8Host, MmaTilesAreListedExplainedAndChecked) {
    std::mt19937_64 rng(24);
    const DwCase big = layer_case(rng, 32, 144, 56, 3, 1, false);
    HostOnlyParams host(big);
    DwInt8Params& p = host.p;
    const int listed = check_listed_tiles(
        p, [](const DwInt8Tile& t) { return t.mma.rs != 0; },
        [&](const DwInt8Tile& t) {
            const cuda::DwInt8MmaGeometry mg = cuda::depthwise_int8_mma_geometry(p);
            EXPECT_EQ(mg.tile_p, 8 * t.mma.rs);
            EXPECT_EQ(mg.tile_q, 16 * t.mma.qb);
            EXPECT_GE(mg.in_pitch, mg.tile_q + 16);  // the last 16-column block's mma reads 32 columns
            EXPECT_EQ(t.mma.rs * (mg.in_pitch / 4) % 8, 4) << "B loads spread over the banks";
            EXPECT_EQ(2 * t.mma.rs * (mg.out_pitch / 4) % 32, 8) << "epilogue stores spread over the banks";
            EXPECT_GE(int64_t{mg.tiles_p} * mg.tile_p, big.pr.p());
            EXPECT_GE(int64_t{mg.tiles_q} * mg.tile_q, big.pr.q());
            EXPECT_EQ(mg.slabs, 144 / 16);
            EXPECT_EQ(cuda::depthwise_int8_threads(p), mg.blocks * cuda::kDwInt8MmaThreads);
            EXPECT_EQ(cuda::depthwise_int8_describe(p).rfind("mma k3 s1", 0), 0u) << cuda::depthwise_int8_describe(p);
        });
    EXPECT_EQ(listed, cuda::kDwInt8MmaConfigCount);
    // The selector does not pick them before they are timed.
    EXPECT_EQ(cuda::depthwise_int8_select(p, 132).mma.rs, 0);
    // What a tensor-core tile cannot take, said plainly.
    p.tile = mma_tile(3, {2, 1});
    ASSERT_EQ(cuda::depthwise_int8_problem(p), "");
    DwInt8Params q = p;
    q.g.c = q.g.k = q.g.group = 136;
    expect_refused(q, "C % 16 == 0");
    q = p;
    q.out = cuda::DwInt8Out::fp16;
    expect_refused(q, "int8 only");
    q = p;
    q.tile.rows = 9;
    expect_refused(q, "rows 9 must be 16");
    q = p;
    q.tile.mma = {3, 1};
    q.tile.rows = 24;
    expect_refused(q, "not instantiated");
    q = p;
    q.tile.stage = {4, 1, 1};
    expect_refused(q, "not several");
    q = p;
    q.y = host.bytes.data() + 4;
    expect_refused(q, "16-byte aligned");
    // Stride 2 lists none.
    const DwCase s2 = layer_case(rng, 8, 96, 28, 3, 2, false);
    for (const DwInt8Tile& t : cuda::depthwise_int8_tiles(params_of(s2, {}))) EXPECT_EQ(t.mma.rs, 0);
}

}  // namespace
}  // namespace strata::test
