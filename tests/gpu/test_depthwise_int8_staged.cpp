// test_depthwise_int8_staged.cpp: the staged int8 depthwise tiles (NOTE [depthwise int8 staged tile]) against the
// host reference of the quantized arithmetic, bit for bit, for int8 and fp16 output: random staged forms of every
// stageable fast shape, the listed tiles on MobileNet shapes, the host runs of the same thread programs (no GPU
// needed), and the tile list and the refusals. Cases, runs and reports: depthwise_int8_cases.h.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "depthwise_int8_cases.h"

namespace strata::test {
namespace {

using namespace dw_int8_cases;

/// A random staged form of fast shape `fast` for the case: a channel-word count that divides C / 4, column tiles,
/// strips and a strip height, redrawn until the block fits (at most kDwInt8StagedMaxThreads threads, 48 KiB).
DwInt8Tile random_staged_tile(std::mt19937_64& rng, const DwCase& cs, int fast) {
    const int cwords = cs.pr.c / 4,
              q_tiles = (cs.pr.q() + kDwInt8FastShapes[fast].cols - 1) / kDwInt8FastShapes[fast].cols;
    std::vector<int> cls;
    for (int cl = 4; cl <= cwords; cl += 4)
        if (cwords % cl == 0) cls.push_back(cl);
    const std::vector<int8_t> dummy(64);
    const std::vector<cuda::DwInt8Channel> chan(cs.pr.c);
    for (int attempt = 0; attempt < 100; ++attempt) {
        const cuda::DwInt8Stage stage{cls[rng() % cls.size()], range(rng, 1, q_tiles), range(rng, 1, 4)};
        DwInt8Tile t{fast, range(rng, 1, cs.pr.p()), stage};
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
            EXPECT_EQ(run_gpu(cs, t), "") << cs.str() << " staged rows " << t.rows << " col_tiles " << t.stage.col_tiles
                                          << " strips " << t.stage.strips << " (seed " << seed << ")";
        }
        EXPECT_GT(listed, 0) << cs.str();
    }
}

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
    HostOnlyParams host(big);
    DwInt8Params& p = host.p;
    const int staged = check_listed_tiles(
        p, [](const DwInt8Tile& t) { return t.stage.cl != 0; },
        [&](const DwInt8Tile& t) {
            const cuda::DwInt8StagedGeometry sg = cuda::depthwise_int8_staged_geometry(p);
            EXPECT_EQ(t.stage.cl, 12);  // C 144 = 36 words: the largest multiple of 4 up to 32 that divides 36
            EXPECT_LE(sg.bytes, cuda::kDwInt8StagedMaxBytes);
            EXPECT_GE(sg.threads, 64);
            EXPECT_LE(sg.threads, cuda::kDwInt8StagedMaxThreads);
            EXPECT_GE(int64_t{sg.tiles_p} * sg.tile_p, big.pr.p());
            EXPECT_GE(int64_t{sg.tiles_q} * sg.tile_q, big.pr.q());
            EXPECT_EQ(cuda::depthwise_int8_threads(p), sg.blocks * sg.threads);
            EXPECT_EQ(cuda::depthwise_int8_describe(p).rfind("staged k3 s1", 0), 0u)
                << cuda::depthwise_int8_describe(p);
        });
    EXPECT_GT(staged, 0);
    // What a staged tile cannot take, said plainly.
    p.tile = {0, 14, {12, 2, 2}};
    ASSERT_EQ(cuda::depthwise_int8_problem(p), "");
    DwInt8Params q = p;
    q.g.c = q.g.k = q.g.group = 136;  // C % 16 != 0: not whole 16-byte chunks
    expect_refused(q, "C % 16 == 0");
    q = p;
    q.tile.stage.cl = 16;  // does not divide 36
    expect_refused(q, "divides C / 4 = 36");
    q = p;
    q.tile.stage.col_tiles = 14, q.tile.stage.strips = 2;  // 336 threads
    expect_refused(q, "threads");
    q = p;
    q.tile.rows = 56, q.tile.stage.col_tiles = 7, q.tile.stage.strips = 1;  // 58 x 30 x 48 bytes
    expect_refused(q, "bytes");
    q = p;
    q.tile.fast = 10;  // k3 s1 with two rows ahead: no staged form
    expect_refused(q, "no staged form");
    q = p;
    q.x = host.bytes.data() + 4;
    expect_refused(q, "16-byte");
}

}  // namespace
}  // namespace strata::test
