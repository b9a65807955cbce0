// tensor.cpp: dtype facts and the host Tensor.
#include <cstdlib>
#include <cstring>
#include <new>

#include "core/check.h"
#include "core/npy.h"
#include "strata/tensor.h"

namespace strata {

size_t dtype_size(DType t) {
    switch (t) {
        case DType::f32: return 4;
        case DType::f16: return 2;
        case DType::bf16: return 2;
        case DType::i8: return 1;
        case DType::u8: return 1;
        case DType::i32: return 4;
        case DType::i64: return 8;
        case DType::boolean: return 1;
    }
    return 0;
}

const char* dtype_name(DType t) {
    switch (t) {
        case DType::f32: return "float32";
        case DType::f16: return "float16";
        case DType::bf16: return "bfloat16";
        case DType::i8: return "int8";
        case DType::u8: return "uint8";
        case DType::i32: return "int32";
        case DType::i64: return "int64";
        case DType::boolean: return "bool";
    }
    return "?";
}

const char* layout_name(Layout l) {
    switch (l) {
        case Layout::rowmajor: return "rowmajor";
        case Layout::nchw: return "NCHW";
        case Layout::nhwc: return "NHWC";
        case Layout::chwn: return "CHWN";
    }
    return "?";
}

int64_t shape_numel(const Shape& s) {
    int64_t n = 1;
    for (int64_t d : s) n *= d;
    return n;
}

std::string shape_str(const Shape& s) {
    std::string r = "[";
    for (size_t i = 0; i < s.size(); ++i) {
        if (i) r += ',';
        r += s[i] < 0 ? std::string("?") : std::to_string(s[i]);
    }
    return r + "]";
}

// Storage is 64-byte aligned so vector kernels may use aligned loads on the base pointer.
static std::shared_ptr<void> allocate_storage(size_t bytes) {
    void* p = std::aligned_alloc(64, (bytes + 63) / 64 * 64 + 64);
    if (!p) throw std::bad_alloc();
    return std::shared_ptr<void>(p, [](void* q) { std::free(q); });
}

Tensor Tensor::empty(DType dtype, Shape shape, Layout layout) {
    for (int64_t d : shape)
        STRATA_CHECK(d >= 0, StatusCode::invalid_argument, "cannot allocate a tensor of shape {}", shape_str(shape));
    Tensor t;
    t.dtype_ = dtype;
    t.shape_ = std::move(shape);
    t.layout_ = layout;
    t.storage_ = allocate_storage(t.nbytes());
    t.data_ = t.storage_.get();
    return t;
}

Tensor Tensor::zeros(DType dtype, Shape shape, Layout layout) {
    Tensor t = empty(dtype, std::move(shape), layout);
    std::memset(t.data_, 0, t.nbytes());
    return t;
}

Tensor Tensor::wrap(void* data, DType dtype, Shape shape, Layout layout) {
    Tensor t;
    t.dtype_ = dtype;
    t.shape_ = std::move(shape);
    t.layout_ = layout;
    t.data_ = data;
    return t;
}

Expected<Tensor> Tensor::from_npy(const std::string& path) {
    try {
        return read_npy(path);
    } catch (const Error& e) {
        return e.status();
    }
}

Status Tensor::to_npy(const std::string& path) const {
    try {
        write_npy(path, *this);
        return Status::ok();
    } catch (const Error& e) {
        return e.status();
    }
}

Tensor Tensor::reshaped(Shape shape) const {
    STRATA_ASSERT(shape_numel(shape) == numel(), "reshape {} -> {} changes the element count", shape_str(shape_),
                  shape_str(shape));
    Tensor t = *this;
    t.shape_ = std::move(shape);
    t.layout_ = Layout::rowmajor;
    return t;
}

Tensor Tensor::with_layout(Layout layout) const {
    Tensor t = *this;
    t.layout_ = layout;
    return t;
}

Tensor Tensor::clone() const {
    Tensor t = empty(dtype_, shape_, layout_);
    if (nbytes()) std::memcpy(t.data_, data_, nbytes());
    return t;
}

}  // namespace strata
