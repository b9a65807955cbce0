// current_target.cpp: what this machine would write into a plan's target record (CUDA build).
#include "backends/cuda/device.h"
#include "build/plan_serialization.h"

namespace strata::build {

PlanFileTarget current_target(const BuildOptions& options, int64_t batch) {
    PlanFileTarget t;
    t.precision = precision_name(options.precision);
    t.batch = batch;
    t.strata_version = STRATA_VERSION;
    if (options.device.kind != Device::Kind::cuda) {
        t.device_kind = "cpu";
        return t;
    }
    const cuda::DeviceInfo& info = cuda::device_info(options.device.index);
    t.device_kind = "cuda";
    t.gpu_name = info.name;
    t.cc = info.compute_capability();
    t.driver = info.driver_version;
    t.runtime = info.runtime_version;
    return t;
}

}  // namespace strata::build
