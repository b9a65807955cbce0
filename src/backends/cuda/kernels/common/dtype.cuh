// dtype.cuh: the element types of CUDA kernels (float, __half, __nv_bfloat16), conversions through float, and the
// dispatch from a DType to a kernel template.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "strata/tensor.h"

namespace strata::cuda {

template <class T> __device__ __forceinline__ float to_float(T v);
template <> __device__ __forceinline__ float to_float<float>(float v) { return v; }
template <> __device__ __forceinline__ float to_float<__half>(__half v) { return __half2float(v); }
template <> __device__ __forceinline__ float to_float<__nv_bfloat16>(__nv_bfloat16 v) { return __bfloat162float(v); }

template <class T> __device__ __forceinline__ T from_float(float v);
template <> __device__ __forceinline__ float from_float<float>(float v) { return v; }
template <> __device__ __forceinline__ __half from_float<__half>(float v) { return __float2half_rn(v); }
template <> __device__ __forceinline__ __nv_bfloat16 from_float<__nv_bfloat16>(float v) { return __float2bfloat16_rn(v); }

/// Calls f(T{}) with T the element type of a float dtype; false for any other dtype.
template <class F>
bool dispatch_float(DType dtype, F&& f) {
    switch (dtype) {
        case DType::f32: f(float{}); return true;
        case DType::f16: f(__half{}); return true;
        case DType::bf16: f(__nv_bfloat16{}); return true;
        default: return false;
    }
}

}  // namespace strata::cuda
