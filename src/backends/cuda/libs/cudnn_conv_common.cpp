// cudnn_conv_common.cpp: see cudnn_conv_common.h.
#include "backends/cuda/libs/cudnn_conv_common.h"

#include <fmt/format.h>

#include <map>
#include <mutex>

#include "backends/cuda/cuda_check.h"
#include "core/check.h"

namespace strata::cuda::libs {

namespace {
const CudnnApi& api() {
    const CudnnApi* a = cudnn_api();
    STRATA_CHECK(a, StatusCode::unsupported, "{}", cudnn_report());
    return *a;
}

cudnnDataType_t data_type(DType t) {
    switch (t) {
        case DType::f32:
            return CUDNN_DATA_FLOAT;
        case DType::f16:
            return CUDNN_DATA_HALF;
        case DType::bf16:
            return CUDNN_DATA_BFLOAT16;
        default:
            STRATA_UNSUPPORTED("cuDNN convolution in {}", dtype_name(t));
    }
}

// fp32 stays true fp32 (FMA kernels only) unless TF32 is allowed; fp16/bf16 use tensor cores, accumulating in float.
cudnnMathType_t math_type(const CudnnConvGeometry& g) {
    if (g.dtype != DType::f32) return CUDNN_TENSOR_OP_MATH;
    return g.allow_tf32 ? CUDNN_DEFAULT_MATH : CUDNN_FMA_MATH;
}
}  // namespace

CudnnConvDescriptors::CudnnConvDescriptors(const CudnnConvGeometry& g) {
    try {
        init(g);
    } catch (...) {
        release();
        throw;
    }
}

void CudnnConvDescriptors::init(const CudnnConvGeometry& g) {
    const CudnnApi& a = api();
    const char* what = "cuDNN convolution descriptors";
    STRATA_CUDNN_CHECK(a, cudnnCreateTensorDescriptor(&x), what);
    STRATA_CUDNN_CHECK(a, cudnnCreateTensorDescriptor(&y), what);
    STRATA_CUDNN_CHECK(a, cudnnCreateFilterDescriptor(&w), what);
    STRATA_CUDNN_CHECK(a, cudnnCreateConvolutionDescriptor(&conv), what);
    cudnnTensorFormat_t format = g.nhwc ? CUDNN_TENSOR_NHWC : CUDNN_TENSOR_NCHW;
    cudnnDataType_t type = data_type(g.dtype);
    STRATA_CUDNN_CHECK(a, cudnnSetTensor4dDescriptor(x, format, type, g.n, g.c, g.h, g.w), what);
    STRATA_CUDNN_CHECK(a, cudnnSetTensor4dDescriptor(y, format, type, g.n, g.k, g.p, g.q), what);
    STRATA_CUDNN_CHECK(a, cudnnSetFilter4dDescriptor(w, type, format, g.k, g.c / g.group, g.r, g.s), what);
    STRATA_CUDNN_CHECK(a,
                       cudnnSetConvolution2dDescriptor(conv, g.pad_h, g.pad_w, g.stride_h, g.stride_w, g.dil_h, g.dil_w,
                                                       CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT),
                       what);
    STRATA_CUDNN_CHECK(a, cudnnSetConvolutionGroupCount(conv, g.group), what);
    STRATA_CUDNN_CHECK(a, cudnnSetConvolutionMathType(conv, math_type(g)), what);
    int on = 0, oc = 0, oh = 0, ow = 0;
    STRATA_CUDNN_CHECK(a, cudnnGetConvolution2dForwardOutputDim(conv, x, w, &on, &oc, &oh, &ow), what);
    STRATA_CHECK(on == g.n && oc == g.k && oh == g.p && ow == g.q, StatusCode::unsupported,
                 "unsupported: cuDNN's output [{},{},{},{}] differs from [{},{},{},{}] (pads not symmetric)", on, oc,
                 oh, ow, g.n, g.k, g.p, g.q);
}

CudnnConvDescriptors::~CudnnConvDescriptors() {
    release();
}

void CudnnConvDescriptors::release() {
    const CudnnApi* a = cudnn_api();
    if (!a) return;
    if (conv) a->cudnnDestroyConvolutionDescriptor(conv);
    if (w) a->cudnnDestroyFilterDescriptor(w);
    if (y) a->cudnnDestroyTensorDescriptor(y);
    if (x) a->cudnnDestroyTensorDescriptor(x);
}

CudnnHandle::CudnnHandle() {
    STRATA_CUDNN_CHECK(api(), cudnnCreate(&handle_), "cuDNN handle");
}

CudnnHandle::~CudnnHandle() {
    if (handle_) cudnn_api()->cudnnDestroy(handle_);
}

std::string with_query_handle(int device, const std::function<void(cudnnHandle_t)>& query) {
    static std::mutex mutex;
    static std::map<int, cudnnHandle_t> handles;  // one per device, kept for the process (like the library)
    std::lock_guard<std::mutex> lock(mutex);
    try {
        auto it = handles.find(device);
        if (it == handles.end()) {
            int previous = 0;
            STRATA_CUDA_CHECK(cudaGetDevice(&previous), "cuDNN query handle");
            STRATA_CUDA_CHECK(cudaSetDevice(device), "cuDNN query handle");
            cudnnHandle_t h = nullptr;
            cudnnStatus_t status = api().cudnnCreate(&h);
            STRATA_CUDA_CHECK(cudaSetDevice(previous), "cuDNN query handle");
            check_cudnn(status, "cuDNN query handle", "cudnnCreate");
            it = handles.emplace(device, h).first;
        }
        query(it->second);
    } catch (const Error& e) {
        return e.what();
    }
    return {};
}

std::string fwd_algo_name(int algo) {
    static const char* names[] = {"IMPLICIT_GEMM", "IMPLICIT_PRECOMP_GEMM", "GEMM", "DIRECT", "FFT", "FFT_TILING",
                                  "WINOGRAD",      "WINOGRAD_NONFUSED"};
    return algo >= 0 && algo < 8 ? fmt::format("algo {} ({})", algo, names[algo]) : fmt::format("algo {}", algo);
}

std::string bwd_data_algo_name(int algo) {
    static const char* names[] = {"ALGO_0", "ALGO_1", "FFT", "FFT_TILING", "WINOGRAD", "WINOGRAD_NONFUSED"};
    return algo >= 0 && algo < 6 ? fmt::format("algo {} ({})", algo, names[algo]) : fmt::format("algo {}", algo);
}

}  // namespace strata::cuda::libs
