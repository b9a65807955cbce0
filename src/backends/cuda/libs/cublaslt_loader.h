// cublaslt_loader.h: cuBLASLt 13, opened at run time (never linked): a table of its functions typed from the headers.
// When the library or one of its functions is missing the table is absent and the cuBLASLt tactics refuse with the
// report. One handle per device is shared: cublasLtMatmul takes the stream as an argument, so it holds no state a
// launch changes.
#pragma once

#include <cublasLt.h>

#include <string>
#include <string_view>

namespace strata::cuda::libs {

#define STRATA_CUBLASLT_FUNCTIONS(X)        \
    X(cublasLtGetVersion)                   \
    X(cublasLtGetStatusString)              \
    X(cublasLtCreate)                       \
    X(cublasLtDestroy)                      \
    X(cublasLtMatmul)                       \
    X(cublasLtMatmulDescCreate)             \
    X(cublasLtMatmulDescDestroy)            \
    X(cublasLtMatmulDescSetAttribute)       \
    X(cublasLtMatrixLayoutCreate)           \
    X(cublasLtMatrixLayoutDestroy)          \
    X(cublasLtMatrixLayoutSetAttribute)     \
    X(cublasLtMatmulPreferenceCreate)       \
    X(cublasLtMatmulPreferenceDestroy)      \
    X(cublasLtMatmulPreferenceSetAttribute) \
    X(cublasLtMatmulAlgoGetHeuristic)       \
    X(cublasLtMatmulAlgoConfigGetAttribute)

struct CublasLtApi {
#define STRATA_CUBLASLT_MEMBER(fn) decltype(&::fn) fn = nullptr;
    STRATA_CUBLASLT_FUNCTIONS(STRATA_CUBLASLT_MEMBER)
#undef STRATA_CUBLASLT_MEMBER
    size_t version = 0;  ///< cublasLtGetVersion(): 130100 = 13.1.0
};

/// The loaded table, or null when cuBLASLt is not usable here (loaded once per process, thread-safe).
const CublasLtApi* cublaslt_api();
/// What the loader found: "cuBLASLt 13.1.0 from <path>" or "cuBLASLt not found (searched: ...)".
const std::string& cublaslt_report();
/// Empty when cuBLASLt is usable; else the report (a tactic's can_implement answer).
std::string cublaslt_unavailable();
/// The process-wide handle for device `device` (made on first use, on that device; never destroyed: it lives as
/// long as the process, like the library). Throws when cuBLASLt is absent.
cublasLtHandle_t cublaslt_handle(int device);
/// Throws strata::Error (runtime_error) when `status` is not CUBLAS_STATUS_SUCCESS: "cuBLASLt error in <what>: ...".
void check_cublaslt(cublasStatus_t status, std::string_view what, const char* call);

}  // namespace strata::cuda::libs

#define STRATA_CUBLASLT_CHECK(api, call, what) ::strata::cuda::libs::check_cublaslt((api).call, (what), #call)
