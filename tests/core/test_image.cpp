// test_image.cpp: load_image on PNGs written here with known random pixels. Sizes are chosen so that the expected
// values follow from the definition without a second resize implementation: an image whose shorter side already is
// the target (the resize is the identity, only crop and normalisation act), and one exactly twice as large (bilinear
// with half-pixel centres then averages each 2x2 block).
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <random>
#include <unistd.h>
#include <vector>

#include "core/image.h"
#include "test_support.h"

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"
#define STB_IMAGE_WRITE_IMPLEMENTATION
#include <stb_image_write.h>
#pragma GCC diagnostic pop

namespace strata {
namespace {

namespace fs = std::filesystem;

class ImageTest : public ::testing::Test {
protected:
    void SetUp() override {
        const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
        dir_ = fs::temp_directory_path() / fmt::format("strata_image_{}_{}", getpid(), info->name());
        fs::remove_all(dir_);
        fs::create_directories(dir_);
    }
    void TearDown() override { fs::remove_all(dir_); }
    std::string path(const std::string& name) const { return (dir_ / name).string(); }

    // Random pixels (channels 1 or 3), written as a PNG; returns the pixels.
    std::vector<uint8_t> write_png(const std::string& name, int w, int h, int channels, uint64_t seed) {
        std::vector<uint8_t> px(static_cast<size_t>(w) * h * channels);
        std::mt19937_64 rng(seed);
        for (uint8_t& p : px) p = static_cast<uint8_t>(rng());
        EXPECT_NE(stbi_write_png(path(name).c_str(), w, h, channels, px.data(), w * channels), 0);
        return px;
    }

    fs::path dir_;
};

float normalised(float v255, int c, const ImageNormalization& n) { return (v255 / 255.0f - n.mean[c]) / n.std[c]; }

// 301x256 (wide): resized shorter side is round(224*256/224) = 256 already, so only the centre crop acts.
// left = round((301-224)/2) = round(38.5) = 38 (half to even, as torchvision), top = 16.
TEST_F(ImageTest, IdentityResizeCropsCentreAndNormalises) {
    const int w = 301, h = 256;
    const auto px = write_png("a.png", w, h, 3, test::test_seed());
    ImageNormalization norm;
    Tensor t = load_image(path("a.png"), 224, 224, norm);
    ASSERT_EQ(t.dtype(), DType::f32);
    ASSERT_EQ(shape_str(t.shape()), "[1,3,224,224]");
    const int top = 16, left = 38;
    for (int c = 0; c < 3; ++c)
        for (int y = 0; y < 224; y += 7)
            for (int x = 0; x < 224; x += 5) {
                const float want = normalised(px[((y + top) * w + x + left) * 3 + c], c, norm);
                ASSERT_NEAR(t.data<float>()[(c * 224 + y) * 224 + x], want, 1e-5) << c << " " << y << " " << x;
            }
}

// A portrait image, odd crop sizes and a custom normalisation: height 161 asks for a shorter side of
// round(161*256/224) = 184; a 184x251 image needs no resize, so top = round((251-161)/2) = 45, left = round(65/2) = 32.
TEST_F(ImageTest, PortraitOddCropCustomNormalisation) {
    const int w = 184, h = 251;
    const auto px = write_png("p.png", w, h, 3, test::test_seed() + 1);
    ImageNormalization norm{{0.25f, 0.5f, 0.75f}, {0.5f, 2.0f, 0.125f}};
    Tensor t = load_image(path("p.png"), 161, 119, norm);
    ASSERT_EQ(shape_str(t.shape()), "[1,3,161,119]");
    const int top = 45, left = 32;
    for (int c = 0; c < 3; ++c)
        for (int y = 0; y < 161; y += 3)
            for (int x = 0; x < 119; x += 2) {
                const float want = normalised(px[((y + top) * w + x + left) * 3 + c], c, norm);
                ASSERT_NEAR(t.data<float>()[(c * 161 + y) * 119 + x], want, 1e-4) << c << " " << y << " " << x;
            }
}

// 512x514 -> shorter side 256: a scale of exactly 2, where bilinear at half-pixel centres is the 2x2 block mean.
TEST_F(ImageTest, HalvingResizeAveragesTwoByTwoBlocks) {
    const int w = 514, h = 512;
    const auto px = write_png("h.png", w, h, 3, test::test_seed() + 2);
    ImageNormalization norm;
    Tensor t = load_image(path("h.png"), 224, 224, norm);
    // resized to 256 x 257; top = 16, left = round(33/2) = 16 (half to even)
    const int top = 16, left = 16;
    auto at = [&](int y, int x, int c) { return static_cast<float>(px[(static_cast<size_t>(y) * w + x) * 3 + c]); };
    for (int c = 0; c < 3; ++c)
        for (int y = 0; y < 224; y += 9)
            for (int x = 0; x < 224; x += 4) {
                const int sy = 2 * (y + top), sx = 2 * (x + left);
                const float mean = (at(sy, sx, c) + at(sy, sx + 1, c) + at(sy + 1, sx, c) + at(sy + 1, sx + 1, c)) / 4;
                ASSERT_NEAR(t.data<float>()[(c * 224 + y) * 224 + x], normalised(mean, c, norm), 1e-4)
                    << c << " " << y << " " << x;
            }
}

// Grayscale is expanded to RGB; upscaling a tiny image stays within the value range of its pixels.
TEST_F(ImageTest, GrayscaleUpscaleStaysInRange) {
    const auto px = write_png("g.png", 13, 9, 1, test::test_seed() + 3);
    ImageNormalization unit{{0, 0, 0}, {1, 1, 1}};
    Tensor t = load_image(path("g.png"), 224, 224, unit);
    ASSERT_EQ(shape_str(t.shape()), "[1,3,224,224]");
    const float lo = *std::min_element(px.begin(), px.end()) / 255.0f;
    const float hi = *std::max_element(px.begin(), px.end()) / 255.0f;
    const int64_t plane = 224 * 224;
    for (int64_t i = 0; i < plane; ++i) {
        const float v = t.data<float>()[i];
        ASSERT_GE(v, lo - 1e-6f);
        ASSERT_LE(v, hi + 1e-6f);
        ASSERT_EQ(t.data<float>()[plane + i], v);
        ASSERT_EQ(t.data<float>()[2 * plane + i], v);
    }
}

TEST_F(ImageTest, UnreadableImageIsAClearError) {
    std::ofstream(path("junk.jpg"), std::ios::binary) << "this is not a JPEG at all";
    try {
        load_image(path("junk.jpg"), 224, 224);
        ADD_FAILURE() << "no error";
    } catch (const Error& e) {
        EXPECT_EQ(e.code(), StatusCode::parse_error);
        EXPECT_NE(std::string(e.what()).find(path("junk.jpg") + ": cannot decode the image"), std::string::npos)
            << e.what();
    }
    try {
        load_image(path("missing.png"), 224, 224);
        ADD_FAILURE() << "no error";
    } catch (const Error& e) {
        EXPECT_EQ(e.code(), StatusCode::not_found);
        EXPECT_NE(std::string(e.what()).find("missing.png"), std::string::npos) << e.what();
    }
}

}  // namespace
}  // namespace strata
