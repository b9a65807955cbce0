// no_cuda.cpp: a CPU-only build (STRATA_CUDA=OFF) answers every GPU request with one clear error.
#include "build/plan.h"
#include "build/plan_serialization.h"
#include "core/check.h"
#include "runtime/runner.h"

namespace strata {

namespace {
[[noreturn]] void no_cuda() {
    STRATA_UNSUPPORTED("--device cuda: this strata was built without CUDA (configure with nvcc present, "
                       "-DSTRATA_CUDA=ON)");
}
}  // namespace

namespace build {
void build_gpu_steps(Plan&) { no_cuda(); }

PlanFileTarget current_target(const BuildOptions& options, int64_t batch) {
    if (options.device.kind == Device::Kind::cuda) no_cuda();
    PlanFileTarget t;
    t.device_kind = "cpu";
    t.precision = precision_name(options.precision);
    t.batch = batch;
    t.strata_version = STRATA_VERSION;
    return t;
}
}  // namespace build

namespace runtime {
class GpuWeights {};
std::shared_ptr<GpuWeights> upload_gpu_weights(const build::Plan&) { no_cuda(); }
std::unique_ptr<Runner> make_gpu_runner(std::shared_ptr<const build::Plan>, std::shared_ptr<GpuWeights>) { no_cuda(); }
}  // namespace runtime

}  // namespace strata
