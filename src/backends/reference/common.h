// common.h: what the reference kernels share: the kernel signature, axis and stride arithmetic, dtype checks and
// dispatch. Kept small on purpose: each kernel should read like the ONNX operator spec, not like a framework.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <span>
#include <vector>

#include "backends/kernel.h"
#include "core/check.h"
#include "ir/graph.h"
#include "strata/tensor.h"

namespace strata::backends::reference {

using Inputs = std::span<const Tensor>;
using Outputs = std::span<Tensor>;

/// Row-major strides (in elements) of a shape.
std::vector<int64_t> row_major_strides(const Shape& shape);
/// Product of shape[from..to).
int64_t dims_product(const Shape& shape, int64_t from, int64_t to);
/// An ONNX axis in [-rank, rank) made non-negative; an error naming the node otherwise.
int64_t normalize_axis(const ir::Node& node, int64_t axis, int64_t rank);

/// The input at position i, which must be present.
const Tensor& required_input(const ir::Node& node, Inputs inputs, size_t i);
/// "unsupported: <op> on <dtype>" unless t's dtype is one of `allowed`.
void require_dtype(const ir::Node& node, const Tensor& t, std::initializer_list<DType> allowed);
/// Checks that the kernel got the number of outputs it writes.
void require_outputs(const ir::Node& node, Outputs outputs, size_t count);

/// Calls f(T{}) with T the C++ type of an arithmetic dtype (f32, i64, i32); refuses the others.
template <class F>
void dispatch_arithmetic(const ir::Node& node, const Tensor& t, F&& f) {
    require_dtype(node, t, {DType::f32, DType::i64, DType::i32});
    switch (t.dtype()) {
        case DType::f32: f(float{}); break;
        case DType::i64: f(int64_t{}); break;
        default: f(int32_t{}); break;
    }
}

/// Calls f(T{}) with T an unsigned integer as wide as one element: byte-copy ops do not care what the bits mean.
template <class F>
void dispatch_bytes(const Tensor& t, F&& f) {
    switch (dtype_size(t.dtype())) {
        case 1: f(uint8_t{}); break;
        case 2: f(uint16_t{}); break;
        case 4: f(uint32_t{}); break;
        default: f(uint64_t{}); break;
    }
}

/// The spatial geometry shared by convolution and pooling, with empty attribute vectors filled by their defaults
/// (strides 1, dilations 1, pads 0) and 1-D problems lifted to 2-D with a unit height.
struct Window2d {
    int64_t in_h = 1, in_w = 1, out_h = 1, out_w = 1;
    int64_t k_h = 1, k_w = 1, stride_h = 1, stride_w = 1, dil_h = 1, dil_w = 1;
    int64_t pad_top = 0, pad_left = 0, pad_bottom = 0, pad_right = 0;
};
/// Builds a Window2d from [N,C,spatial...] input and output shapes and the attribute vectors.
Window2d make_window_2d(const ir::Node& node, const Shape& in, const Shape& out, const std::vector<int64_t>& kernel,
                        const std::vector<int64_t>& strides, const std::vector<int64_t>& dilations,
                        const std::vector<int64_t>& pads_begin, const std::vector<int64_t>& pads_end);

/// ceil(a / b) for b > 0 and a of either sign (C++ division truncates toward zero).
int64_t ceil_div(int64_t a, int64_t b);

/// The range [lo, hi) of output positions o in [0, out) for which o*stride - pad + tap lies inside [0, in).
struct Range {
    int64_t lo, hi;
};
Range valid_outputs(int64_t tap, int64_t pad, int64_t stride, int64_t in, int64_t out);

/// Strides (in elements) for reading `in` while walking the numpy-broadcast shape `out`: aligned to the right,
/// 0 along the dims `in` broadcasts. An error naming the node when `in` does not broadcast to `out`.
std::vector<int64_t> broadcast_strides(const ir::Node& node, const Shape& in, const Shape& out);

/// Calls f(i, offset_a, offset_b) for every element i of `out` in row-major order, with the offsets that the two
/// stride vectors give for its coordinates.
template <class F>
void for_each_broadcast(const Shape& out, const std::vector<int64_t>& sa, const std::vector<int64_t>& sb, F&& f) {
    int64_t total = shape_numel(out), oa = 0, ob = 0;
    std::vector<int64_t> coord(out.size(), 0);
    for (int64_t i = 0; i < total; ++i) {
        f(i, oa, ob);
        for (int64_t d = static_cast<int64_t>(out.size()) - 1; d >= 0; --d) {
            oa += sa[d];
            ob += sb[d];
            if (++coord[d] < out[d]) break;
            oa -= sa[d] * out[d];
            ob -= sb[d] * out[d];
            coord[d] = 0;
        }
    }
}

/// Stores `value` as one element of `dtype` at dst, converting as Cast does (cast.cpp).
void write_scalar(DType dtype, double value, void* dst);

}  // namespace strata::backends::reference
