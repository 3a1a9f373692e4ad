#include "document/table_score.h"

#include <gtest/gtest.h>

#include <algorithm>

namespace mineru::document {
namespace {

std::vector<std::string> Sorted(std::vector<std::string> v) {
  std::sort(v.begin(), v.end());
  return v;
}

std::string Rel(const std::string& a, const std::string& b, char dir) {
  return a + '\x1f' + b + '\x1f' + dir;
}

TEST(TableScoreTest, FoldsCellTexts) {
  EXPECT_EQ(FoldCellText(" Cell 1,2 (A) "), "cell12a");
  EXPECT_EQ(FoldCellText("**Total**"), "total");
  EXPECT_EQ(FoldCellText("\u2022 First \u2013 \u201cs\u00e9ance\u201d"), "firstséance");
  EXPECT_EQ(FoldCellText("\uc81c1695\ud638"), "\uc81c1695\ud638");  // Korean letters stay
}

TEST(TableScoreTest, HtmlSpansCoverTheirSlots) {
  auto grids = ExtractTableGrids(
      "text\n<table><tr><th rowspan=\"2\">Name</th><th colspan=\"2\">Score</th></tr>"
      "<tr><th>A</th><th>B</th></tr><tr><td>x</td><td>1</td><td></td></tr></table>\n");
  ASSERT_EQ(grids.size(), 1u);
  const TableGrid& g = grids[0];
  ASSERT_EQ(g.slots.size(), 3u);
  ASSERT_EQ(g.slots[0].size(), 3u);
  EXPECT_EQ(g.slots[0][0], g.slots[1][0]);  // Name spans two rows
  EXPECT_EQ(g.slots[0][1], g.slots[0][2]);  // Score spans two columns
  EXPECT_EQ(g.cells[static_cast<size_t>(g.slots[1][1])], "a");
  // Name -> Score across, Name below -> x; Score below -> A; A -> B; A below -> 1; x -> 1. The empty cell
  // has no relation, and B has nothing non-empty below it.
  EXPECT_EQ(Sorted(AdjacencyRelations(g)),
            Sorted({Rel("name", "score", 'H'), Rel("name", "x", 'V'), Rel("score", "a", 'V'),
                    Rel("a", "b", 'H'), Rel("a", "1", 'V'), Rel("x", "1", 'H')}));
}

TEST(TableScoreTest, PipeTablesReadRepeatedTextAsASpan) {
  auto grids = ExtractTableGrids(
      "| Name | Score | Score |\n|---|---|---|\n| Name | A | B |\n| x | 1 | 2 |\n\nafter\n\n| p | q |\n");
  ASSERT_EQ(grids.size(), 2u);
  const TableGrid& g = grids[0];
  EXPECT_EQ(g.slots[0][0], g.slots[1][0]);
  EXPECT_EQ(g.slots[0][1], g.slots[0][2]);
  EXPECT_NE(g.slots[1][1], g.slots[1][2]);
  // The same table as HTML with spans scores perfectly against it.
  std::string html =
      "<table><tr><td rowspan=2>Name</td><td colspan=2>Score</td></tr><tr><td>A</td><td>B</td></tr>"
      "<tr><td>x</td><td>1</td><td>2</td></tr></table>\n<table><tr><td>p</td><td>q</td></tr></table>";
  std::string pipes =
      "| Name | Score | Score |\n|---|---|---|\n| Name | A | B |\n| x | 1 | 2 |\n\n| p | q |\n";
  AdjacencyScore s = ScoreTableAdjacency(html, pipes);
  EXPECT_EQ(s.matched, s.reference);
  EXPECT_EQ(s.predicted, s.reference);
  EXPECT_DOUBLE_EQ(s.f1(), 1.0);
}

TEST(TableScoreTest, EqualNeighboursScoreAlikeAgainstAPipeTable) {
  // "X" above "X": the pipe table reads them as one cell; the same HTML table is read that way too.
  std::string pipes = "| a | b |\n|---|---|\n| r1 | X |\n| r2 | X |\n";
  std::string html =
      "<table><tr><td>a</td><td>b</td></tr><tr><td>r1</td><td>X</td></tr><tr><td>r2</td><td>X</td></tr></"
      "table>";
  AdjacencyScore s = ScoreTableAdjacency(html, pipes);
  EXPECT_EQ(s.matched, s.reference);
  EXPECT_EQ(s.predicted, s.reference);
  // Against an HTML reference the two X cells stay apart (X -> X is a relation of both).
  AdjacencyScore h = ScoreTableAdjacency(html, html);
  EXPECT_EQ(h.reference, s.reference + 1);
  EXPECT_EQ(h.matched, h.reference);
}

TEST(TableScoreTest, ALostCellCostsRecallAndAWrongOnePrecision) {
  std::string ref = "| a | b | c |\n|---|---|---|\n| 1 | 2 | 3 |\n";
  // "b" missing: a -> c instead of a -> b and b -> c; b's relation down is gone.
  AdjacencyScore lost = ScoreTableAdjacency("| a | | c |\n|---|---|---|\n| 1 | 2 | 3 |\n", ref);
  EXPECT_EQ(lost.reference, 7);
  EXPECT_LT(lost.recall(), 1.0);
  EXPECT_LT(lost.precision(), 1.0);
  AdjacencyScore none = ScoreTableAdjacency("no table here", ref);
  EXPECT_EQ(none.predicted, 0);
  EXPECT_EQ(none.f1(), 0);
}

}  // namespace
}  // namespace mineru::document
