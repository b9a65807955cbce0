// test_timing_cache.cpp: the timing cache file (src/build/cuda/timing_cache.h). It needs no GPU, but it lives with
// the CUDA builder, so it is built (and run, also on the CPU machine) only where the CUDA backend is.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <random>
#include <string>

#include "build/cuda/timing_cache.h"

namespace strata::build {
namespace {

std::string fresh_cache_path() {
    std::random_device seed;
    return (std::filesystem::temp_directory_path() / ("strata_timing_" + std::to_string(seed()) + ".cache")).string();
}

double random_ms(std::mt19937& rng) { return std::uniform_real_distribution<double>(0.001, 10.0)(rng); }

TEST(TimingCacheFile, ReloadsWhatWasSaved) {
    const std::string path = fresh_cache_path();
    std::mt19937 rng(std::random_device{}());
    const double ms = random_ms(rng);
    {
        TimingCache cache(path);
        EXPECT_FALSE(cache.find("gpu|cuda.conv#3|n2c64").has_value());
        cache.put("gpu|cuda.conv#3|n2c64", ms);
        cache.save();
    }
    TimingCache again(path);
    ASSERT_TRUE(again.find("gpu|cuda.conv#3|n2c64").has_value());
    EXPECT_NEAR(*again.find("gpu|cuda.conv#3|n2c64"), ms, 1e-5 * ms);
    std::filesystem::remove(path);
}

// Two builds that read the same file and then each save (test shards side by side, two `strata build`s at once)
// used to leave only the last one's entries: the first one's timings were lost.
TEST(TimingCacheFile, TwoCachesSavingTheSameFileKeepBothTheirEntries) {
    const std::string path = fresh_cache_path();
    std::mt19937 rng(std::random_device{}());
    const double ms_a = random_ms(rng), ms_b = random_ms(rng), ms_shared_b = random_ms(rng);
    TimingCache a(path), b(path);
    a.put("key-a", ms_a);
    a.put("key-shared", random_ms(rng));
    b.put("key-b", ms_b);
    b.put("key-shared", ms_shared_b);
    a.save();
    b.save();
    TimingCache merged(path);
    ASSERT_TRUE(merged.find("key-a").has_value()) << "the first save's entry was lost";
    ASSERT_TRUE(merged.find("key-b").has_value());
    EXPECT_NEAR(*merged.find("key-a"), ms_a, 1e-5 * ms_a);
    EXPECT_NEAR(*merged.find("key-b"), ms_b, 1e-5 * ms_b);
    // Where both timed the same key, the later save's own measurement is the one kept.
    EXPECT_NEAR(*merged.find("key-shared"), ms_shared_b, 1e-5 * ms_shared_b);
    std::filesystem::remove(path);
}

TEST(TimingCacheFile, AnUnreadableLineIsSkippedNotFatal) {
    const std::string path = fresh_cache_path();
    {
        TimingCache cache(path);
        cache.put("good", 1.5);
        cache.save();
    }
    std::ofstream(path, std::ios::app) << "no tab on this line\nbad\tnot-a-number\n";
    TimingCache cache(path);
    EXPECT_TRUE(cache.find("good").has_value());
    EXPECT_FALSE(cache.find("bad").has_value());
    std::filesystem::remove(path);
}

}  // namespace
}  // namespace strata::build
