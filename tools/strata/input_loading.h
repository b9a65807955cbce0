// input_loading.h: the tensors fed to a model by `strata run` and `strata bench`: a .npy file, an image, or seeded
// random data, each checked against the model's input before anything is built.
#pragma once

#include <cstdint>
#include <string>

#include "strata/engine.h"

namespace strata::cli {

/// True when `path` names an image (.jpg, .jpeg, .png, .bmp) rather than a .npy file.
bool is_image_path(const std::string& path);
/// Reads --input for the model input `info` (its batch axis may be dynamic): a .npy must match its dtype and every
/// dimension but the batch; an image must fit a [N,3,H,W] float32 input and becomes [1,3,H,W] (224x224 when dynamic).
Tensor load_input(const std::string& path, const TensorInfo& info);
/// `info`'s shape with dynamic dimensions (-1) of the batch axis set to `batch`; any other dynamic axis is an error.
Shape concrete_shape(const TensorInfo& info, int64_t batch);
/// Seeded random data for `shape`: standard normal for floating inputs, small non-negative integers otherwise.
Tensor random_input(DType dtype, const Shape& shape, uint64_t seed);
/// `t` repeated `batch` times along axis 0 (an image given with --batch N).
Tensor repeat_batch(const Tensor& t, int64_t batch);

}  // namespace strata::cli
