// cublaslt_loader.cpp: see cublaslt_loader.h.
#include "backends/cuda/libs/cublaslt_loader.h"

#include <fmt/format.h>

#include <map>
#include <mutex>

#include "backends/cuda/cuda_check.h"
#include "backends/cuda/libs/lib_loader.h"
#include "core/check.h"

namespace strata::cuda::libs {

namespace {
struct CublasLtState {
    CublasLtApi api;
    bool ok = false;
    std::string report;
};

CublasLtState load() {
    CublasLtState s;
    LoadedLibrary lib =
        open_library("libcublasLt.so.13", "STRATA_CUBLASLT_LIB", nvidia_library_folders({"cu13", "cublas"}));
    if (!lib.found()) {
        s.report = "cuBLASLt not found (searched: " + lib.searched_list() + ")";
        return s;
    }
    std::string missing;
#define STRATA_CUBLASLT_LOAD(fn)                                         \
    s.api.fn = reinterpret_cast<decltype(&::fn)>(find_symbol(lib, #fn)); \
    if (!s.api.fn) missing += (missing.empty() ? "" : ", ") + std::string(#fn);
    STRATA_CUBLASLT_FUNCTIONS(STRATA_CUBLASLT_LOAD)
#undef STRATA_CUBLASLT_LOAD
    if (!missing.empty()) {
        s.report =
            fmt::format("cuBLASLt not found (searched: {}; {} lacks {})", lib.searched_list(), lib.path, missing);
        return s;
    }
    s.api.version = s.api.cublasLtGetVersion();
    if (s.api.version / 10000 != CUBLAS_VER_MAJOR) {
        s.report = fmt::format("cuBLASLt not found (searched: {}; {} is version {}, strata needs {}.x)",
                               lib.searched_list(), lib.path, s.api.version, CUBLAS_VER_MAJOR);
        return s;
    }
    s.ok = true;
    s.report = fmt::format("cuBLASLt {}.{}.{} from {}", s.api.version / 10000, s.api.version / 100 % 100,
                           s.api.version % 100, lib.path);
    return s;
}

const CublasLtState& state() {
    static const CublasLtState s = load();
    return s;
}
}  // namespace

const CublasLtApi* cublaslt_api() {
    return state().ok ? &state().api : nullptr;
}
const std::string& cublaslt_report() {
    return state().report;
}
std::string cublaslt_unavailable() {
    return state().ok ? std::string() : state().report;
}

cublasLtHandle_t cublaslt_handle(int device) {
    const CublasLtApi* api = cublaslt_api();
    STRATA_CHECK(api, StatusCode::unsupported, "{}", cublaslt_report());
    static std::mutex mutex;
    static std::map<int, cublasLtHandle_t> handles;
    std::lock_guard<std::mutex> lock(mutex);
    auto it = handles.find(device);
    if (it != handles.end()) return it->second;
    int previous = 0;
    STRATA_CUDA_CHECK(cudaGetDevice(&previous), "cuBLASLt handle");
    STRATA_CUDA_CHECK(cudaSetDevice(device), "cuBLASLt handle");
    cublasLtHandle_t handle = nullptr;
    cublasStatus_t status = api->cublasLtCreate(&handle);
    STRATA_CUDA_CHECK(cudaSetDevice(previous), "cuBLASLt handle");
    check_cublaslt(status, "cuBLASLt handle", "cublasLtCreate");
    handles.emplace(device, handle);
    return handle;
}

void check_cublaslt(cublasStatus_t status, std::string_view what, const char* call) {
    if (status == CUBLAS_STATUS_SUCCESS) return;
    const CublasLtApi* api = cublaslt_api();
    const char* reason = api ? api->cublasLtGetStatusString(status) : "cuBLASLt not loaded";
    STRATA_THROW(StatusCode::runtime_error, "cuBLASLt error in {}: {} (status {}, {})", what, reason,
                 static_cast<int>(status), call);
}

}  // namespace strata::cuda::libs
