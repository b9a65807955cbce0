// device.h: which GPUs there are and what they can do, read once per process. Plans record the device they were
// built for (name, compute capability, driver and runtime versions) and refuse to load on another.
#pragma once

#include <cstddef>
#include <string>

namespace strata::cuda {

struct DeviceInfo {
    int index = 0;
    std::string name;             ///< "NVIDIA H200"
    int cc_major = 0, cc_minor = 0;
    int sm_count = 0;
    size_t global_memory = 0;     ///< bytes
    size_t l2_bytes = 0;
    size_t smem_per_block_optin = 0;  ///< the most dynamic shared memory one block can ask for
    size_t smem_per_sm = 0;
    int regs_per_sm = 0;
    int max_threads_per_sm = 0;
    int driver_version = 0;       ///< cudaDriverGetVersion: 13000 = 13.0
    int runtime_version = 0;      ///< cudaRuntimeGetVersion

    int compute_capability() const { return cc_major * 10 + cc_minor; }  ///< 90 for sm_90
    /// "NVIDIA H200 (sm_90, 132 SMs, driver 13.0)"
    std::string summary() const;
};

/// Number of usable CUDA devices; 0 when there is no driver or no GPU (never throws).
int device_count();
/// Properties of device `index` (cached). Throws strata::Error when the device does not exist.
const DeviceInfo& device_info(int index);
/// Makes `index` the calling thread's current device, with a clear error when it does not exist.
void set_device(int index);

}  // namespace strata::cuda
