// The tile grid choice and the merged image-token counts of MinerU 2.0, against the grids recorded
// in ../shared/golden and the counts given in the model notes; splicing errors.
#include "engine/image_merge.h"

#include <gtest/gtest.h>

#include "tests/engine/golden_support.h"
#include "tests/support/shared_data.h"

namespace mineru::engine {
namespace {

TEST(ImageMergeTest, GridChoiceMatchesGoldenCases) {
  MINERU_SHARED_DIR_OR_SKIP(shared);
  const auto golden = shared / "golden";
  const auto index = testing::LoadGoldenJson(golden, "index.json");
  int checked = 0;
  for (const auto& c : index["cases"]) {
    const std::string kind = c["kind"].get<std::string>();
    if (kind != "vlm_vision_merged" && kind != "preprocess") continue;
    const auto j = testing::LoadGoldenJson(golden, c["json"].get<std::string>());
    int64_t w = 0, h = 0, gw = 0, gh = 0;
    if (kind == "vlm_vision_merged") {
      w = j["image_sizes"][0][0].get<int64_t>();
      h = j["image_sizes"][0][1].get<int64_t>();
      gw = j["grid"]["gw"].get<int64_t>();
      gh = j["grid"]["gh"].get<int64_t>();
    } else {
      w = j["inputs"]["size_wh"][0].get<int64_t>();
      h = j["inputs"]["size_wh"][1].get<int64_t>();
      gw = j["expected"]["grid"]["gw"].get<int64_t>();
      gh = j["expected"]["grid"]["gh"].get<int64_t>();
    }
    const TileGrid g = SelectTileGrid(w, h, 384, 4);
    EXPECT_EQ(g.gw, gw) << c["case"];
    EXPECT_EQ(g.gh, gh) << c["case"];
    ++checked;
  }
  EXPECT_GE(checked, 7);
}

TEST(ImageMergeTest, TokenCountsPerGrid) {
  // From the model notes: 1x1 -> 1485, 2x2 -> 3699, 3x3 and 4x4 -> 7371, 3x4 -> 7332.
  EXPECT_EQ(MergedImageShape({1, 1}, 27, 9).num_tokens, 1485);
  EXPECT_EQ(MergedImageShape({2, 2}, 27, 9).num_tokens, 3699);
  EXPECT_EQ(MergedImageShape({3, 3}, 27, 9).num_tokens, 7371);
  EXPECT_EQ(MergedImageShape({4, 4}, 27, 9).num_tokens, 7371);
  EXPECT_EQ(MergedImageShape({3, 4}, 27, 9).num_tokens, 7332);
  const MergedShape s = MergedImageShape({4, 4}, 27, 9);
  EXPECT_TRUE(s.shrunk);
  EXPECT_EQ(s.rows, 81);  // 108 / (4/3) is exactly 81 in double precision
}

TEST(ImageMergeTest, SpliceReplacesTheImageTokenAndRejectsMisuse) {
  const std::vector<int64_t> tokens = {1, 2, 9, 3};
  at::Tensor text = at::arange(8, at::kFloat).view({4, 2});
  at::Tensor image = at::full({3, 2}, -1.0f);
  auto spliced = SpliceImage(tokens, text, 9, &image);
  ASSERT_TRUE(spliced.ok());
  ASSERT_EQ(spliced->size(0), 6);
  EXPECT_TRUE(at::equal(spliced->narrow(0, 0, 2), text.narrow(0, 0, 2)));
  EXPECT_TRUE(at::equal(spliced->narrow(0, 2, 3), image));
  EXPECT_TRUE(at::equal(spliced->narrow(0, 5, 1), text.narrow(0, 3, 1)));
  EXPECT_FALSE(SpliceImage(tokens, text, 9, nullptr).ok());
  EXPECT_FALSE(SpliceImage(std::vector<int64_t>{1, 2}, text.narrow(0, 0, 2), 9, &image).ok());
  EXPECT_FALSE(SpliceImage(std::vector<int64_t>{9, 9}, text.narrow(0, 0, 2), 9, &image).ok());
}

TEST(ImageMergeTest, WrongFeatureShapeIsAnError) {
  at::Tensor feats = at::zeros({4, 729, 8});
  EXPECT_FALSE(MergeImageFeatures(feats, {2, 2}, at::zeros({8}), 27, 9).ok());
}

}  // namespace
}  // namespace mineru::engine
