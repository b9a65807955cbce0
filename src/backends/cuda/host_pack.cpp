// host_pack.cpp: element-by-element conversion; only weights and tests go through here, never the hot path.
#include "backends/cuda/host_pack.h"

#include <cstring>

#include "core/check.h"
#include "core/half.h"

namespace strata::cuda {

namespace {

float read_float(const void* base, DType t, int64_t i) {
    switch (t) {
        case DType::f32: return static_cast<const float*>(base)[i];
        case DType::f16: return fp16_to_float(static_cast<const uint16_t*>(base)[i]);
        case DType::bf16: return bf16_to_float(static_cast<const uint16_t*>(base)[i]);
        default: STRATA_ASSERT(false, "not a float dtype");
    }
    return 0;
}

void write_float(void* base, DType t, int64_t i, float v) {
    switch (t) {
        case DType::f32: static_cast<float*>(base)[i] = v; break;
        case DType::f16: static_cast<uint16_t*>(base)[i] = float_to_fp16(v); break;
        case DType::bf16: static_cast<uint16_t*>(base)[i] = float_to_bf16(v); break;
        default: STRATA_ASSERT(false, "not a float dtype");
    }
}

// Calls f(logical_index, physical_index) for every element.
template <class F>
void for_each_element(const TensorDesc& desc, F&& f) {
    auto strides = desc.logical_strides();
    int rank = desc.rank();
    int64_t n = desc.numel();
    std::array<int64_t, kMaxRank> idx{};
    for (int64_t linear = 0; linear < n; ++linear) {
        int64_t phys = 0;
        for (int d = 0; d < rank; ++d) phys += idx[d] * strides[d];
        f(linear, phys);
        for (int d = rank - 1; d >= 0; --d) {
            if (++idx[d] < desc.shape[d]) break;
            idx[d] = 0;
        }
    }
}

}  // namespace

std::vector<uint8_t> pack_host(const Tensor& logical, const TensorDesc& desc) {
    STRATA_ASSERT(logical.shape() == desc.shape, "pack_host: shape {} vs {}", shape_str(logical.shape()),
                  shape_str(desc.shape));
    std::vector<uint8_t> out(desc.bytes());
    if (is_float_dtype(desc.dtype)) {
        STRATA_ASSERT(is_float_dtype(logical.dtype()), "pack_host: {} to {}", dtype_name(logical.dtype()),
                      dtype_name(desc.dtype));
        for_each_element(desc, [&](int64_t l, int64_t p) {
            write_float(out.data(), desc.dtype, p, read_float(logical.raw(), logical.dtype(), l));
        });
        return out;
    }
    STRATA_ASSERT(logical.dtype() == desc.dtype, "pack_host: {} to {}", dtype_name(logical.dtype()),
                  dtype_name(desc.dtype));
    size_t es = dtype_size(desc.dtype);
    const auto* src = static_cast<const uint8_t*>(logical.raw());
    for_each_element(desc, [&](int64_t l, int64_t p) { std::memcpy(out.data() + p * es, src + l * es, es); });
    return out;
}

Tensor unpack_host(const void* bytes, const TensorDesc& desc) {
    if (is_float_dtype(desc.dtype)) {
        Tensor t = Tensor::empty(DType::f32, desc.shape);
        auto* dst = static_cast<float*>(t.raw());
        for_each_element(desc, [&](int64_t l, int64_t p) { dst[l] = read_float(bytes, desc.dtype, p); });
        return t;
    }
    Tensor t = Tensor::empty(desc.dtype, desc.shape);
    size_t es = dtype_size(desc.dtype);
    auto* dst = static_cast<uint8_t*>(t.raw());
    const auto* src = static_cast<const uint8_t*>(bytes);
    for_each_element(desc, [&](int64_t l, int64_t p) { std::memcpy(dst + l * es, src + p * es, es); });
    return t;
}

}  // namespace strata::cuda
