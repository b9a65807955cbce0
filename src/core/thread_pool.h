// thread_pool.h: a fixed set of worker threads for the CPU backend's data-parallel loops.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>

namespace strata {

class ThreadPool {
public:
    /// `threads` workers including the caller; 0 = one per hardware thread.
    explicit ThreadPool(int threads = 0);
    ~ThreadPool();
    ThreadPool(const ThreadPool&) = delete;
    ThreadPool& operator=(const ThreadPool&) = delete;

    int size() const;
    /// Splits [0, n) into contiguous chunks, runs fn(begin, end) on them across the workers and the calling thread,
    /// and returns when all are done. Exceptions thrown by fn are rethrown here (the first one).
    void parallel_for(int64_t n, const std::function<void(int64_t begin, int64_t end)>& fn);

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

}  // namespace strata
