#include "document/aligned_table.h"

#include <gtest/gtest.h>

#include "tests/document/line_builder.h"

namespace mineru::document {
namespace {

using testing::Line;

const Rect kPage{0, 0, 600, 800};

TEST(AlignedTableTest, NumericGridWithoutRules) {
  std::vector<TextLine> lines = {Line("Year", 100, 100),
                                 Line("Ducks", 200, 100),
                                 Line("2019", 100, 114),
                                 Line("120", 205, 114),
                                 Line("2020", 100, 128),
                                 Line("135", 205, 128),
                                 Line("Below the table, a sentence of prose that is long.", 100, 200)};
  auto tables = FindAlignedTables(lines, std::vector<bool>(lines.size(), false), kPage);
  ASSERT_EQ(tables.size(), 1u);
  EXPECT_EQ(tables[0].html,
            "<table><tr><td>Year</td><td>Ducks</td></tr><tr><td>2019</td><td>120</td></tr>"
            "<tr><td>2020</td><td>135</td></tr></table>");
  EXPECT_EQ(tables[0].line_indices.size(), 6u);
}

TEST(AlignedTableTest, ProseColumnsAndWordGridsAreNotTables) {
  std::vector<TextLine> prose;
  for (int i = 0; i < 5; ++i) {
    prose.push_back(Line("left column text line " + std::to_string(i), 50, 100 + 12.0 * i));
    prose.push_back(Line("right column text line " + std::to_string(i), 320, 100 + 12.0 * i));
  }
  EXPECT_TRUE(FindAlignedTables(prose, std::vector<bool>(prose.size(), false), kPage).empty());
  std::vector<TextLine> words = {Line("Yes", 100, 100),   Line("No", 200, 100),    Line("True", 100, 114),
                                 Line("False", 200, 114), Line("Maybe", 100, 128), Line("Never", 200, 128)};
  EXPECT_TRUE(FindAlignedTables(words, std::vector<bool>(words.size(), false), kPage).empty());
}

TEST(AlignedTableTest, ColumnsSetApartBySpacesInOneLine) {
  // Each row is one text line; a gap of several spaces (wider than the size) parts its cells, a single
  // space does not.
  std::vector<TextLine> lines = {Line("Item name      Count", 100, 100), Line("Red ducks      120", 100, 114),
                                 Line("Blue ducks     135", 100, 128), Line("Green ducks    7", 100, 142)};
  auto pieces = SplitAtColumnGaps(lines[1]);
  ASSERT_EQ(pieces.size(), 2u);
  EXPECT_EQ(pieces[0].text, "Red ducks");
  EXPECT_EQ(pieces[1].text, "120");
  auto tables = FindAlignedTables(lines, std::vector<bool>(lines.size(), false), kPage);
  ASSERT_EQ(tables.size(), 1u);
  EXPECT_EQ(tables[0].html,
            "<table><tr><td>Item name</td><td>Count</td></tr><tr><td>Red ducks</td><td>120</td></tr>"
            "<tr><td>Blue ducks</td><td>135</td></tr><tr><td>Green ducks</td><td>7</td></tr></table>");
}

TEST(AlignedTableTest, AHeaderOverTwoColumnsSpansThem) {
  // "Sales" is centred over the gutter between 2019 and 2020 (x 190..240 crosses 210..230).
  std::vector<TextLine> lines = {
      Line("Region", 100, 100), Line("Sales (k)", 190, 100), Line("Year", 100, 114), Line("2019", 180, 114),
      Line("2020", 230, 114),   Line("North", 100, 128),     Line("12", 180, 128),   Line("14", 230, 128),
      Line("South", 100, 142),  Line("9", 180, 142),         Line("11", 230, 142)};
  auto tables = FindAlignedTables(lines, std::vector<bool>(lines.size(), false), kPage);
  ASSERT_EQ(tables.size(), 1u);
  EXPECT_EQ(tables[0].num_cols, 3);
  EXPECT_EQ(tables[0].html,
            "<table><tr><td>Region</td><td colspan=\"2\">Sales (k)</td></tr>"
            "<tr><td>Year</td><td>2019</td><td>2020</td></tr><tr><td>North</td><td>12</td><td>14</td></tr>"
            "<tr><td>South</td><td>9</td><td>11</td></tr></table>");
}

TEST(AlignedTableTest, AFewLongValuesDoNotSplitTheirColumn) {
  // Gutters: only where no row (of three) has text; a long value reaching further does not make the
  // short values' right side a column of its own.
  std::vector<std::vector<AlignedPiece>> rows = {{{100, 120, {}}, {200, 210, {}}},
                                                 {{100, 150, {}}, {200, 260, {}}},
                                                 {{100, 120, {}}, {200, 210, {}}},
                                                 {{100, 120, {}}, {200, 210, {}}}};
  auto gutters = FindColumnGutters(rows);
  ASSERT_EQ(gutters.size(), 1u);
  EXPECT_EQ(gutters[0].first, 150);
  EXPECT_EQ(gutters[0].second, 200);
}

RulingSegment Rule(double y, double x0, double x1) { return {{x0, y - 0.4, x1, y + 0.4}, true}; }

TEST(AlignedTableTest, HorizontalRulesOnlyMakeATableOfWordsWithWrappedCells) {
  // A top rule, a rule under the header, a bottom rule; no numbers. "Vendors ... in writing" wraps.
  std::vector<RulingSegment> rules = {Rule(95, 90, 400), Rule(112, 90, 400), Rule(160, 90, 400)};
  std::vector<TextLine> lines = {Line("Party", 100, 100),      Line("Duty", 220, 100),
                                 Line("Buyer", 100, 116),      Line("Pays on time", 220, 116),
                                 Line("Vendor", 100, 130),     Line("Ships the goods", 220, 130),
                                 Line("in writing", 220, 142), Line("Prose below the table.", 100, 200)};
  auto tables = FindRuleBandTables(rules, lines, std::vector<bool>(lines.size(), false), {}, kPage);
  ASSERT_EQ(tables.size(), 1u);
  EXPECT_EQ(tables[0].html,
            "<table><tr><td>Party</td><td>Duty</td></tr><tr><td>Buyer</td><td>Pays on time</td></tr>"
            "<tr><td>Vendor</td><td>Ships the goods in writing</td></tr></table>");
  EXPECT_EQ(tables[0].line_indices.size(), 7u);
  // The same rules over a picture (its labels), or with a vertical rule between them (a grid), or
  // around prose: no table here.
  EXPECT_TRUE(
      FindRuleBandTables(rules, lines, std::vector<bool>(lines.size(), false), {{90, 90, 400, 165}}, kPage)
          .empty());
  std::vector<RulingSegment> grid = rules;
  grid.push_back({{210, 95, 211, 160}, false});
  EXPECT_TRUE(FindRuleBandTables(grid, lines, std::vector<bool>(lines.size(), false), {}, kPage).empty());
  std::vector<TextLine> prose = {
      Line("A paragraph between two rules that runs on and on, far past any cell.", 100, 100),
      Line("Its second line is just as long as the first one was, or longer.", 100, 116)};
  EXPECT_TRUE(FindRuleBandTables(rules, prose, std::vector<bool>(prose.size(), false), {}, kPage).empty());
}

TEST(AlignedTableTest, UsedLinesAreSkipped) {
  std::vector<TextLine> lines = {Line("1", 100, 100), Line("2", 200, 100), Line("3", 100, 114),
                                 Line("4", 200, 114), Line("5", 100, 128), Line("6", 200, 128)};
  EXPECT_EQ(FindAlignedTables(lines, std::vector<bool>(lines.size(), false), kPage).size(), 1u);
  EXPECT_TRUE(FindAlignedTables(lines, std::vector<bool>(lines.size(), true), kPage).empty());
}

}  // namespace
}  // namespace mineru::document
