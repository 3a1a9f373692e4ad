#include "engine/anyres_grid.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "tests/engine/input_test_util.h"
#include "tests/support/shared_data.h"

namespace mineru::engine {
namespace {

AnyresGrid Grid(int64_t w, int64_t h) {
  auto g = SelectAnyresGrid(w, h);
  EXPECT_TRUE(g.ok()) << g.status().ToString();
  return g.ok() ? *g : AnyresGrid{0, 0};
}

TEST(AnyresGridTest, EveryGoldenCaseGetsItsGrid) {
  MINERU_SHARED_DIR_OR_SKIP(shared);
  auto index = testing::ReadJsonFile(shared / "golden/index.json");
  ASSERT_TRUE(index.ok());
  int checked = 0;
  for (const auto& entry : (*index)["cases"]) {
    const std::string kind = entry["kind"];
    if (kind != "preprocess" && kind != "vlm_vision_merged") continue;
    auto c = testing::ReadJsonFile(shared / "golden" / entry["json"].get<std::string>());
    ASSERT_TRUE(c.ok());
    int64_t w, h;
    nlohmann::json grid;
    if (kind == "preprocess") {
      w = (*c)["inputs"]["size_wh"][0];
      h = (*c)["inputs"]["size_wh"][1];
      grid = (*c)["expected"]["grid"];
    } else {
      w = (*c)["image_sizes"][0][0];
      h = (*c)["image_sizes"][0][1];
      grid = (*c)["grid"];
    }
    const AnyresGrid g = Grid(w, h);
    EXPECT_EQ(g.columns, grid["gw"].get<int>()) << entry["case"];
    EXPECT_EQ(g.rows, grid["gh"].get<int>()) << entry["case"];
    EXPECT_EQ(1 + g.num_tiles(), grid["tiles"].get<int>()) << entry["case"];
    ++checked;
  }
  EXPECT_GE(checked, 14);
}

TEST(AnyresGridTest, SmallPagesAndTiesPickTheSmallestCandidate) {
  // Every candidate shows a page of at most 384x384 at full resolution: least waste is 1x1.
  EXPECT_EQ(Grid(384, 384), (AnyresGrid{1, 1}));
  EXPECT_EQ(Grid(100, 50), (AnyresGrid{1, 1}));
  EXPECT_EQ(Grid(1, 1), (AnyresGrid{1, 1}));
  // A 768x384 page fits 2x1 exactly.
  EXPECT_EQ(Grid(768, 384), (AnyresGrid{2, 1}));
  EXPECT_EQ(Grid(384, 768), (AnyresGrid{1, 2}));
  // Huge pages: the 4x4 candidate has the largest effective area.
  EXPECT_EQ(Grid(10000, 10000), (AnyresGrid{4, 4}));
}

TEST(AnyresGridTest, OptionsChangeTheCandidates) {
  AnyresOptions options;
  options.tile_size = 100;
  options.max_tiles_per_side = 2;
  auto g = SelectAnyresGrid(1000, 1000, options);
  ASSERT_TRUE(g.ok());
  EXPECT_EQ(*g, (AnyresGrid{2, 2}));
}

TEST(AnyresGridTest, RejectsBadSizes) {
  EXPECT_FALSE(SelectAnyresGrid(0, 10).ok());
  EXPECT_FALSE(SelectAnyresGrid(10, -1).ok());
  EXPECT_FALSE(SelectAnyresGrid(int64_t{1} << 40, 10).ok());
  AnyresOptions bad;
  bad.tile_size = 0;
  EXPECT_FALSE(SelectAnyresGrid(10, 10, bad).ok());
}

}  // namespace
}  // namespace mineru::engine
