#include "engine/image_preprocess.h"

#include <gtest/gtest.h>

#include <bit>
#include <cmath>

#include "engine/image_preprocess_png.h"
#include "tests/engine/input_test_util.h"
#include "tests/support/shared_data.h"

namespace mineru::engine {
namespace {

using Json = nlohmann::json;

TEST(ImagePreprocessTest, PixelValueTableEqualsTheGoldenTableBitForBit) {
  MINERU_SHARED_DIR_OR_SKIP(shared);
  auto table = testing::ReadJsonFile(shared / "golden/preprocess/normalize_table.json");
  ASSERT_TRUE(table.ok());
  const auto tables = PixelValueTables(ImagePreprocessOptions{});
  const auto& bits = (*table)["float32_bits_hex"];
  ASSERT_EQ(bits.size(), 256u);
  for (int u = 0; u < 256; ++u) {
    const auto expected = static_cast<uint32_t>(std::stoul(bits[u].get<std::string>(), nullptr, 16));
    for (int c = 0; c < 3; ++c) {
      ASSERT_EQ(std::bit_cast<uint32_t>(tables[c][u]), expected) << "u=" << u;
    }
    ASSERT_EQ(tables[0][u], static_cast<float>((*table)["values"][u].get<double>()));
  }
}

class GoldenPageTest : public ::testing::TestWithParam<std::string> {};

TEST_P(GoldenPageTest, CropsMatchTheReference) {
  MINERU_SHARED_DIR_OR_SKIP(shared);
  const auto golden = shared / "golden";
  const auto dir = golden / "preprocess" / GetParam();
  auto c = testing::ReadJsonFile(dir / "case.json");
  ASSERT_TRUE(c.ok());
  const Json& expected = (*c)["expected"];
  auto input = ReadPngRgb(dir / "input.png");
  ASSERT_TRUE(input.ok());

  auto out = PreprocessImage(input->View());
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ(out->grid.columns, expected["grid"]["gw"].get<int>());
  EXPECT_EQ(out->grid.rows, expected["grid"]["gh"].get<int>());
  const auto shape = expected["pixel_values_shape"].get<std::vector<int64_t>>();
  ASSERT_EQ(shape.size(), 4u);
  ASSERT_EQ(out->num_crops, shape[0]);
  ASSERT_EQ(out->crop_size, shape[2]);
  ASSERT_EQ(out->pixel_values.size(), static_cast<size_t>(shape[0] * shape[1] * shape[2] * shape[3]));
  EXPECT_EQ(out->image_width, (*c)["inputs"]["size_wh"][0].get<int>());
  EXPECT_EQ(out->image_height, (*c)["inputs"]["size_wh"][1].get<int>());

  const size_t crop_values = static_cast<size_t>(shape[1] * shape[2] * shape[3]);
  for (int t = 0; t < out->num_crops; ++t) {
    double sum = 0, sumsq = 0;
    for (size_t i = 0; i < crop_values; ++i) {
      const double v = out->pixel_values[t * crop_values + i];
      sum += v;
      sumsq += v * v;
    }
    const double want_sum = expected["tile_sum_f64"][t], want_sumsq = expected["tile_sumsq_f64"][t];
    EXPECT_NEAR(sum, want_sum, 1e-9 * std::max(1.0, std::abs(want_sum))) << "crop " << t;
    EXPECT_NEAR(sumsq, want_sumsq, 1e-9 * std::max(1.0, std::abs(want_sumsq))) << "crop " << t;
  }
  // Byte sums of each view (base, then tiles cut from the resized page).
  auto views = MakeAnyresViews(input->View());
  ASSERT_TRUE(views.ok());
  const int size = out->crop_size;
  for (int t = 0; t < out->num_crops; ++t) {
    const ImageU8View src = t == 0 ? views->base.View() : views->resized.View();
    const int x0 = t == 0 ? 0 : ((t - 1) % out->grid.columns) * size;
    const int y0 = t == 0 ? 0 : ((t - 1) / out->grid.columns) * size;
    int64_t u8_sum = 0;
    for (int y = 0; y < size; ++y) {
      const uint8_t* row = src.Row(y0 + y) + static_cast<size_t>(x0) * 3;
      for (int i = 0; i < size * 3; ++i) u8_sum += row[i];
    }
    EXPECT_EQ(u8_sum, expected["tile_u8_sum"][t].get<int64_t>()) << "crop " << t;
  }
  // Probes: [crop, channel, y, x, value].
  for (const auto& probe : expected["probes_t_c_y_x_value"]) {
    const size_t t = probe[0], ch = probe[1], y = probe[2], x = probe[3];
    const float want = static_cast<float>(probe[4].get<double>());
    const float got = out->pixel_values[t * crop_values + (ch * size + y) * size + x];
    EXPECT_NEAR(got, want, 1e-6) << probe.dump();
  }
  // Full pixel values where the golden set has them.
  if (expected.contains("pixel_values")) {
    auto full = testing::ReadSafetensorsF32(golden / expected["pixel_values"]["file"].get<std::string>(),
                                            expected["pixel_values"]["tensor"].get<std::string>());
    ASSERT_TRUE(full.ok()) << full.status().ToString();
    ASSERT_EQ(full->shape, shape);
    ASSERT_EQ(full->values.size(), out->pixel_values.size());
    double worst = 0;
    for (size_t i = 0; i < full->values.size(); ++i) {
      worst = std::max(worst, static_cast<double>(std::abs(full->values[i] - out->pixel_values[i])));
    }
    EXPECT_LE(worst, 1e-6);
  }
}

INSTANTIATE_TEST_SUITE_P(Pages, GoldenPageTest,
                         ::testing::Values("page-1654x2339", "page-1700x2200", "page-2339x1654",
                                           "page-800x600", "page-384x384", "page-3000x700", "page-300x200"),
                         [](const auto& info) {
                           std::string name = info.param;
                           for (char& ch : name) {
                             if (ch == '-') ch = '_';
                           }
                           return name;
                         });

TEST(ImagePreprocessTest, CropsAreBaseFirstThenTilesRowMajor) {
  // A 768x384 page whose left half is black and right half white: grid 2x1, tiles are exactly the
  // halves (no resize), the base view is a squeezed mix.
  ImageU8 page{768, 384, 3, {}};
  page.pixels.resize(768 * 384 * 3);
  for (int y = 0; y < 384; ++y) {
    for (int x = 0; x < 768; ++x) {
      for (int ch = 0; ch < 3; ++ch) page.pixels[(y * 768 + x) * 3 + ch] = x < 384 ? 0 : 255;
    }
  }
  auto out = PreprocessImage(page.View());
  ASSERT_TRUE(out.ok());
  ASSERT_EQ(out->num_crops, 3);
  const size_t crop = 3 * 384 * 384;
  for (size_t i = 0; i < crop; ++i) {
    ASSERT_EQ(out->pixel_values[crop + i], -1.0f);
    ASSERT_EQ(out->pixel_values[2 * crop + i], 1.0f);
  }
  EXPECT_EQ(out->pixel_values[0], -1.0f);   // base, left edge
  EXPECT_EQ(out->pixel_values[383], 1.0f);  // base, right edge
}

TEST(ImagePreprocessTest, RejectsWhatItCannotProcess) {
  ImageU8 gray{10, 10, 1, std::vector<uint8_t>(100, 0)};
  EXPECT_FALSE(PreprocessImage(gray.View()).ok());
  ImageU8 rgb{10, 10, 3, std::vector<uint8_t>(300, 0)};
  ImagePreprocessOptions zero_std;
  zero_std.std[1] = 0.0f;
  EXPECT_FALSE(PreprocessImage(rgb.View(), zero_std).ok());
  ImageU8 empty{0, 0, 3, {}};
  EXPECT_FALSE(PreprocessImage(empty.View()).ok());
}

}  // namespace
}  // namespace mineru::engine
