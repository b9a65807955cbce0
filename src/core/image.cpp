// image.cpp: `strata run --input img.jpg`. Decodes with stb_image, then applies torchvision's ImageNet evaluation
// transform (Resize(round(H*256/224)) -> CenterCrop(H, W) -> ToTensor -> Normalize) so that an image gives the
// logits a PyTorch user expects. Bilinear resize without antialiasing, half-pixel centres (align_corners=False).
#include "core/image.h"

#include <cerrno>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <memory>

#include "core/check.h"

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"
#pragma GCC diagnostic ignored "-Wunused-function"
#pragma GCC diagnostic ignored "-Wsign-compare"
#define STB_IMAGE_IMPLEMENTATION
#define STBI_FAILURE_USERMSG
#include <stb_image.h>
#pragma GCC diagnostic pop

namespace strata {
namespace {

struct DecodedImage {
    std::unique_ptr<unsigned char, void (*)(void*)> pixels{nullptr, stbi_image_free};  // RGB, row-major, 8 bits
    int width = 0;
    int height = 0;
};

DecodedImage decode(const std::string& path) {
    std::error_code ec;
    STRATA_CHECK(std::filesystem::is_regular_file(path, ec), StatusCode::not_found, "{}: no such image file", path);
    DecodedImage img;
    int channels = 0;
    img.pixels.reset(stbi_load(path.c_str(), &img.width, &img.height, &channels, 3));
    STRATA_CHECK(img.pixels != nullptr, StatusCode::parse_error,
                 "{}: cannot decode the image ({}; JPEG, PNG, BMP, TGA, GIF, PSD, HDR and PNM are read)", path,
                 stbi_failure_reason() ? stbi_failure_reason() : "unknown reason");
    return img;
}

// Where output index `dst` of a resize from `in` to `out` samples its source (PyTorch's align_corners=False rule).
struct Tap {
    int lo, hi;
    float frac;
};
Tap source_tap(int dst, int in, int out) {
    float src = (static_cast<float>(dst) + 0.5f) * static_cast<float>(in) / static_cast<float>(out) - 0.5f;
    if (src < 0) src = 0;
    int lo = std::min(static_cast<int>(src), in - 1);
    return {lo, std::min(lo + 1, in - 1), src - static_cast<float>(lo)};
}

// Python's round() (half to even), as torchvision's center_crop uses for the crop offset.
int round_half_even(double v) { return static_cast<int>(std::nearbyint(v)); }

}  // namespace

Tensor load_image(const std::string& path, int height, int width, const ImageNormalization& norm) {
    STRATA_CHECK(height > 0 && width > 0, StatusCode::invalid_argument, "{}: image size {}x{} must be positive", path,
                 height, width);
    DecodedImage img = decode(path);

    // Resize the shorter side to round(height * 256 / 224); the longer side keeps the aspect ratio (truncated, as
    // torchvision does).
    const int short_target = round_half_even(height * 256.0 / 224.0);
    const bool wide = img.width >= img.height;
    const int short_in = wide ? img.height : img.width, long_in = wide ? img.width : img.height;
    const int long_target = static_cast<int>(static_cast<int64_t>(short_target) * long_in / short_in);
    const int rh = wide ? short_target : long_target, rw = wide ? long_target : short_target;
    STRATA_CHECK(rh >= height && rw >= width, StatusCode::invalid_argument,
                 "{}: a {}x{} crop does not fit the image resized to {}x{}", path, height, width, rh, rw);
    const int top = round_half_even((rh - height) / 2.0), left = round_half_even((rw - width) / 2.0);

    Tensor out = Tensor::empty(DType::f32, {1, 3, height, width}, Layout::nchw);
    float* dst = out.data<float>();
    const unsigned char* px = img.pixels.get();
    const size_t plane = static_cast<size_t>(height) * width;
    for (int y = 0; y < height; ++y) {
        const Tap ty = source_tap(y + top, img.height, rh);
        for (int x = 0; x < width; ++x) {
            const Tap tx = source_tap(x + left, img.width, rw);
            for (int c = 0; c < 3; ++c) {
                auto at = [&](int yy, int xx) {
                    return static_cast<float>(px[(static_cast<size_t>(yy) * img.width + xx) * 3 + c]);
                };
                const float top_row = at(ty.lo, tx.lo) + (at(ty.lo, tx.hi) - at(ty.lo, tx.lo)) * tx.frac;
                const float bottom_row = at(ty.hi, tx.lo) + (at(ty.hi, tx.hi) - at(ty.hi, tx.lo)) * tx.frac;
                const float v = (top_row + (bottom_row - top_row) * ty.frac) / 255.0f;
                dst[c * plane + static_cast<size_t>(y) * width + x] = (v - norm.mean[c]) / norm.std[c];
            }
        }
    }
    return out;
}

}  // namespace strata
