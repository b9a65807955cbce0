/// strata/tensor.h: element types, layouts, shapes and the host Tensor that carries inputs and outputs.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "strata/status.h"

namespace strata {

/// Element types. The storage of f16/bf16 is a 16-bit pattern (IEEE half, bfloat16); bool is one byte.
enum class DType : uint8_t { f32, f16, bf16, i8, u8, i32, i64, boolean };

size_t dtype_size(DType t);
/// f32, f16 or bf16.
constexpr bool is_float_dtype(DType t) { return t == DType::f32 || t == DType::f16 || t == DType::bf16; }
const char* dtype_name(DType t);  ///< "float32", "float16", "bfloat16", "int8", "uint8", "int32", "int64", "bool"

/// How a 4-D activation is laid out in memory. Tensors that are not 4-D activations are plain row-major.
enum class Layout : uint8_t { rowmajor, nchw, nhwc, chwn };
const char* layout_name(Layout l);

/// Dimensions, outermost first. A dimension of -1 is not yet known (a dynamic batch axis before building).
using Shape = std::vector<int64_t>;
int64_t shape_numel(const Shape& s);  ///< product of the dimensions (1 for a scalar)
std::string shape_str(const Shape& s); ///< "[2,3,224,224]"

/// A dense tensor in host memory. Copies share the storage (like a shared_ptr); clone() makes a deep copy.
class Tensor {
public:
    Tensor() = default;
    /// New storage, contents unspecified.
    static Tensor empty(DType dtype, Shape shape, Layout layout = Layout::rowmajor);
    /// New storage filled with zero bytes.
    static Tensor zeros(DType dtype, Shape shape, Layout layout = Layout::rowmajor);
    /// A view of memory the caller owns and keeps alive for as long as the Tensor is used.
    static Tensor wrap(void* data, DType dtype, Shape shape, Layout layout = Layout::rowmajor);
    /// Reads a numpy .npy file (version 1.0-3.0, little-endian, C order; f2/f4/f8->f32 is not converted: f8 is refused).
    static Expected<Tensor> from_npy(const std::string& path);
    /// Writes a numpy .npy file (version 1.0). bfloat16 has no numpy dtype and is written as float32.
    Status to_npy(const std::string& path) const;

    bool defined() const { return data_ != nullptr || numel() == 0; }
    DType dtype() const { return dtype_; }
    const Shape& shape() const { return shape_; }
    int64_t dim(int i) const { return shape_[i < 0 ? i + rank() : i]; }
    int rank() const { return static_cast<int>(shape_.size()); }
    int64_t numel() const { return shape_numel(shape_); }
    size_t nbytes() const { return static_cast<size_t>(numel()) * dtype_size(dtype_); }
    Layout layout() const { return layout_; }

    void* raw() { return data_; }
    const void* raw() const { return data_; }
    template <class T> T* data() { return static_cast<T*>(data_); }
    template <class T> const T* data() const { return static_cast<const T*>(data_); }

    /// Same storage, other shape (same element count) or layout tag.
    Tensor reshaped(Shape shape) const;
    Tensor with_layout(Layout layout) const;
    /// A deep copy with its own storage.
    Tensor clone() const;

private:
    std::shared_ptr<void> storage_;  // null for wrapped memory
    void* data_ = nullptr;
    DType dtype_ = DType::f32;
    Layout layout_ = Layout::rowmajor;
    Shape shape_;
};

}  // namespace strata
