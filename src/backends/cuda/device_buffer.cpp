// device_buffer.cpp: the RAII handles. Destructors never throw: a failure while freeing is ignored (the context
// is being torn down, usually after an error that was already reported).
#include "backends/cuda/device_buffer.h"

#include "backends/cuda/cuda_check.h"
#include "core/check.h"

namespace strata::cuda {

DeviceBuffer::DeviceBuffer(size_t bytes, std::string_view what) : bytes_(bytes) {
    if (bytes == 0) return;
    cudaError_t status = cudaMalloc(&data_, bytes);
    if (status != cudaSuccess) {
        cudaGetLastError();
        size_t free_bytes = 0, total = 0;
        cudaMemGetInfo(&free_bytes, &total);
        STRATA_THROW(StatusCode::runtime_error, "out of GPU memory for {}: asked for {:.1f} MiB, {:.1f} MiB free", what,
                     static_cast<double>(bytes) / (1 << 20), static_cast<double>(free_bytes) / (1 << 20));
    }
}

DeviceBuffer& DeviceBuffer::operator=(DeviceBuffer&& o) noexcept {
    if (this != &o) {
        if (data_) cudaFree(data_);
        data_ = std::exchange(o.data_, nullptr);
        bytes_ = std::exchange(o.bytes_, 0);
    }
    return *this;
}

DeviceBuffer::~DeviceBuffer() {
    if (data_) cudaFree(data_);
}

PinnedBuffer::PinnedBuffer(size_t bytes) : bytes_(bytes) {
    if (bytes == 0) return;
    STRATA_CUDA_CHECK(cudaMallocHost(&data_, bytes), "allocating pinned host memory");
}

PinnedBuffer& PinnedBuffer::operator=(PinnedBuffer&& o) noexcept {
    if (this != &o) {
        if (data_) cudaFreeHost(data_);
        data_ = std::exchange(o.data_, nullptr);
        bytes_ = std::exchange(o.bytes_, 0);
    }
    return *this;
}

PinnedBuffer::~PinnedBuffer() {
    if (data_) cudaFreeHost(data_);
}

Stream::Stream() { STRATA_CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking), "creating a stream"); }

Stream& Stream::operator=(Stream&& o) noexcept {
    if (this != &o) {
        if (stream_) cudaStreamDestroy(stream_);
        stream_ = std::exchange(o.stream_, nullptr);
    }
    return *this;
}

Stream::~Stream() {
    if (stream_) cudaStreamDestroy(stream_);
}

void Stream::synchronize(std::string_view what) const { STRATA_CUDA_CHECK(cudaStreamSynchronize(stream_), what); }

Event::Event() { STRATA_CUDA_CHECK(cudaEventCreate(&event_), "creating an event"); }

Event& Event::operator=(Event&& o) noexcept {
    if (this != &o) {
        if (event_) cudaEventDestroy(event_);
        event_ = std::exchange(o.event_, nullptr);
    }
    return *this;
}

Event::~Event() {
    if (event_) cudaEventDestroy(event_);
}

void Event::record(cudaStream_t stream) { STRATA_CUDA_CHECK(cudaEventRecord(event_, stream), "recording an event"); }

float Event::elapsed_since(const Event& start) const {
    float ms = 0;
    STRATA_CUDA_CHECK(cudaEventElapsedTime(&ms, start.event_, event_), "reading an event time");
    return ms;
}

}  // namespace strata::cuda
