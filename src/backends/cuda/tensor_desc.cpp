// tensor_desc.cpp: physical order and strides of a TensorDesc.
#include "backends/cuda/tensor_desc.h"

#include <fmt/format.h>

#include "core/check.h"

namespace strata::cuda {

Shape TensorDesc::physical_shape() const {
    if (!channels_last()) return shape;
    return {shape[0], shape[2], shape[3], shape[1]};
}

std::array<int64_t, kMaxRank> TensorDesc::logical_strides() const {
    STRATA_ASSERT(rank() <= kMaxRank, "rank {} exceeds {}", rank(), kMaxRank);
    std::array<int64_t, kMaxRank> strides{};
    if (channels_last()) {
        int64_t c = shape[1], h = shape[2], w = shape[3];
        strides[0] = h * w * c;
        strides[1] = 1;
        strides[2] = w * c;
        strides[3] = c;
        return strides;
    }
    int64_t step = 1;
    for (int i = rank() - 1; i >= 0; --i) {
        strides[i] = step;
        step *= shape[i];
    }
    return strides;
}

std::string TensorDesc::str() const {
    if (!present) return "(absent)";
    std::string s = fmt::format("{}{}", dtype_name(dtype), shape_str(shape));
    if (channels_last()) s += " nhwc";
    return s;
}

bool same_bytes(const TensorDesc& a, const TensorDesc& b) {
    if (a.dtype != b.dtype || a.shape != b.shape) return false;
    if (a.channels_last() == b.channels_last()) return true;
    const Shape& s = a.shape;  // rank 4 here: one side is channels-last
    return s[2] * s[3] == 1 || s[1] == 1;
}

}  // namespace strata::cuda
