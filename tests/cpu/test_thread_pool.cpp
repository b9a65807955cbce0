// test_thread_pool.cpp: ThreadPool covers every index exactly once in contiguous chunks, uses its workers, propagates
// the first exception, runs nested and concurrent parallel_for calls without deadlock, and can be reused.
#include <gtest/gtest.h>

#include <atomic>
#include <mutex>
#include <set>
#include <stdexcept>
#include <thread>
#include <vector>

#include "core/thread_pool.h"

namespace strata {
namespace {

TEST(ThreadPool, EveryIndexRunsExactlyOnce) {
    for (int threads : {1, 2, 3, 5}) {
        ThreadPool pool(threads);
        EXPECT_EQ(pool.size(), threads);
        for (int64_t n : {0, 1, 2, 7, 97, 1000, 4099}) {
            std::vector<std::atomic<int>> hits(static_cast<size_t>(n));
            pool.parallel_for(n, [&](int64_t begin, int64_t end) {
                ASSERT_LE(0, begin);
                ASSERT_LT(begin, end);
                ASSERT_LE(end, n);
                for (int64_t i = begin; i < end; ++i) hits[static_cast<size_t>(i)]++;
            });
            for (int64_t i = 0; i < n; ++i)
                ASSERT_EQ(hits[static_cast<size_t>(i)], 1) << "threads " << threads << " n " << n;
        }
    }
}

TEST(ThreadPool, DefaultSizeIsHardwareThreads) {
    ThreadPool pool;
    EXPECT_EQ(pool.size(), static_cast<int>(std::max(1u, std::thread::hardware_concurrency())));
}

TEST(ThreadPool, WorkersTakePart) {
    ThreadPool pool(3);
    std::mutex m;
    std::set<std::thread::id> seen;
    // Chunks that block briefly so one thread cannot take them all before the workers wake.
    for (int round = 0; round < 20 && seen.size() < 2; ++round)
        pool.parallel_for(12, [&](int64_t, int64_t) {
            std::this_thread::sleep_for(std::chrono::milliseconds(2));
            std::lock_guard<std::mutex> lock(m);
            seen.insert(std::this_thread::get_id());
        });
    EXPECT_GE(seen.size(), 2u);
}

TEST(ThreadPool, FirstExceptionPropagatesAndPoolStaysUsable) {
    ThreadPool pool(2);
    EXPECT_THROW(pool.parallel_for(50,
                                   [&](int64_t begin, int64_t end) {
                                       if (begin <= 17 && 17 < end) throw std::runtime_error("chunk with 17");
                                   }),
                 std::runtime_error);
    std::atomic<int64_t> sum{0};
    pool.parallel_for(100, [&](int64_t begin, int64_t end) {
        for (int64_t i = begin; i < end; ++i) sum += i;
    });
    EXPECT_EQ(sum.load(), 4950);
}

TEST(ThreadPool, NestedCallsRunInline) {
    ThreadPool pool(2);
    std::atomic<int64_t> count{0};
    pool.parallel_for(8, [&](int64_t begin, int64_t end) {
        for (int64_t i = begin; i < end; ++i) pool.parallel_for(10, [&](int64_t b, int64_t e) { count += e - b; });
    });
    EXPECT_EQ(count.load(), 80);
}

TEST(ThreadPool, ConcurrentCallersBothFinish) {
    ThreadPool pool(2);
    std::atomic<int64_t> total{0};
    auto work = [&] {
        for (int r = 0; r < 200; ++r) pool.parallel_for(33, [&](int64_t b, int64_t e) { total += e - b; });
    };
    std::thread other(work);
    work();
    other.join();
    EXPECT_EQ(total.load(), 2 * 200 * 33);
}

}  // namespace
}  // namespace strata
