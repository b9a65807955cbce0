// norm.h: BatchNormalization (inference) and InstanceNormalization, float dtypes computed in float with the float32
// per-channel parameters of param_forms.h (scale, bias, mean, var: [C]). Formulas as the reference's
// (backends/reference/norm.cpp): y = (x - mean) * scale / sqrt(var + eps) + bias, InstanceNorm with the mean and
// (biased) variance of each (n, c) plane, computed in two passes. Both may run in place (y == x).
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

#include "strata/tensor.h"

namespace strata::cuda {

inline constexpr int kNormThreads = 256;

/// Element i has channel (i / inner) % channels: inner = the spatial size in nchw, 1 in nhwc.
struct BatchNormParams {
    const float *scale = nullptr, *bias = nullptr, *mean = nullptr, *var = nullptr;
    float epsilon = 1e-5f;
    int64_t total = 0, channels = 1, inner = 1;
};
void launch_batch_norm(DType dtype, const BatchNormParams& p, const void* x, void* y, int blocks, cudaStream_t stream);

/// Plane (n, c) holds `plane` elements at n*batch_step + c*channel_step + j*elem_step.
struct InstanceNormParams {
    const float *scale = nullptr, *bias = nullptr;
    float epsilon = 1e-5f;
    int64_t batch = 0, channels = 0, plane = 0;
    int64_t batch_step = 0, channel_step = 0, elem_step = 1;
};
void launch_instance_norm(DType dtype, const InstanceNormParams& p, const void* x, void* y, cudaStream_t stream);

}  // namespace strata::cuda
