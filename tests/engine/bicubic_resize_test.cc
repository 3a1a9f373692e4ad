#include "engine/bicubic_resize.h"

#include <gtest/gtest.h>

#include <random>

#include "engine/anyres_grid.h"
#include "engine/image_preprocess_png.h"
#include "tests/engine/input_test_util.h"
#include "tests/support/shared_data.h"

namespace mineru::engine {
namespace {

// Number of differing bytes and the largest difference.
std::pair<size_t, int> Compare(const ImageU8& a, const ImageU8& b) {
  size_t differing = 0;
  int worst = 0;
  for (size_t i = 0; i < a.pixels.size(); ++i) {
    const int d = std::abs(int{a.pixels[i]} - int{b.pixels[i]});
    differing += d != 0;
    worst = std::max(worst, d);
  }
  return {differing, worst};
}

TEST(BicubicResizeTest, GoldenPagesResizeBitExactlyLikePillow) {
  MINERU_SHARED_DIR_OR_SKIP(shared);
  const auto root = shared / "golden/preprocess";
  int pages = 0;
  for (const auto& dir : std::filesystem::directory_iterator(root)) {
    if (!dir.is_directory()) continue;
    auto c = testing::ReadJsonFile(dir.path() / "case.json");
    ASSERT_TRUE(c.ok());
    auto input = ReadPngRgb(dir.path() / "input.png");
    ASSERT_TRUE(input.ok()) << input.status().ToString();
    const int w = (*c)["expected"]["best_resolution_wh"][0];
    const int h = (*c)["expected"]["best_resolution_wh"][1];
    for (const auto& [name, size] : {std::pair{"expected_resized.png", std::pair{w, h}},
                                     std::pair{"expected_base.png", std::pair{384, 384}}}) {
      auto expected = ReadPngRgb(dir.path() / name);
      ASSERT_TRUE(expected.ok());
      auto resized = ResizeBicubic(input->View(), size.first, size.second);
      ASSERT_TRUE(resized.ok()) << resized.status().ToString();
      ASSERT_EQ(resized->width, expected->width);
      ASSERT_EQ(resized->height, expected->height);
      const auto [differing, worst] = Compare(*resized, *expected);
      EXPECT_EQ(differing, 0u) << dir.path().filename() << "/" << name << ": max diff " << worst;
    }
    ++pages;
  }
  EXPECT_EQ(pages, 7);
}

TEST(BicubicResizeTest, SameSizeIsACopyAndConstantImagesStayConstant) {
  ImageU8 image{37, 23, 3, {}};
  std::mt19937 rng(3);
  for (int i = 0; i < 37 * 23 * 3; ++i) image.pixels.push_back(static_cast<uint8_t>(rng()));
  auto same = ResizeBicubic(image.View(), 37, 23);
  ASSERT_TRUE(same.ok());
  EXPECT_EQ(same->pixels, image.pixels);

  ImageU8 flat{50, 40, 1, std::vector<uint8_t>(2000, 173)};
  for (auto [w, h] : {std::pair{11, 7}, std::pair{50, 13}, std::pair{131, 40}, std::pair{200, 160}}) {
    auto r = ResizeBicubic(flat.View(), w, h);
    ASSERT_TRUE(r.ok());
    for (uint8_t v : r->pixels) ASSERT_EQ(v, 173) << w << "x" << h;
  }
}

TEST(BicubicResizeTest, OvershootIsClippedToTheByteRange) {
  // A hard edge overshoots with a = -0.5; the result must stay within 0..255 and keep the edge.
  ImageU8 edge{8, 1, 1, {0, 0, 0, 0, 255, 255, 255, 255}};
  auto up = ResizeBicubic(edge.View(), 32, 1);
  ASSERT_TRUE(up.ok());
  EXPECT_EQ(up->pixels.front(), 0);
  EXPECT_EQ(up->pixels.back(), 255);
  EXPECT_LT(up->pixels[8], up->pixels[20]);
}

TEST(BicubicResizeTest, StridedViewsReadOnlyTheirRows) {
  // Rows padded with garbage: the result equals that of the packed copy.
  ImageU8 packed{9, 6, 3, {}};
  std::vector<uint8_t> padded;
  std::mt19937 rng(5);
  for (int y = 0; y < 6; ++y) {
    for (int i = 0; i < 27; ++i) {
      const auto v = static_cast<uint8_t>(rng());
      packed.pixels.push_back(v);
      padded.push_back(v);
    }
    for (int i = 0; i < 5; ++i) padded.push_back(static_cast<uint8_t>(rng()));
  }
  ImageU8View view{padded.data(), 9, 6, 3, 32};
  auto a = ResizeBicubic(view, 4, 13);
  auto b = ResizeBicubic(packed.View(), 4, 13);
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(a->pixels, b->pixels);
}

TEST(BicubicResizeTest, RejectsBadArguments) {
  ImageU8 image{4, 4, 3, std::vector<uint8_t>(48, 1)};
  EXPECT_FALSE(ResizeBicubic(image.View(), 0, 4).ok());
  EXPECT_FALSE(ResizeBicubic(image.View(), 4, 1 << 20).ok());
  ImageU8View short_stride = image.View();
  short_stride.row_stride_bytes = 5;
  EXPECT_FALSE(ResizeBicubic(short_stride, 2, 2).ok());
  EXPECT_FALSE(ResizeBicubic(ImageU8View{}, 2, 2).ok());
}

}  // namespace
}  // namespace mineru::engine
