#include "document/ruling_table.h"

#include <gtest/gtest.h>

#include "tests/document/line_builder.h"

namespace mineru::document {
namespace {

using testing::Line;

RulingSegment H(double y, double x0, double x1) { return {{x0, y - 0.4, x1, y + 0.4}, true}; }
RulingSegment V(double x, double y0, double y1) { return {{x - 0.4, y0, x + 0.4, y1}, false}; }

TEST(RulingTableTest, GridWithMergedHeader) {
  // Rows at y 100, 120, 140; columns at x 100, 200, 300. The header row has no middle rule.
  std::vector<RulingSegment> rules = {H(100, 100, 300), H(120, 100, 300), H(140, 100, 300),
                                      V(100, 100, 140), V(300, 100, 140), V(200, 120, 140)};
  std::vector<TextLine> lines = {Line("Header", 110, 105), Line("a", 110, 125), Line("b", 210, 125),
                                 Line("outside", 100, 300)};
  auto tables = FindRuledTables(rules, lines);
  ASSERT_EQ(tables.size(), 1u);
  EXPECT_EQ(tables[0].num_rows, 2);
  EXPECT_EQ(tables[0].num_cols, 2);
  EXPECT_EQ(tables[0].html,
            "<table><tr><td colspan=\"2\">Header</td></tr><tr><td>a</td><td>b</td></tr></table>");
  EXPECT_EQ(tables[0].line_indices, (std::vector<size_t>{0, 1, 2}));
}

TEST(RulingTableTest, LineCrossingCellsIsSplitByCharacter) {
  std::vector<RulingSegment> rules = {H(100, 100, 300), H(120, 100, 300), V(100, 100, 120), V(200, 100, 120),
                                      V(300, 100, 120)};
  // One text line whose characters fall in both cells (x 180..240 spans the rule at 200).
  std::vector<TextLine> lines = {Line("abcdefghijkl", 180, 105)};
  auto tables = FindRuledTables(rules, lines);
  ASSERT_EQ(tables.size(), 1u);
  EXPECT_EQ(tables[0].html, "<table><tr><td>abcd</td><td>efghijkl</td></tr></table>");
}

TEST(RulingTableTest, RowspanAndEscaping) {
  std::vector<RulingSegment> rules = {H(100, 100, 300), H(140, 100, 300), H(120, 200, 300),
                                      V(100, 100, 140), V(200, 100, 140), V(300, 100, 140)};
  std::vector<TextLine> lines = {Line("k<v", 110, 115), Line("1", 210, 105), Line("2", 210, 125)};
  auto tables = FindRuledTables(rules, lines);
  ASSERT_EQ(tables.size(), 1u);
  EXPECT_EQ(tables[0].html,
            "<table><tr><td rowspan=\"2\">k&lt;v</td><td>1</td></tr><tr><td>2</td></tr></table>");
}

TEST(RulingTableTest, FramesAndLoneRulesAreNotTables) {
  // A box around a paragraph is a 1 x 1 grid: not a table.
  std::vector<RulingSegment> frame = {H(100, 100, 300), H(200, 100, 300), V(100, 100, 200), V(300, 100, 200)};
  EXPECT_TRUE(FindRuledTables(frame, {Line("boxed text", 110, 150)}).empty());
  // Horizontal rules only.
  std::vector<RulingSegment> hs = {H(100, 100, 300), H(120, 100, 300), H(140, 100, 300)};
  EXPECT_TRUE(FindRuledTables(hs, {Line("x", 110, 105)}).empty());
  // A grid with no text in it is a drawing.
  std::vector<RulingSegment> grid = {H(100, 100, 300), H(120, 100, 300), V(100, 100, 120), V(200, 100, 120),
                                     V(300, 100, 120)};
  EXPECT_TRUE(FindRuledTables(grid, {Line("far away", 100, 500)}).empty());
}

}  // namespace
}  // namespace mineru::document
