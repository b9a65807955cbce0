// image.h: JPEG/PNG/BMP input for `strata run --input img.jpg`: decode (stb_image), resize, normalise, NCHW float32.
#pragma once

#include <array>
#include <string>

#include "strata/tensor.h"

namespace strata {

struct ImageNormalization {
    std::array<float, 3> mean{0.485f, 0.456f, 0.406f};  ///< ImageNet, as torchvision's transforms use
    std::array<float, 3> std{0.229f, 0.224f, 0.225f};
};

/// Decodes an image, resizes the shorter side to 256/224 of `height` and centre-crops to height x width (torchvision's
/// eval transform), scales to [0,1], normalises; returns [1, 3, height, width] float32.
Tensor load_image(const std::string& path, int height, int width, const ImageNormalization& norm = {});

}  // namespace strata
