// cudnn_conv_common.h: what cuDNN's convolution tactics share: the geometry of one forward convolution (ConvTranspose
// is the backward-data pass of the convolution that maps its output back to its input), the descriptors cuDNN wants
// for it, a handle per kernel and the shared handle that answers queries.
#pragma once

#include <functional>
#include <string>

#include "backends/cuda/cuda_tactic.h"
#include "backends/cuda/libs/cudnn_loader.h"

namespace strata::cuda::libs {

/// One forward 2-D convolution: x [n, c, h, w] * w [k, c/group, r, s] -> y [n, k, p, q].
struct CudnnConvGeometry {
    int n = 0, c = 0, h = 0, w = 0;
    int k = 0, r = 1, s = 1;
    int p = 0, q = 0;
    int pad_h = 0, pad_w = 0, stride_h = 1, stride_w = 1, dil_h = 1, dil_w = 1, group = 1;
    DType dtype = DType::f32;
    bool nhwc = false;        ///< tensors and filter channels-last (filter k, r, s, c/group)
    bool allow_tf32 = false;  ///< fp32 only: TF32 tensor cores allowed
};

/// Owns the four descriptors of a geometry. Throws strata::Error when cuDNN rejects one, or when cuDNN's own output
/// size for x, w and the convolution is not y's (the pads cannot be expressed symmetrically).
class CudnnConvDescriptors {
public:
    explicit CudnnConvDescriptors(const CudnnConvGeometry& g);
    ~CudnnConvDescriptors();
    CudnnConvDescriptors(const CudnnConvDescriptors&) = delete;
    CudnnConvDescriptors& operator=(const CudnnConvDescriptors&) = delete;

    cudnnTensorDescriptor_t x = nullptr, y = nullptr;
    cudnnFilterDescriptor_t w = nullptr;
    cudnnConvolutionDescriptor_t conv = nullptr;

private:
    void init(const CudnnConvGeometry& g);
    void release();
};

/// A cuDNN handle made on the current device, owned by one kernel (launch() sets its stream, so it is not shared).
class CudnnHandle {
public:
    CudnnHandle();
    ~CudnnHandle();
    CudnnHandle(const CudnnHandle&) = delete;
    CudnnHandle& operator=(const CudnnHandle&) = delete;
    cudnnHandle_t get() const { return handle_; }

private:
    cudnnHandle_t handle_ = nullptr;
};

/// Runs `query` with the process-wide query handle of `device` under a lock; returns the message of a strata::Error
/// it throws, or empty. For can_implement(), which may be called from several threads.
std::string with_query_handle(int device, const std::function<void(cudnnHandle_t)>& query);

/// "algo 3 (DIRECT)": for messages and config names.
std::string fwd_algo_name(int algo);
std::string bwd_data_algo_name(int algo);

}  // namespace strata::cuda::libs
