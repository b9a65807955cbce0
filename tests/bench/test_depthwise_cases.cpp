// test_depthwise_cases.cpp: the arithmetic of bench/depthwise_gpu.cpp (bench/depthwise_cases.h), which can only run
// on the GPU machine: bytes against the GB/s of ../shared/anchors/README.md, the large-case rule, buffer rotation
// beyond the L2, launches per graph, rates and floors, shape selection and the acceptance summaries.
#include <gtest/gtest.h>

#include <random>

#include "../../bench/depthwise_cases.h"

namespace strata::bench::dw {
namespace {

DwShape shape(const std::string& name) {
    return select_shapes(name).at(0);
}

TEST(DepthwiseCases, AnchorShapesAndOutputSizes) {
    ASSERT_EQ(anchor_shapes().size(), 12u);
    EXPECT_EQ(anchor_shapes()[0].name(), "32x112k3s1");
    EXPECT_EQ(anchor_shapes()[11].name(), "1152x7k5s1");
    EXPECT_EQ(shape("96x112k3s2").out_hw(), 56);
    EXPECT_EQ(shape("144x56k5s2").out_hw(), 28);
    EXPECT_EQ(shape("1152x7k5s1").out_hw(), 7);
    EXPECT_EQ(shape("32x112k3s1").out_hw(), 112);
}

// The anchors' GB/s counts input + output + weights once; their times have one decimal, so the GB/s computed from
// them agrees within that rounding (and the GB/s's own).
TEST(DepthwiseCases, BytesReproduceTheAnchorsGbPerS) {
    struct Anchor {
        const char* shape;
        int64_t batch;
        DType dtype;
        double us, gbps;
    };
    const Anchor anchors[] = {
        {"32x112k3s1", 1, DType::f32, 2.7, 1194},    {"96x112k3s2", 128, DType::f32, 183.5, 4200},
        {"144x56k5s2", 32, DType::f16, 24.1, 1497},  {"240x28k5s1", 128, DType::f32, 173.4, 1111},
        {"1152x7k5s1", 1, DType::f16, 4.6, 62},      {"960x7k3s1", 32, DType::f32, 7.0, 1715},
        {"144x56k3s2", 128, DType::f16, 44.2, 3266},
    };
    for (const Anchor& a : anchors) {
        DwCase c{shape(a.shape), a.batch, a.dtype};
        double got = gb_per_s(static_cast<double>(moved_bytes(c)), a.us);
        double tolerance = a.gbps * 0.05 / a.us + 0.5 + 1e-9;
        EXPECT_NEAR(got, a.gbps, tolerance) << case_name(c);
    }
}

TEST(DepthwiseCases, BytesByHand) {
    DwCase c{shape("144x56k3s2"), 8, DType::f16};
    EXPECT_EQ(input_bytes(c), size_t{8} * 144 * 56 * 56 * 2);
    EXPECT_EQ(output_bytes(c), size_t{8} * 144 * 28 * 28 * 2);
    EXPECT_EQ(weight_bytes(c), size_t{144} * 9 * 2);
    EXPECT_EQ(moved_bytes(c), input_bytes(c) + output_bytes(c) + weight_bytes(c));
}

TEST(DepthwiseCases, LargeCasesAreTheSameForMegabytesAndMebibytes) {
    int large = 0;
    for (const DwShape& s : anchor_shapes())
        for (int64_t b : {1, 8, 32, 128})
            for (DType t : {DType::f32, DType::f16}) {
                DwCase c{s, b, t};
                size_t io = input_bytes(c) + output_bytes(c);
                EXPECT_EQ(is_large(c), io > 16'000'000u) << case_name(c);
                large += is_large(c);
                if (b == 1) {
                    EXPECT_FALSE(is_large(c)) << case_name(c);
                }
                if (b == 128) {
                    EXPECT_TRUE(is_large(c)) << case_name(c);
                }
            }
    EXPECT_GT(large, 0);
    EXPECT_TRUE(is_large(DwCase{shape("672x14k5s1"), 32, DType::f16}));  // 16.08 MiB, the closest call
    EXPECT_FALSE(is_large(DwCase{shape("32x112k3s1"), 8, DType::f16}));  // 12.25 MiB
}

TEST(DepthwiseCases, SlotsExceedFourL2sAndNoMore) {
    std::mt19937_64 rng(20261129);
    for (int i = 0; i < 2000; ++i) {
        size_t l2 = (1 + rng() % 128) << 20;
        size_t slot = 1 + rng() % (size_t{1} << 31);
        int n = slots_beyond_l2(slot, l2);
        ASSERT_GE(n, 1);
        EXPECT_GT(n * slot, kL2Multiple * l2) << "slot " << slot << " l2 " << l2;
        EXPECT_LE((n - 1) * slot, kL2Multiple * l2) << "slot " << slot << " l2 " << l2;
    }
    EXPECT_EQ(slots_beyond_l2(size_t{1} << 30, size_t{60} << 20), 1);
    EXPECT_EQ(slots_beyond_l2(size_t{16} << 20, size_t{60} << 20), 16);  // 15 x 16 MiB = 240 MiB, not beyond
    EXPECT_THROW(slots_beyond_l2(0, 1), std::invalid_argument);
}

TEST(DepthwiseCases, RotationOnlyForLargeCases) {
    const size_t l2 = size_t{60} << 20;
    for (const DwShape& s : anchor_shapes())
        for (int64_t b : {1, 8, 32, 128}) {
            DwCase c{s, b, DType::f16};
            int n = rotation_slots(c, l2);
            if (!is_large(c)) {
                EXPECT_EQ(n, 1) << case_name(c);
                continue;
            }
            EXPECT_GT(n * moved_bytes(c), kL2Multiple * l2) << case_name(c);
        }
}

TEST(DepthwiseCases, LaunchesPerGraphIsTheSmallestMultipleOfSlotsFromTwenty) {
    for (int slots = 1; slots <= 64; ++slots) {
        int n = launches_per_graph(slots);
        EXPECT_EQ(n % slots, 0) << slots;
        EXPECT_GE(n, kMinLaunchesPerGraph) << slots;
        EXPECT_LT(n - slots, kMinLaunchesPerGraph) << slots;
    }
    EXPECT_EQ(launches_per_graph(1), 20);
    EXPECT_EQ(launches_per_graph(3), 21);
    EXPECT_EQ(launches_per_graph(16), 32);
    EXPECT_THROW(launches_per_graph(0), std::invalid_argument);
    EXPECT_GE(kReplays, 15);
}

TEST(DepthwiseCases, RatesAndFloors) {
    // 1 GiB copied (2 GiB moved) in 517.5 us: 4149.6 GB/s.
    EXPECT_NEAR(copy_gb_per_s(size_t{1} << 30, 517.5), 2.0 * 1073741824 / 517.5e3, 1e-9);
    EXPECT_NEAR(gb_per_s(4.15e9, 1e6), 4.15, 1e-12);  // 4.15 GB in one second
    EXPECT_EQ(gb_per_s(1e6, 0), 0.0);
    const double copy = 4150, bytes = 77070336;
    double floor = floor_us(bytes, copy);
    EXPECT_NEAR(gb_per_s(bytes, floor), copy, 1e-6);
    EXPECT_NEAR(percent_of_copy(bytes, floor, copy), 100.0, 1e-9);
    EXPECT_NEAR(percent_of_copy(bytes, 2 * floor, copy), 50.0, 1e-9);
    EXPECT_GE(copy_probe_bytes(size_t{60} << 20), size_t{1} << 30);
    EXPECT_GE(copy_probe_bytes(size_t{256} << 20), 16 * (size_t{256} << 20));
}

TEST(DepthwiseCases, SelectShapes) {
    EXPECT_EQ(select_shapes("").size(), 12u);
    EXPECT_EQ(select_shapes("all").size(), 12u);
    auto two = select_shapes("1,144x56k3s2,12");
    ASSERT_EQ(two.size(), 3u);
    EXPECT_EQ(two[0].name(), "32x112k3s1");
    EXPECT_EQ(two[1].name(), "144x56k3s2");
    EXPECT_EQ(two[2].name(), "1152x7k5s1");
    for (const char* bad : {"0", "13", "144x56k3", "x", "1,", ",1", "1,,2", "-1", "001"})
        EXPECT_THROW(select_shapes(bad), std::invalid_argument) << bad;
}

Row row(const char* s, int64_t batch, DType dtype, double strata_us, double peer_us) {
    Row r;
    r.c = DwCase{shape(s), batch, dtype};
    r.strata.us = strata_us;
    r.peer.us = peer_us;
    return r;
}

TEST(DepthwiseCases, LargeSummary) {
    const double copy = 4000;
    DwCase big{shape("96x112k3s2"), 128, DType::f32};
    const double floor = floor_us(static_cast<double>(moved_bytes(big)), copy);
    std::vector<Row> rows = {row("96x112k3s2", 128, DType::f32, floor / 0.9, 1),  // 90%
                             row("96x112k3s2", 128, DType::f16, 1e9, 1),          // far under: fp16 moves half
                             row("32x112k3s1", 1, DType::f32, 1e9, 1)};           // small: not judged here
    LargeSummary s = summarize_large(rows, copy);
    EXPECT_EQ(s.cases, 2);
    EXPECT_EQ(s.under.size(), 1u);
    EXPECT_EQ(s.min_case, "96x112k3s2 b128 fp16");
    EXPECT_FALSE(s.met());
    rows.erase(rows.begin() + 1);
    s = summarize_large(rows, copy);
    EXPECT_NEAR(s.min_percent, 90.0, 1e-9);
    EXPECT_TRUE(s.met());
    rows.push_back(row("96x112k3s2", 128, DType::i8, 1e9, 1));  // int8 cases are judged too
    EXPECT_EQ(summarize_large(rows, copy).under.size(), 1u);
    rows.pop_back();
    rows[0].strata.us = 0;  // strata did not run
    s = summarize_large(rows, copy);
    EXPECT_EQ(s.missing.size(), 1u);
    EXPECT_FALSE(s.met());
}

TEST(DepthwiseCases, LargeSummaryKeepsTheSlowestSameSizeCopy) {
    const double copy = 4000;
    const DwCase big = row("96x112k3s2", 128, DType::f32, 1, 1).c;
    const double floor = floor_us(static_cast<double>(moved_bytes(big)), copy);
    std::vector<Row> rows = {row("96x112k3s2", 128, DType::f32, floor, 1), row("32x112k3s1", 128, DType::f32, 1, 1)};
    LargeSummary s = summarize_large(rows, copy);
    EXPECT_TRUE(s.min_copy_case.empty());  // no copy timed: nothing to report
    rows[0].same_size_copy_us = floor / 0.8;  // 80%
    const double floor2 = floor_us(static_cast<double>(moved_bytes(rows[1].c)), copy);
    rows[1].same_size_copy_us = floor2 / 0.95;  // 95%
    s = summarize_large(rows, copy);
    EXPECT_EQ(s.min_copy_case, "96x112k3s2 b128 fp32");
    EXPECT_NEAR(s.min_copy_percent, 80.0, 1e-9);
    rows[0].strata.us = 0;  // strata did not run there: the copy's reach is still reported
    EXPECT_EQ(summarize_large(rows, copy).min_copy_case, "96x112k3s2 b128 fp32");
}

TEST(DepthwiseCases, SmallSummaryPerDtype) {
    std::vector<Row> rows = {row("32x112k3s1", 1, DType::f32, 1.0, 2.0),     // 2.0
                             row("960x7k3s1", 8, DType::f32, 2.0, 2.25),     // 1.125 -> geomean 1.5
                             row("960x7k3s1", 8, DType::f16, 4.0, 2.0),      // 0.5: slower
                             row("96x112k3s2", 128, DType::f16, 1.0, 9.0)};  // large: not judged here
    std::vector<SmallSummary> s = summarize_small(rows);
    ASSERT_EQ(s.size(), 2u);
    EXPECT_EQ(s[0].dtype, DType::f32);
    EXPECT_EQ(s[0].compared, 2);
    EXPECT_NEAR(s[0].geomean, 1.5, 1e-12);
    EXPECT_TRUE(s[0].met());
    EXPECT_EQ(s[1].dtype, DType::f16);
    EXPECT_EQ(s[1].cases, 1);
    EXPECT_NEAR(s[1].geomean, 0.5, 1e-12);
    EXPECT_EQ(s[1].slower.size(), 1u);
    EXPECT_FALSE(s[1].met());
    rows[1].peer.us = 0;  // cuDNN did not run: not compared, and the summary is not met
    s = summarize_small(rows);
    EXPECT_EQ(s[0].compared, 1);
    EXPECT_EQ(s[0].missing.size(), 1u);
    EXPECT_FALSE(s[0].met());
}

TEST(DepthwiseCases, SmallSummaryNamesCasesBeyondTheLaunchFloor) {
    std::vector<Row> rows = {row("32x112k3s1", 1, DType::f16, 2.0, 2.9),   // cuDNN 2.9 < 1.5 x 2.0
                             row("960x7k3s1", 8, DType::f16, 2.0, 3.0),    // 3.0: exactly reachable
                             row("960x7k3s1", 32, DType::f16, 0, 1.0)};    // strata did not run: not judged
    std::vector<SmallSummary> s = summarize_small(rows, 2.0);
    ASSERT_EQ(s.size(), 1u);
    ASSERT_EQ(s[0].beyond_floor.size(), 1u);
    EXPECT_EQ(s[0].beyond_floor[0], "32x112k3s1 b1 fp16 (2.90 us)");
    EXPECT_TRUE(summarize_small(rows)[0].beyond_floor.empty());  // no floor measured
}

TEST(DepthwiseCases, Int8Summary) {
    std::vector<Row> rows = {row("144x56k3s1", 32, DType::i8, 5.0, 10.0),   // 0.5
                             row("144x56k3s1", 128, DType::i8, 6.0, 10.0),  // 0.6: on the target
                             row("144x56k3s1", 8, DType::i8, 9.0, 10.0)};   // batch 8: not judged
    Int8Summary s = summarize_int8(rows);
    EXPECT_EQ(s.cases, 2);
    EXPECT_NEAR(s.worst_ratio, 0.6, 1e-12);
    EXPECT_TRUE(s.met());
    rows[0].strata.us = 7.0;
    EXPECT_FALSE(summarize_int8(rows).met());
    EXPECT_EQ(summarize_int8({}).cases, 0);
    EXPECT_FALSE(summarize_int8({}).met());
}

}  // namespace
}  // namespace strata::bench::dw
