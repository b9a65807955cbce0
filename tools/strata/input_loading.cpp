// input_loading.cpp: --input files and random inputs, checked against the model's declared inputs so that a wrong
// shape or dtype is reported with the file's name and the expected shape, not as a failure deep inside a kernel.
#include "input_loading.h"

#include <algorithm>
#include <cstring>
#include <random>

#include "core/check.h"
#include "core/half.h"
#include "core/image.h"
#include "core/npy.h"

namespace strata::cli {
namespace {

std::string lower_extension(const std::string& path) {
    const size_t dot = path.find_last_of('.');
    const size_t slash = path.find_last_of('/');
    if (dot == std::string::npos || (slash != std::string::npos && dot < slash)) return "";
    std::string ext = path.substr(dot);
    std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return std::tolower(c); });
    return ext;
}

// "[N,3,224,224]": the model's shape with its dynamic batch shown as N.
std::string expected_shape_str(const Shape& shape) {
    std::string s = shape_str(shape);
    if (!shape.empty() && shape[0] < 0) s = "[N" + s.substr(2);
    return s;
}

void check_npy_fits(const std::string& path, const Tensor& t, const TensorInfo& info) {
    STRATA_CHECK(t.dtype() == info.dtype, StatusCode::invalid_argument,
                 "{}: dtype {} does not match input '{}', which is {}", path, dtype_name(t.dtype()), info.name,
                 dtype_name(info.dtype));
    // Every axis but the first must match; the first is the batch, which the .npy may choose.
    bool fits = t.rank() == static_cast<int>(info.shape.size());
    for (int i = 1; fits && i < t.rank(); ++i) fits = info.shape[i] < 0 || info.shape[i] == t.dim(i);
    STRATA_CHECK(fits, StatusCode::invalid_argument, "{}: shape {} does not fit input '{}', which is {}", path,
                 shape_str(t.shape()), info.name, expected_shape_str(info.shape));
    STRATA_CHECK(t.rank() == 0 || t.dim(0) > 0, StatusCode::invalid_argument, "{}: shape {} has an empty batch", path,
                 shape_str(t.shape()));
}

Tensor load_image_input(const std::string& path, const TensorInfo& info) {
    const Shape& s = info.shape;
    STRATA_CHECK(s.size() == 4 && (s[1] == 3 || s[1] < 0) && info.dtype == DType::f32, StatusCode::invalid_argument,
                 "{}: an image needs a [N,3,H,W] float32 model input, and input '{}' is {} {}", path, info.name,
                 dtype_name(info.dtype), expected_shape_str(s));
    const int h = s[2] > 0 ? static_cast<int>(s[2]) : 224, w = s[3] > 0 ? static_cast<int>(s[3]) : 224;
    return load_image(path, h, w);
}

}  // namespace

bool is_image_path(const std::string& path) {
    const std::string ext = lower_extension(path);
    return ext == ".jpg" || ext == ".jpeg" || ext == ".png" || ext == ".bmp";
}

Tensor load_input(const std::string& path, const TensorInfo& info) {
    if (is_image_path(path)) return load_image_input(path, info);
    STRATA_CHECK(lower_extension(path) == ".npy", StatusCode::invalid_argument,
                 "{}: --input takes a .npy file or an image (.jpg, .jpeg, .png, .bmp)", path);
    Tensor t = read_npy(path);
    check_npy_fits(path, t, info);
    return t;
}

Shape concrete_shape(const TensorInfo& info, int64_t batch) {
    Shape shape = info.shape;
    for (size_t i = 0; i < shape.size(); ++i) {
        if (shape[i] >= 0) continue;
        STRATA_CHECK(i == 0, StatusCode::unsupported,
                     "unsupported: input '{}' {} has a dynamic axis {} besides the batch: give it with --input",
                     info.name, shape_str(info.shape), i);
        shape[i] = batch;
    }
    return shape;
}

Tensor random_input(DType dtype, const Shape& shape, uint64_t seed) {
    Tensor t = Tensor::empty(dtype, shape);
    std::mt19937_64 rng(seed);
    std::normal_distribution<float> normal;
    std::uniform_int_distribution<int> small(0, 9);
    for (int64_t i = 0; i < t.numel(); ++i) {
        switch (dtype) {
            case DType::f32: t.data<float>()[i] = normal(rng); break;
            case DType::f16: t.data<uint16_t>()[i] = float_to_fp16(normal(rng)); break;
            case DType::bf16: t.data<uint16_t>()[i] = float_to_bf16(normal(rng)); break;
            case DType::i8: t.data<int8_t>()[i] = static_cast<int8_t>(small(rng)); break;
            case DType::u8: t.data<uint8_t>()[i] = static_cast<uint8_t>(small(rng)); break;
            case DType::i32: t.data<int32_t>()[i] = small(rng); break;
            case DType::i64: t.data<int64_t>()[i] = small(rng); break;
            case DType::boolean: t.data<uint8_t>()[i] = static_cast<uint8_t>(small(rng) & 1); break;
        }
    }
    return t;
}

Tensor repeat_batch(const Tensor& t, int64_t batch) {
    Shape shape = t.shape();
    STRATA_ASSERT(!shape.empty() && shape[0] == 1, "repeat_batch needs a batch of 1, got {}", shape_str(shape));
    shape[0] = batch;
    Tensor out = Tensor::empty(t.dtype(), shape);
    for (int64_t b = 0; b < batch; ++b)
        std::memcpy(static_cast<char*>(out.raw()) + b * t.nbytes(), t.raw(), t.nbytes());
    return out;
}

}  // namespace strata::cli
