// device.cpp: device discovery and properties (cudaGetDeviceProperties is slow, so each device is read once).
#include "backends/cuda/device.h"

#include <cuda_runtime_api.h>
#include <fmt/format.h>

#include <map>
#include <memory>
#include <mutex>

#include "backends/cuda/cuda_check.h"
#include "core/check.h"

namespace strata::cuda {

std::string DeviceInfo::summary() const {
    return fmt::format("{} (sm_{}, {} SMs, {:.0f} GiB, driver {}.{})", name, compute_capability(), sm_count,
                       static_cast<double>(global_memory) / (1 << 30), driver_version / 1000,
                       (driver_version % 1000) / 10);
}

int device_count() {
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess) {
        cudaGetLastError();
        return 0;
    }
    return count;
}

namespace {

DeviceInfo read_device(int index) {
    cudaDeviceProp prop{};
    STRATA_CUDA_CHECK(cudaGetDeviceProperties(&prop, index), "reading the device properties");
    DeviceInfo info;
    info.index = index;
    info.name = prop.name;
    info.cc_major = prop.major;
    info.cc_minor = prop.minor;
    info.sm_count = prop.multiProcessorCount;
    info.global_memory = prop.totalGlobalMem;
    info.l2_bytes = static_cast<size_t>(prop.l2CacheSize);
    info.smem_per_block_optin = prop.sharedMemPerBlockOptin;
    info.smem_per_sm = prop.sharedMemPerMultiprocessor;
    info.regs_per_sm = prop.regsPerMultiprocessor;
    info.max_threads_per_sm = prop.maxThreadsPerMultiProcessor;
    STRATA_CUDA_CHECK(cudaDriverGetVersion(&info.driver_version), "reading the driver version");
    STRATA_CUDA_CHECK(cudaRuntimeGetVersion(&info.runtime_version), "reading the runtime version");
    return info;
}

}  // namespace

const DeviceInfo& device_info(int index) {
    static std::mutex mutex;
    static std::map<int, std::unique_ptr<DeviceInfo>> cache;
    std::lock_guard lock(mutex);
    auto& slot = cache[index];
    if (!slot) {
        int count = device_count();
        STRATA_CHECK(index >= 0 && index < count, StatusCode::invalid_argument,
                     "CUDA device {} does not exist ({} CUDA device{} found)", index, count, count == 1 ? "" : "s");
        slot = std::make_unique<DeviceInfo>(read_device(index));
    }
    return *slot;
}

void set_device(int index) {
    device_info(index);  // the clear error for a device that does not exist
    STRATA_CUDA_CHECK(cudaSetDevice(index), "selecting the CUDA device");
}

}  // namespace strata::cuda
