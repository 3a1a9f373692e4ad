#include "document/drawn_markers.h"

#include <gtest/gtest.h>

#include "document/text_layout.h"
#include "tests/document/line_builder.h"

namespace mineru::document {
namespace {

using testing::Line;

TEST(DrawnMarkersTest, ASmallShapeLeftOfALineIsItsBullet) {
  // Discs 5 points across, 5 points left of each item's text (size 10); one too large, one too far, one
  // under a glyph: no bullets.
  std::vector<TextLine> lines = {Line("Apples from the market", 40, 100),
                                 Line("Bread", 40, 114),
                                 Line("Cheese", 40, 128),
                                 Line("Dates", 40, 142),
                                 Line("Eggs", 40, 156),
                                 Line("x", 32, 170),
                                 Line("Figs", 40, 170)};
  const std::vector<Rect> drawings = {{30, 102.5, 35, 107.5},
                                      {30, 116.5, 35, 121.5},
                                      {30, 128, 39, 140},
                                      {10, 144.5, 15, 149.5},
                                      {32, 172.5, 37, 177.5}};
  EXPECT_EQ(AddDrawnMarkers(lines, drawings, std::vector<bool>(lines.size(), false)), 2u);
  EXPECT_EQ(lines[0].text, "\u2022 Apples from the market");
  EXPECT_EQ(lines[0].chars.size(), std::string("Apples from the market").size() + 2);
  EXPECT_DOUBLE_EQ(lines[0].box.x0, 30);
  EXPECT_EQ(lines[1].text, "\u2022 Bread");
  for (size_t i = 2; i < lines.size(); ++i) EXPECT_EQ(lines[i].text.find("\u2022"), std::string::npos);
  // A line a figure took is left as it is.
  std::vector<TextLine> label = {Line("Revenue", 40, 100)};
  EXPECT_EQ(AddDrawnMarkers(label, drawings, {true}), 0u);
}

TEST(DrawnMarkersTest, ANumberSetOnASmallShapeIsAnItemsNumber) {
  // "1 Render the page" with its "1" on a ball 9 points across (a slide's numbered list); a number
  // with no shape under it, or on a shape as large as a box, stays as it is.
  std::vector<TextLine> lines = {Line("1 Render the page", 40, 100), Line("2 Park its features", 40, 114),
                                 Line("3 Prefill in chunks", 40, 128)};
  const std::vector<Rect> drawings = {{38, 100.5, 47, 109.5}, {38, 114, 68, 124}};
  EXPECT_EQ(AddDrawnMarkers(lines, drawings, std::vector<bool>(lines.size(), false)), 1u);
  EXPECT_EQ(lines[0].text, "1. Render the page");
  EXPECT_EQ(lines[0].chars[1].rune, U'.');
  EXPECT_EQ(lines[1].text, "2 Park its features");
  EXPECT_EQ(lines[2].text, "3 Prefill in chunks");
}

TEST(DrawnMarkersTest, ItemsWithDrawnBulletsAreAListOfTheirOwn) {
  // Three items with disc bullets between two paragraphs: a list of three, its first item's second line
  // under the item's text; without the discs the items run into one paragraph.
  for (bool discs : {true, false}) {
    PageContent page;
    page.page = {0, 0, 612, 792};
    page.lines = {Line("The list below has three items, and a paragraph of text follows it.", 30, 80),
                  Line("Apples from the market, the red kind that keeps for weeks in a", 44, 100),
                  Line("cool place and makes good pies", 44, 112),
                  Line("Bread from the baker on the corner", 44, 126),
                  Line("Cheese from the farm", 44, 140),
                  Line("Then a second paragraph of ordinary text runs on for a line.", 30, 160)};
    if (discs) page.drawings = {{34, 102.5, 39, 107.5}, {34, 128.5, 39, 133.5}, {34, 142.5, 39, 147.5}};
    const std::vector<Block> blocks = LayoutPage(page, AnalyzeStyle({page}));
    if (discs) {
      ASSERT_EQ(blocks.size(), 3u);
      EXPECT_EQ(blocks[1].type, BlockType::kList);
      EXPECT_EQ(blocks[1].content,
                "- Apples from the market, the red kind that keeps for weeks in a cool place and makes good "
                "pies\n- Bread from the baker on the corner\n- Cheese from the farm");
    } else {
      EXPECT_TRUE(std::none_of(blocks.begin(), blocks.end(),
                               [](const Block& b) { return b.type == BlockType::kList; }));
    }
  }
}

}  // namespace
}  // namespace mineru::document
