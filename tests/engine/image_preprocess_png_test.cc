#include "engine/image_preprocess_png.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <png.h>
#include <zlib.h>

#include <cstring>
#include <random>

#include "tests/engine/input_test_util.h"
#include "tests/support/shared_data.h"

namespace mineru::engine {
namespace {

using ::testing::HasSubstr;

// Encodes `pixels` (width x height, `format` a libpng PNG_FORMAT_*) as a PNG in memory.
std::vector<uint8_t> EncodePng(int width, int height, uint32_t format, const std::vector<uint8_t>& pixels) {
  png_image image;
  std::memset(&image, 0, sizeof(image));
  image.version = PNG_IMAGE_VERSION;
  image.width = static_cast<png_uint_32>(width);
  image.height = static_cast<png_uint_32>(height);
  image.format = format;
  png_alloc_size_t size = 0;
  EXPECT_TRUE(png_image_write_get_memory_size(image, size, 0, pixels.data(), 0, nullptr));
  std::vector<uint8_t> out(size);
  EXPECT_TRUE(png_image_write_to_memory(&image, out.data(), &size, 0, pixels.data(), 0, nullptr));
  out.resize(size);
  return out;
}

std::vector<uint8_t> Noise(size_t n, unsigned seed) {
  std::mt19937 rng(seed);
  std::vector<uint8_t> v(n);
  for (auto& b : v) b = static_cast<uint8_t>(rng());
  return v;
}

TEST(ImagePreprocessPngTest, GoldenPagesDecodeToTheirSize) {
  MINERU_SHARED_DIR_OR_SKIP(shared);
  for (const char* page : {"page-800x600", "page-3000x700"}) {
    auto c = testing::ReadJsonFile(shared / "golden/preprocess" / page / "case.json");
    ASSERT_TRUE(c.ok());
    auto image = ReadPngRgb(shared / "golden/preprocess" / page / "input.png");
    ASSERT_TRUE(image.ok()) << image.status().ToString();
    EXPECT_EQ(image->width, (*c)["inputs"]["size_wh"][0].get<int>());
    EXPECT_EQ(image->height, (*c)["inputs"]["size_wh"][1].get<int>());
    EXPECT_EQ(image->channels, 3);
  }
}

TEST(ImagePreprocessPngTest, RgbRoundTripsExactly) {
  const auto rgb = Noise(13 * 7 * 3, 1);
  auto image = DecodePngRgb(EncodePng(13, 7, PNG_FORMAT_RGB, rgb));
  ASSERT_TRUE(image.ok()) << image.status().ToString();
  EXPECT_EQ(image->width, 13);
  EXPECT_EQ(image->height, 7);
  EXPECT_EQ(image->pixels, rgb);
}

TEST(ImagePreprocessPngTest, AlphaIsDroppedAndGrayIsReplicated) {
  auto rgba = Noise(5 * 4 * 4, 2);
  for (size_t i = 3; i < rgba.size(); i += 4) rgba[i] = 255;  // opaque: colours must survive unchanged
  auto image = DecodePngRgb(EncodePng(5, 4, PNG_FORMAT_RGBA, rgba));
  ASSERT_TRUE(image.ok());
  for (size_t p = 0; p < 20; ++p) {
    for (int c = 0; c < 3; ++c) ASSERT_EQ(image->pixels[3 * p + c], rgba[4 * p + c]);
  }
  const auto gray = Noise(6 * 3, 3);
  auto from_gray = DecodePngRgb(EncodePng(6, 3, PNG_FORMAT_GRAY, gray));
  ASSERT_TRUE(from_gray.ok());
  for (size_t p = 0; p < gray.size(); ++p) {
    for (int c = 0; c < 3; ++c) ASSERT_EQ(from_gray->pixels[3 * p + c], gray[p]);
  }
}

// A valid PNG whose header claims `width` x `height` (the pixel data stays that of a 1x1 image).
std::vector<uint8_t> PngClaimingSize(uint32_t width, uint32_t height) {
  auto png = EncodePng(1, 1, PNG_FORMAT_RGB, {1, 2, 3});
  // Signature (8), IHDR length (4), "IHDR" (4), width (4), height (4), ..., CRC over type + data.
  for (int k = 0; k < 4; ++k) {
    png[16 + k] = static_cast<uint8_t>(width >> (24 - 8 * k));
    png[20 + k] = static_cast<uint8_t>(height >> (24 - 8 * k));
  }
  const uLong crc = crc32(crc32(0, nullptr, 0), png.data() + 12, 17);
  for (int k = 0; k < 4; ++k) png[29 + k] = static_cast<uint8_t>(crc >> (24 - 8 * k));
  return png;
}

TEST(ImagePreprocessPngTest, HugeImagesAreRefusedBeforeDecoding) {
  auto huge = DecodePngRgb(PngClaimingSize(30000, 30000));
  ASSERT_FALSE(huge.ok());
  EXPECT_THAT(huge.status().message(), HasSubstr("30000x30000"));
  EXPECT_FALSE(DecodePngRgb(PngClaimingSize(1u << 20, 1)).ok());
  // The same header trick at a sane size gets past the size check and fails on the missing data.
  auto small = DecodePngRgb(PngClaimingSize(64, 64));
  ASSERT_FALSE(small.ok());
  EXPECT_THAT(small.status().message(), ::testing::Not(HasSubstr("per side")));
}

TEST(ImagePreprocessPngTest, BrokenInputIsAnError) {
  EXPECT_FALSE(DecodePngRgb({}).ok());
  const auto garbage = Noise(100, 4);
  EXPECT_FALSE(DecodePngRgb(garbage).ok());
  auto png = EncodePng(8, 8, PNG_FORMAT_RGB, Noise(8 * 8 * 3, 5));
  png.resize(png.size() / 2);
  EXPECT_FALSE(DecodePngRgb(png).ok());
  auto missing = ReadPngRgb("/nonexistent-dir/page.png");
  ASSERT_FALSE(missing.ok());
  EXPECT_THAT(missing.status().message(), HasSubstr("/nonexistent-dir/page.png"));
}

}  // namespace
}  // namespace mineru::engine
