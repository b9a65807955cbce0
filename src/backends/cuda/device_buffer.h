// device_buffer.h: owning handles for device memory, pinned host memory, streams and events (move-only RAII).
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <string_view>
#include <utility>

namespace strata::cuda {

/// cudaMalloc'd bytes. An empty buffer has data() == nullptr.
class DeviceBuffer {
public:
    DeviceBuffer() = default;
    /// Allocates `bytes` (0 = empty); `what` names the use in an out-of-memory error.
    explicit DeviceBuffer(size_t bytes, std::string_view what = "device memory");
    DeviceBuffer(DeviceBuffer&& o) noexcept : data_(std::exchange(o.data_, nullptr)), bytes_(std::exchange(o.bytes_, 0)) {}
    DeviceBuffer& operator=(DeviceBuffer&& o) noexcept;
    DeviceBuffer(const DeviceBuffer&) = delete;
    DeviceBuffer& operator=(const DeviceBuffer&) = delete;
    ~DeviceBuffer();

    void* data() const { return data_; }
    size_t bytes() const { return bytes_; }

private:
    void* data_ = nullptr;
    size_t bytes_ = 0;
};

/// Page-locked host memory, for asynchronous copies.
class PinnedBuffer {
public:
    PinnedBuffer() = default;
    explicit PinnedBuffer(size_t bytes);
    PinnedBuffer(PinnedBuffer&& o) noexcept : data_(std::exchange(o.data_, nullptr)), bytes_(std::exchange(o.bytes_, 0)) {}
    PinnedBuffer& operator=(PinnedBuffer&& o) noexcept;
    PinnedBuffer(const PinnedBuffer&) = delete;
    PinnedBuffer& operator=(const PinnedBuffer&) = delete;
    ~PinnedBuffer();

    void* data() const { return data_; }
    size_t bytes() const { return bytes_; }

private:
    void* data_ = nullptr;
    size_t bytes_ = 0;
};

class Stream {
public:
    Stream();  ///< a non-blocking stream on the current device
    Stream(Stream&& o) noexcept : stream_(std::exchange(o.stream_, nullptr)) {}
    Stream& operator=(Stream&& o) noexcept;
    Stream(const Stream&) = delete;
    Stream& operator=(const Stream&) = delete;
    ~Stream();

    cudaStream_t get() const { return stream_; }
    void synchronize(std::string_view what) const;

private:
    cudaStream_t stream_ = nullptr;
};

class Event {
public:
    Event();  ///< a timing event
    Event(Event&& o) noexcept : event_(std::exchange(o.event_, nullptr)) {}
    Event& operator=(Event&& o) noexcept;
    Event(const Event&) = delete;
    Event& operator=(const Event&) = delete;
    ~Event();

    cudaEvent_t get() const { return event_; }
    void record(cudaStream_t stream);
    /// Milliseconds from `start` to this event (both recorded and complete).
    float elapsed_since(const Event& start) const;

private:
    cudaEvent_t event_ = nullptr;
};

}  // namespace strata::cuda
