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

TEST(AlignedTableTest, UsedLinesAreSkipped) {
  std::vector<TextLine> lines = {Line("1", 100, 100), Line("2", 200, 100), Line("3", 100, 114),
                                 Line("4", 200, 114), Line("5", 100, 128), Line("6", 200, 128)};
  EXPECT_EQ(FindAlignedTables(lines, std::vector<bool>(lines.size(), false), kPage).size(), 1u);
  EXPECT_TRUE(FindAlignedTables(lines, std::vector<bool>(lines.size(), true), kPage).empty());
}

}  // namespace
}  // namespace mineru::document
