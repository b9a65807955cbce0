// depthwise_tma.cpp: encoding the tensor map of a staged depthwise tile (depthwise_tma.h). The driver's encoder is
// reached through the runtime's entry-point query, so strata links no libcuda of its own.
#include "backends/cuda/kernels/depthwise/depthwise_tma.h"

#include <cuda_runtime_api.h>
#include <cudaTypedefs.h>

#include <cstdint>

namespace strata::cuda {

namespace {

PFN_cuTensorMapEncodeTiled_v12000 tensor_map_encoder() {
    static const PFN_cuTensorMapEncodeTiled_v12000 encoder = [] {
        void* fn = nullptr;
        cudaDriverEntryPointQueryResult found = cudaDriverEntryPointSymbolNotFound;
        if (cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &fn, 12000, cudaEnableDefault, &found) !=
                cudaSuccess ||
            found != cudaDriverEntryPointSuccess) {
            cudaGetLastError();  // a driver without it: the caller stages with cp.async
            return PFN_cuTensorMapEncodeTiled_v12000{nullptr};
        }
        return reinterpret_cast<PFN_cuTensorMapEncodeTiled_v12000>(fn);
    }();
    return encoder;
}

}  // namespace

bool encode_depthwise_tile_map(const DepthwiseParams& prm, int elem_bytes, int cl_words, int in_cols, int in_rows,
                               CUtensorMap& map) {
    const ConvGeometry& g = prm.g;
    const int64_t channel_bytes = int64_t{g.c} * elem_bytes;
    if (reinterpret_cast<uintptr_t>(prm.x) % 16 != 0 || prm.x_stride[1] != 1 || channel_bytes % 4 != 0) return false;
    if (cl_words > 256 || in_cols > 256 || in_rows > 256) return false;
    // Dimensions innermost first: channel words, columns, rows, images; strides of all but the first, in bytes.
    const cuuint64_t dims[4] = {static_cast<cuuint64_t>(channel_bytes / 4), static_cast<cuuint64_t>(g.w),
                                static_cast<cuuint64_t>(g.h), static_cast<cuuint64_t>(g.n)};
    const int64_t strides_signed[3] = {prm.x_stride[3] * elem_bytes, prm.x_stride[2] * elem_bytes,
                                       prm.x_stride[0] * elem_bytes};
    cuuint64_t strides[3];
    for (int i = 0; i < 3; ++i) {
        if (strides_signed[i] <= 0 || strides_signed[i] % 16 != 0 || strides_signed[i] >= (int64_t{1} << 40))
            return false;
        strides[i] = static_cast<cuuint64_t>(strides_signed[i]);
    }
    const cuuint32_t box[4] = {static_cast<cuuint32_t>(cl_words), static_cast<cuuint32_t>(in_cols),
                               static_cast<cuuint32_t>(in_rows), 1};
    const cuuint32_t element_strides[4] = {1, 1, 1, 1};
    const PFN_cuTensorMapEncodeTiled_v12000 encode = tensor_map_encoder();
    if (!encode) return false;
    return encode(&map, CU_TENSOR_MAP_DATA_TYPE_UINT32, 4, const_cast<void*>(prm.x), dims, strides, box,
                  element_strides, CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_NONE,
                  CU_TENSOR_MAP_L2_PROMOTION_L2_128B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) == CUDA_SUCCESS;
}

}  // namespace strata::cuda
