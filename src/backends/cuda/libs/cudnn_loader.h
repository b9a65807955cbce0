// cudnn_loader.h: cuDNN 9, opened at run time (never linked): a table of its functions typed from the headers. When
// the library or one of its functions is missing the table is absent and the cuDNN tactics refuse with the report.
#pragma once

#include <cudnn_cnn.h>

#include <string>
#include <string_view>

namespace strata::cuda::libs {

// The cuDNN functions strata calls (the legacy convolution API, present in every cuDNN 9).
#define STRATA_CUDNN_FUNCTIONS(X)                   \
    X(cudnnGetVersion)                              \
    X(cudnnGetErrorString)                          \
    X(cudnnCreate)                                  \
    X(cudnnDestroy)                                 \
    X(cudnnSetStream)                               \
    X(cudnnCreateTensorDescriptor)                  \
    X(cudnnSetTensor4dDescriptor)                   \
    X(cudnnDestroyTensorDescriptor)                 \
    X(cudnnCreateFilterDescriptor)                  \
    X(cudnnSetFilter4dDescriptor)                   \
    X(cudnnDestroyFilterDescriptor)                 \
    X(cudnnCreateConvolutionDescriptor)             \
    X(cudnnSetConvolution2dDescriptor)              \
    X(cudnnSetConvolutionGroupCount)                \
    X(cudnnSetConvolutionMathType)                  \
    X(cudnnDestroyConvolutionDescriptor)            \
    X(cudnnGetConvolution2dForwardOutputDim)        \
    X(cudnnGetConvolutionForwardWorkspaceSize)      \
    X(cudnnConvolutionForward)                      \
    X(cudnnGetConvolutionBackwardDataWorkspaceSize) \
    X(cudnnConvolutionBackwardData)

struct CudnnApi {
#define STRATA_CUDNN_MEMBER(fn) decltype(&::fn) fn = nullptr;
    STRATA_CUDNN_FUNCTIONS(STRATA_CUDNN_MEMBER)
#undef STRATA_CUDNN_MEMBER
    size_t version = 0;  ///< cudnnGetVersion(): 91900 = 9.19.0
};

/// The loaded table, or null when cuDNN is not usable here (loaded once per process, thread-safe).
const CudnnApi* cudnn_api();
/// What the loader found: "cuDNN 9.19.0 from <path>" or "cuDNN not found (searched: ...)".
const std::string& cudnn_report();
/// Empty when cuDNN is usable; else the report (a tactic's can_implement answer).
std::string cudnn_unavailable();
/// Throws strata::Error (runtime_error) when `status` is not CUDNN_STATUS_SUCCESS: "cuDNN error in <what>: ...".
void check_cudnn(cudnnStatus_t status, std::string_view what, const char* call);

}  // namespace strata::cuda::libs

#define STRATA_CUDNN_CHECK(api, call, what) ::strata::cuda::libs::check_cudnn((api).call, (what), #call)
