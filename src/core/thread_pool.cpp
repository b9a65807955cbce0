// thread_pool.cpp: the CPU backend's worker threads. Workers sleep on a condition variable between jobs (no spinning:
// the machine's other cores may be busy inside OpenBLAS); a job is split into contiguous chunks that the workers and
// the caller take from one atomic counter, so uneven chunks balance themselves.
// A worker joins a job only while the caller still accepts helpers; once the caller has run out of chunks it stops
// accepting and waits just for the workers that joined. So a worker the OS schedules late (a loaded machine) never
// delays the caller: it wakes, finds the job closed and sleeps again.
#include "core/thread_pool.h"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace strata {

namespace {
// Set while a thread runs chunks of a job: a parallel_for from inside one runs inline instead of deadlocking.
thread_local bool t_inside_job = false;
// More chunks than threads so that a slow chunk (a busy core, a border-heavy plane) does not hold up the rest.
constexpr int64_t kChunksPerThread = 4;
}  // namespace

struct ThreadPool::Impl {
    std::vector<std::thread> workers;
    std::mutex submit;  // one job at a time; a second concurrent caller runs its loop inline
    std::mutex mutex;
    std::condition_variable wake;
    std::condition_variable done;
    bool stop = false;
    uint64_t generation = 0;  // bumped per job; a worker looks at each generation once
    bool accepting = false;   // the current job still takes helpers
    int active = 0;           // workers inside the current job

    const std::function<void(int64_t, int64_t)>* fn = nullptr;
    int64_t n = 0;
    int64_t chunk = 0;
    int64_t num_chunks = 0;
    std::atomic<int64_t> next{0};
    std::exception_ptr error;

    void run_chunks();
    void worker_loop();
};

void ThreadPool::Impl::run_chunks() {
    t_inside_job = true;
    for (;;) {
        int64_t c = next.fetch_add(1, std::memory_order_relaxed);
        if (c >= num_chunks) break;
        int64_t begin = c * chunk;
        int64_t end = std::min(n, begin + chunk);
        try {
            (*fn)(begin, end);
        } catch (...) {
            std::lock_guard<std::mutex> lock(mutex);
            if (!error) error = std::current_exception();
            next.store(num_chunks, std::memory_order_relaxed);  // skip the chunks not yet started
        }
    }
    t_inside_job = false;
}

void ThreadPool::Impl::worker_loop() {
    uint64_t seen = 0;
    std::unique_lock<std::mutex> lock(mutex);
    for (;;) {
        wake.wait(lock, [&] { return stop || generation != seen; });
        if (stop) return;
        seen = generation;
        if (!accepting) continue;
        ++active;
        lock.unlock();
        run_chunks();
        lock.lock();
        if (--active == 0) done.notify_one();
    }
}

ThreadPool::ThreadPool(int threads) : impl_(std::make_unique<Impl>()) {
    if (threads <= 0) threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    for (int i = 1; i < threads; ++i) impl_->workers.emplace_back([this] { impl_->worker_loop(); });
}

ThreadPool::~ThreadPool() {
    {
        std::lock_guard<std::mutex> lock(impl_->mutex);
        impl_->stop = true;
    }
    impl_->wake.notify_all();
    for (std::thread& t : impl_->workers) t.join();
}

int ThreadPool::size() const {
    return static_cast<int>(impl_->workers.size()) + 1;
}

void ThreadPool::parallel_for(int64_t n, const std::function<void(int64_t, int64_t)>& fn) {
    if (n <= 0) return;
    Impl& p = *impl_;
    if (p.workers.empty() || n == 1 || t_inside_job) {
        fn(0, n);
        return;
    }
    std::unique_lock<std::mutex> submit(p.submit, std::try_to_lock);
    if (!submit.owns_lock()) {  // another thread's job holds the workers: do not wait for it
        fn(0, n);
        return;
    }
    {
        std::lock_guard<std::mutex> lock(p.mutex);
        p.fn = &fn;
        p.n = n;
        p.num_chunks = std::min<int64_t>(n, kChunksPerThread * size());
        p.chunk = (n + p.num_chunks - 1) / p.num_chunks;
        p.num_chunks = (n + p.chunk - 1) / p.chunk;
        p.next.store(0, std::memory_order_relaxed);
        p.error = nullptr;
        p.accepting = true;
        ++p.generation;
    }
    p.wake.notify_all();
    p.run_chunks();
    std::exception_ptr error;
    {
        std::unique_lock<std::mutex> lock(p.mutex);
        p.accepting = false;
        p.done.wait(lock, [&] { return p.active == 0; });
        p.fn = nullptr;
        error = p.error;
        p.error = nullptr;
    }
    if (error) std::rethrow_exception(error);
}

}  // namespace strata
