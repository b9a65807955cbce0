// cudnn_loader.cpp: see cudnn_loader.h. cuDNN 9's libcudnn.so.9 is a shim that opens its sub-libraries by name;
// when it came from a folder outside the linker's path those are opened first from the same folder.
#include "backends/cuda/libs/cudnn_loader.h"

#include <fmt/format.h>

#include "backends/cuda/libs/cublaslt_loader.h"
#include "backends/cuda/libs/lib_loader.h"
#include "core/check.h"

namespace strata::cuda::libs {

namespace {
struct CudnnState {
    CudnnApi api;
    bool ok = false;
    std::string report;
};

// libcudnn_graph first: every other sub-library needs it (DT_NEEDED by soname).
constexpr const char* kSubLibraries[] = {"libcudnn_graph.so.9",
                                         "libcudnn_engines_precompiled.so.9",
                                         "libcudnn_engines_runtime_compiled.so.9",
                                         "libcudnn_heuristic.so.9",
                                         "libcudnn_ops.so.9",
                                         "libcudnn_cnn.so.9"};

CudnnState load() {
    CudnnState s;
    // cuDNN opens cuBLASLt and NVRTC (runtime-compiled engines) by name: have them loaded first from wherever they
    // are, so those names resolve to what is already in the process. Neither is required.
    cublaslt_api();
    open_library("libnvrtc.so.13", "STRATA_NVRTC_LIB", nvidia_library_folders({"cu13", "cuda_nvrtc"}));
    LoadedLibrary lib = open_library("libcudnn.so.9", "STRATA_CUDNN_LIB", nvidia_library_folders({"cudnn", "cu13"}));
    if (!lib.found()) {
        s.report = "cuDNN not found (searched: " + lib.searched_list() + ")";
        return s;
    }
    for (const char* sub : kSubLibraries) preload_beside(lib, sub);
    std::string missing;
#define STRATA_CUDNN_LOAD(fn)                                            \
    s.api.fn = reinterpret_cast<decltype(&::fn)>(find_symbol(lib, #fn)); \
    if (!s.api.fn) missing += (missing.empty() ? "" : ", ") + std::string(#fn);
    STRATA_CUDNN_FUNCTIONS(STRATA_CUDNN_LOAD)
#undef STRATA_CUDNN_LOAD
    if (!missing.empty()) {
        s.report = fmt::format("cuDNN not found (searched: {}; {} lacks {})", lib.searched_list(), lib.path, missing);
        return s;
    }
    s.api.version = s.api.cudnnGetVersion();
    if (s.api.version / 10000 != CUDNN_MAJOR) {
        s.report = fmt::format("cuDNN not found (searched: {}; {} is version {}, strata needs {}.x)",
                               lib.searched_list(), lib.path, s.api.version, CUDNN_MAJOR);
        return s;
    }
    s.ok = true;
    s.report = fmt::format("cuDNN {}.{}.{} from {}", s.api.version / 10000, s.api.version / 100 % 100,
                           s.api.version % 100, lib.path);
    return s;
}

const CudnnState& state() {
    static const CudnnState s = load();
    return s;
}
}  // namespace

const CudnnApi* cudnn_api() {
    return state().ok ? &state().api : nullptr;
}
const std::string& cudnn_report() {
    return state().report;
}
std::string cudnn_unavailable() {
    return state().ok ? std::string() : state().report;
}

void check_cudnn(cudnnStatus_t status, std::string_view what, const char* call) {
    if (status == CUDNN_STATUS_SUCCESS) return;
    const CudnnApi* api = cudnn_api();
    const char* reason = api ? api->cudnnGetErrorString(status) : "cuDNN not loaded";
    STRATA_THROW(StatusCode::runtime_error, "cuDNN error in {}: {} (status {}, {})", what, reason,
                 static_cast<int>(status), call);
}

}  // namespace strata::cuda::libs
