#include "document/ruling_table.h"

#include <gtest/gtest.h>

#include <string>

#include "document/aligned_table.h"
#include "tests/document/line_builder.h"

namespace mineru::document {
namespace {

using testing::Line;
using testing::LineOfWords;

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

TEST(RulingTableTest, AWordAcrossARuleGoesWholeToTheCellHoldingMostOfIt) {
  std::vector<RulingSegment> rules = {H(100, 100, 300), H(120, 100, 300), V(100, 100, 120), V(200, 100, 120),
                                      V(300, 100, 120)};
  // "abcdefghijkl" at x 180..240 has 4 letters left of the rule at 200 and 8 right of it; "mn op" goes
  // on after it, "xy" sits in the first cell.
  std::vector<TextLine> lines = {Line("xy", 110, 105), Line("abcdefghijkl mn op", 180, 105)};
  auto tables = FindRuledTables(rules, lines);
  ASSERT_EQ(tables.size(), 1u);
  EXPECT_EQ(tables[0].html, "<table><tr><td>xy</td><td>abcdefghijkl mn op</td></tr></table>");
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

TEST(RulingTableTest, ACellsLinesJoinAsAParagraphsDo) {
  // A narrow column: "Agricul-" over "ture" is one word; a label wrapped over two lines keeps its space.
  std::vector<RulingSegment> rules = {H(100, 100, 300), H(140, 100, 300), V(100, 100, 140), V(200, 100, 140),
                                      V(300, 100, 140)};
  std::vector<TextLine> lines = {Line("Agricul-", 110, 105), Line("ture", 110, 120), Line("Farm", 210, 105),
                                 Line("workers", 210, 120)};
  auto tables = FindRuledTables(rules, lines);
  ASSERT_EQ(tables.size(), 1u);
  EXPECT_EQ(tables[0].html, "<table><tr><td>Agriculture</td><td>Farm workers</td></tr></table>");
}

TEST(RulingTableTest, RightToLeftRowsStartAtTheRight) {
  // A header across both columns, then a label (right) and its value (left), on a right-to-left page.
  std::vector<RulingSegment> rules = {H(100, 100, 300), H(120, 100, 300), H(140, 100, 300),
                                      V(100, 100, 140), V(300, 100, 140), V(200, 120, 140)};
  std::vector<TextLine> lines = {Line("head", 110, 105), Line("value", 110, 125), Line("label", 210, 125)};
  for (TextLine& line : lines) line.rtl = true;
  auto tables = FindRuledTables(rules, lines);
  ASSERT_EQ(tables.size(), 1u);
  EXPECT_EQ(tables[0].html,
            "<table><tr><td colspan=\"2\">head</td></tr><tr><td>label</td><td>value</td></tr></table>");
}

// Rows of a small table at y 105, 125, 145: a label and two figures each, set apart by whitespace.
std::vector<TextLine> LabelsAndFigures() {
  const char* rows[3][3] = {
      {"Region", "2022", "2023"}, {"North", "1,204", "1,310"}, {"South", "2,011", "2,150"}};
  std::vector<TextLine> lines;
  for (int r = 0; r < 3; ++r) {
    for (int c = 0; c < 3; ++c)
      lines.push_back(Line(rows[r][c], c == 0 ? 110 : 180 + 90.0 * c, 105 + 20.0 * r));
  }
  return lines;
}

constexpr const char* kLabelsAndFiguresHtml =
    "<table><tr><td>Region</td><td>2022</td><td>2023</td></tr><tr><td>North</td><td>1,204</td><td>1,310</"
    "td></tr>"
    "<tr><td>South</td><td>2,011</td><td>2,150</td></tr></table>";

TEST(RulingTableTest, ColumnsTheGridDrawsNoRuleBetweenAreItsWhitespaceGutters) {
  // A frame with a rule between the rows and none between the columns; then the same with one rule,
  // after the labels (the figures' columns undrawn).
  std::vector<RulingSegment> rules = {H(100, 100, 400), H(120, 100, 400), H(140, 100, 400),
                                      H(160, 100, 400), V(100, 100, 160), V(400, 100, 160)};
  auto tables = FindRuledTables(rules, LabelsAndFigures());
  ASSERT_EQ(tables.size(), 1u);
  EXPECT_EQ(tables[0].num_cols, 3);
  EXPECT_EQ(tables[0].html, kLabelsAndFiguresHtml);
  rules.push_back(V(200, 100, 160));
  tables = FindRuledTables(rules, LabelsAndFigures());
  ASSERT_EQ(tables.size(), 1u);
  EXPECT_EQ(tables[0].html, kLabelsAndFiguresHtml);
}

TEST(RulingTableTest, AHeadingCentredOverColumnsTheGridDoesNotRuleSpansThem) {
  // "Years" centred over the figures' drawn column, which holds two columns parted by whitespace.
  std::vector<RulingSegment> rules = {H(80, 100, 400),  H(100, 100, 400), H(120, 100, 400), H(140, 100, 400),
                                      H(160, 100, 400), V(100, 80, 160),  V(200, 80, 160),  V(400, 80, 160)};
  std::vector<TextLine> lines = LabelsAndFigures();
  lines.push_back(Line("Years", 287.5, 85));
  auto tables = FindRuledTables(rules, lines);
  ASSERT_EQ(tables.size(), 1u);
  EXPECT_EQ(
      tables[0].html,
      "<table><tr><td></td><td "
      "colspan=\"2\">Years</td></tr><tr><td>Region</td><td>2022</td><td>2023</td></tr>"
      "<tr><td>North</td><td>1,204</td><td>1,310</td></tr><tr><td>South</td><td>2,011</td><td>2,150</td></tr>"
      "</table>");
}

TEST(RulingTableTest, GroupsNamesSpanTheirColumnsWhateverSidesTheStyleDrawsThrough) {
  // A style whose cell shading gives every column sides in every row, the header's too: "Primary" and
  // "Secondary", each centred over three columns in the middle one, are groups' names over them.
  std::vector<RulingSegment> rules = {H(80, 100, 520), H(100, 100, 520), H(120, 100, 520), H(140, 100, 520),
                                      H(160, 100, 520)};
  for (int c = 0; c <= 7; ++c) rules.push_back(V(100.0 + 60 * c, 80, 160));
  std::vector<TextLine> lines = {Line("Region", 105, 85), Line("Primary", 232.5, 85),
                                 Line("Secondary", 407.5, 85)};
  const char* heads[] = {"Boys", "Girls", "Total", "Boys", "Girls", "Total"};
  for (int c = 0; c < 6; ++c) lines.push_back(Line(heads[c], 170.0 + 60 * c, 105));
  for (int r = 0; r < 2; ++r) {
    lines.push_back(Line(r == 0 ? "North" : "South", 105, 125.0 + 20 * r));
    for (int c = 0; c < 6; ++c)
      lines.push_back(Line(std::to_string(100 + 10 * c + r), 190.0 + 60 * c, 125.0 + 20 * r));
  }
  auto tables = FindRuledTables(rules, lines);
  ASSERT_EQ(tables.size(), 1u);
  EXPECT_TRUE(tables[0].html.starts_with(
      "<table><tr><td>Region</td><td colspan=\"3\">Primary</td><td colspan=\"3\">Secondary</td></tr>"
      "<tr><td></td><td>Boys</td>"))
      << tables[0].html;
  // Headings of narrow columns the extractor ran into one line across the drawn sides (a space apart,
  // over three of them): a cell each, no group's name.
  lines.erase(lines.begin() + 1, lines.begin() + 3);
  lines.push_back(LineOfWords({{"Proprietors", 162.5}, {"Shareholder", 222.5}, {"Departments", 282.5}}, 85));
  lines.push_back(LineOfWords({{"Proprietors", 342.5}, {"Shareholder", 402.5}, {"Departments", 462.5}}, 85));
  tables = FindRuledTables(rules, lines);
  ASSERT_EQ(tables.size(), 1u);
  EXPECT_TRUE(tables[0].html.starts_with(
      "<table><tr><td>Region</td><td>Proprietors</td><td>Shareholder</td><td>Departments</td>"))
      << tables[0].html;
}

TEST(RulingTableTest, AFrameWithRowsItDoesNotRuleIsLeftToTheWhitespace) {
  // A frame and a rule under the header: the body's rows share one drawn row, so the grid is not the
  // table's (the finders of tables between rules and of aligned cells read it).
  std::vector<RulingSegment> rules = {H(100, 100, 400), H(120, 100, 400), H(160, 100, 400), V(100, 100, 160),
                                      V(400, 100, 160)};
  std::vector<TextLine> lines = LabelsAndFigures();
  lines[3].box.y0 = lines[4].box.y0 = lines[5].box.y0 = 122;
  lines[3].box.y1 = lines[4].box.y1 = lines[5].box.y1 = 132;
  lines[6].box.y0 = lines[7].box.y0 = lines[8].box.y0 = 142;
  lines[6].box.y1 = lines[7].box.y1 = lines[8].box.y1 = 152;
  EXPECT_TRUE(FindRuledTables(rules, lines).empty());
}

TEST(RulingTableTest, ABulletSetApartFromItsItemIsNoColumn) {
  // A list in each cell of a one-column frame: "•" then the item's text two ems on.
  std::vector<RulingSegment> rules = {H(100, 100, 400), H(140, 100, 400), H(180, 100, 400), V(100, 100, 180),
                                      V(400, 100, 180)};
  std::vector<TextLine> lines;
  for (int r = 0; r < 2; ++r) {
    for (int k = 0; k < 2; ++k) {
      const double y = 105 + 40.0 * r + 15.0 * k;
      lines.push_back(testing::WideLine(U"\u2022", 110, y));
      lines.push_back(Line("Cell " + std::to_string(r + 1) + " item " + std::to_string(k + 1), 130, y));
    }
  }
  auto tables = FindRuledTables(rules, lines);
  ASSERT_EQ(tables.size(), 1u);
  EXPECT_EQ(tables[0].num_cols, 1);
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

// A listing shaded or ruled line by line is a grid of one column: in a monospaced face it is code, in
// another face a table of one column (a word processor's table of items).
TEST(RulingTableTest, AListingRuledLineByLineIsNoTable) {
  std::vector<RulingSegment> rules = {V(100, 100, 160), V(300, 100, 160)};
  for (int r = 0; r <= 3; ++r) rules.push_back(H(100 + 20 * r, 100, 300));
  std::vector<TextLine> lines = {Line("int add(int a, int b) {", 110, 105), Line("  return a + b;", 110, 125),
                                 Line("}", 110, 145)};
  ASSERT_EQ(FindRuledTables(rules, lines).size(), 1u);
  for (TextLine& l : lines) l.monospace = true;
  EXPECT_TRUE(FindRuledTables(rules, lines).empty());
}

TEST(RulingTableTest, RulesPastTheOutermostVerticalAddTheOpenSideColumns) {
  // Rules between the columns only (x 200 and 300); the horizontal rules run from 100 to 400.
  std::vector<RulingSegment> rules = {H(100, 100, 400), H(120, 100, 400), H(140, 100, 400), V(200, 100, 140),
                                      V(300, 100, 140)};
  std::vector<TextLine> lines = {Line("n", 110, 105), Line("a", 210, 105), Line("b", 310, 105),
                                 Line("1", 110, 125), Line("2", 210, 125), Line("3", 310, 125)};
  auto tables = FindRuledTables(rules, lines);
  ASSERT_EQ(tables.size(), 1u);
  EXPECT_EQ(tables[0].num_cols, 3);
  EXPECT_EQ(tables[0].html,
            "<table><tr><td>n</td><td>a</td><td>b</td></tr><tr><td>1</td><td>2</td><td>3</td></tr></table>");
  // One rule alone reaching further (a border) adds nothing.
  rules[0] = H(100, 20, 400);
  tables = FindRuledTables(rules, lines);
  ASSERT_EQ(tables.size(), 1u);
  EXPECT_EQ(tables[0].num_cols, 3);
}

TEST(RulingTableTest, AColumnDividerCrossedByAHeaderAndAFooterRuleIsNoTable) {
  std::vector<RulingSegment> rules = {H(50, 40, 560), H(750, 40, 560), V(300, 40, 760)};
  std::vector<TextLine> lines = {Line("left column text", 60, 100), Line("right column text", 320, 100)};
  EXPECT_TRUE(FindRuledTables(rules, lines).empty());
}

TEST(RulingTableTest, AColumnRuleLeftOutOfOneRowStillPartsThatRowsCells) {
  // A frame and a rule under every row; the rules between the columns are drawn in every row but the
  // third (a banded style's rows drawn without them). The third row's cells, one in each column, are
  // still three cells; a heading alone in the first column of such a row would span it.
  std::vector<RulingSegment> rules = {H(100, 40, 400), H(120, 40, 400), H(140, 40, 400), H(160, 40, 400),
                                      H(180, 40, 400), V(40, 100, 180), V(400, 100, 180)};
  for (double x : {160.0, 280.0}) {
    rules.push_back(V(x, 100, 140));
    rules.push_back(V(x, 160, 180));
  }
  std::vector<TextLine> lines = {Line("Region", 50, 105), Line("2021", 170, 105),  Line("2022", 290, 105),
                                 Line("North", 50, 125),  Line("1,204", 170, 125), Line("1,310", 290, 125),
                                 Line("West", 50, 145),   Line("2,450", 170, 145), Line("2,611", 290, 145),
                                 Line("East", 50, 165),   Line("1,116", 170, 165), Line("1,190", 290, 165)};
  auto tables = FindRuledTables(rules, lines);
  ASSERT_EQ(tables.size(), 1u);
  EXPECT_NE(tables[0].html.find("<tr><td>West</td><td>2,450</td><td>2,611</td></tr>"), std::string::npos)
      << tables[0].html;
  lines.erase(lines.begin() + 7, lines.begin() + 9);  // "West" alone: a heading over the row
  tables = FindRuledTables(rules, lines);
  ASSERT_EQ(tables.size(), 1u);
  EXPECT_NE(tables[0].html.find("<tr><td colspan=\"3\">West</td></tr>"), std::string::npos) << tables[0].html;
}

TEST(RulingTableTest, AHeaderRowRightOverAGridWithNoRuleAboveItIsItsFirstRow) {
  // A word processor's table style draws the rule under the header row only: the headings sit right over
  // the grid's top edge, within its sides, a cell each; group headings over them, one over two columns.
  std::vector<RulingSegment> rules = {H(120, 40, 520),  H(140, 40, 520),  H(160, 40, 520),  V(40, 120, 160),
                                      V(160, 120, 160), V(280, 120, 160), V(400, 120, 160), V(520, 120, 160)};
  std::vector<TextLine> lines = {Line("Revenue", 250, 94), Line("Staff", 445, 94),  Line("Region", 50, 107),
                                 Line("2021", 170, 107),   Line("2022", 290, 107),  Line("2022", 410, 107),
                                 Line("North", 50, 125),   Line("1,204", 170, 125), Line("1,310", 290, 125),
                                 Line("12", 410, 125),     Line("South", 50, 145),  Line("987", 170, 145),
                                 Line("1,002", 290, 145),  Line("9", 410, 145)};
  auto tables = FindRuledTables(rules, lines);
  ASSERT_EQ(tables.size(), 1u);
  EXPECT_TRUE(tables[0].html.starts_with(
      "<table><tr><td></td><td colspan=\"2\">Revenue</td><td>Staff</td></tr><tr><td>Region</td><td>2021</td>"
      "<td>2022</td><td>2022</td></tr><tr><td>North</td>"))
      << tables[0].html;
  // A caption alone over the grid, or a line of prose reaching past its sides, is no header row.
  for (const TextLine& over :
       {Line("Table 2: Revenue and staff by region", 50, 107),
        Line("Region 2021 2022 and the staff of each of the regional offices", 30, 107)}) {
    std::vector<TextLine> body = {over};
    body.insert(body.end(), lines.begin() + 6, lines.end());
    tables = FindRuledTables(rules, body);
    ASSERT_EQ(tables.size(), 1u);
    EXPECT_TRUE(tables[0].html.starts_with("<table><tr><td>North</td>")) << tables[0].html;
  }
}

TEST(RulingTableTest, ShadedHeaderCellsOverRowsLeftUnshadedGiveTheirRowsEdgesOnly) {
  Rect page{0, 0, 600, 800};
  std::vector<Rect> fills = {{100, 100, 200, 116}, {200, 100, 300, 116}};
  std::vector<TextLine> header = {Line("Region", 110, 103), Line("2021", 260, 103)};
  std::vector<TextLine> rows = header;
  rows.push_back(Line("North", 110, 120));
  rows.push_back(Line("1,204", 260, 120));
  auto vertical = [](const std::vector<RulingSegment>& edges) {
    return std::ranges::count_if(edges, [](const RulingSegment& e) { return !e.horizontal; });
  };
  // Rows carrying on the header's columns right under it: a header, its columns the text's to find.
  std::vector<RulingSegment> edges = CellFillEdges(fills, {}, rows, page);
  EXPECT_EQ(edges.size(), 4u);
  EXPECT_EQ(vertical(edges), 0);
  // Nothing under it, or a line in one column only (a note): the tiles are a grid of their own; and so
  // they are over rows ruled down their sides (a grid's column rule going on from the header's).
  EXPECT_EQ(vertical(CellFillEdges(fills, {}, header, page)), 4);
  EXPECT_EQ(vertical(CellFillEdges(fills, {V(200, 116, 140)}, rows, page)), 4);
  std::vector<TextLine> note = header;
  note.push_back(Line("Source: the ministry", 110, 120));
  EXPECT_EQ(vertical(CellFillEdges(fills, {}, note, page)), 4);
}

TEST(RulingTableTest, AStripeShortOfTheFirstColumnUnderACellMergedDownIsAStripeOfTheTable) {
  // A banded table whose second stripe leaves the first column out: a group's name merged down over
  // three rows there. The stripes are of one table; the name spans its rows.
  const Rect page{0, 0, 600, 800};
  const std::vector<Rect> fills = {{100, 115, 200, 135},
                                   {200, 115, 300, 135},
                                   {300, 115, 400, 135},
                                   {200, 155, 300, 175},
                                   {300, 155, 400, 175}};
  const std::vector<TextLine> lines = {
      Line("Goal", 105, 102),    Line("Action", 205, 102), Line("Lead", 305, 102),
      Line("Roads", 105, 120),   Line("Repair", 205, 120), Line("Council", 305, 120),
      Line("Schools", 105, 140), Line("Build", 205, 140),  Line("Ministry", 305, 140),
      Line("Train", 205, 160),   Line("Agency", 305, 160), Line("Hire", 205, 178),
      Line("Office", 305, 178)};
  std::vector<RulingSegment> rules = {H(100, 100, 400), H(115, 100, 400), H(190, 100, 400)};
  std::vector<RulingSegment> edges = CellFillEdges(fills, rules, lines, page);
  rules.insert(rules.end(), edges.begin(), edges.end());
  auto tables = FindRuledTables(rules, lines);
  ASSERT_EQ(tables.size(), 1u);
  EXPECT_EQ(tables[0].html,
            "<table><tr><td>Goal</td><td>Action</td><td>Lead</td></tr><tr><td>Roads</td><td>Repair</td>"
            "<td>Council</td></tr><tr><td rowspan=\"3\">Schools</td><td>Build</td><td>Ministry</td></tr>"
            "<tr><td>Train</td><td>Agency</td></tr><tr><td>Hire</td><td>Office</td></tr></table>");
}

TEST(RulingTableTest, StripesJoinedByACellMergedDownBesideThemAreOneBandedTable) {
  // A banded table whose group's name, shaded, is merged down over three rows: the two stripes beside it
  // and the name are one group of tiles with a hole (the unshaded row between the stripes), no shaded
  // header; the row under it down to the frame's rule is the table's. The writer fills each cell twice.
  const Rect page{0, 0, 600, 800};
  std::vector<Rect> fills = {{100, 115, 200, 175},
                             {200, 115, 300, 135},
                             {300, 115, 400, 135},
                             {200, 155, 300, 175},
                             {300, 155, 400, 175}};
  fills.insert(fills.end(), fills.begin(), fills.end());
  const std::vector<TextLine> lines = {
      Line("Goal", 105, 102),    Line("Action", 205, 102), Line("Lead", 305, 102),
      Line("Schools", 105, 120), Line("Build", 205, 120),  Line("Ministry", 305, 120),
      Line("Train", 205, 140),   Line("Agency", 305, 140), Line("Hire", 205, 160),
      Line("Office", 305, 160),  Line("Roads", 105, 178),  Line("Repair", 205, 178),
      Line("Council", 305, 178)};
  std::vector<RulingSegment> rules = {H(100, 100, 400), H(115, 100, 400), H(190, 100, 400)};
  const std::vector<RulingSegment> edges = CellFillEdges(fills, rules, lines, page);
  rules.insert(rules.end(), edges.begin(), edges.end());
  auto tables = FindRuledTables(rules, lines);
  ASSERT_EQ(tables.size(), 1u);
  EXPECT_EQ(tables[0].html,
            "<table><tr><td>Goal</td><td>Action</td><td>Lead</td></tr><tr><td rowspan=\"3\">Schools</td>"
            "<td>Build</td><td>Ministry</td></tr><tr><td>Train</td><td>Agency</td></tr><tr><td>Hire</td>"
            "<td>Office</td></tr><tr><td>Roads</td><td>Repair</td><td>Council</td></tr></table>");
}

TEST(RulingTableTest, ATabOverABoxOrAnIconWithAHoleIsNoStripesJoinedByAMergedCell) {
  // A shaded tab over a shaded box (a callout's label) leaves a hole beside the tab but has no cell as
  // tall as the group: with rows carrying on under it, its rows' edges only. Nor are shapes of an icon
  // (no text in them) stripes, whatever their holes.
  const Rect page{0, 0, 600, 800};
  auto vertical = [](const std::vector<RulingSegment>& edges) {
    return std::ranges::count_if(edges, [](const RulingSegment& e) { return !e.horizontal; });
  };
  const std::vector<Rect> tab = {{100, 100, 200, 115}, {100, 115, 200, 140}, {200, 115, 300, 140}};
  const std::vector<TextLine> lines = {Line("Note", 105, 103), Line("Cost", 105, 120), Line("Rate", 205, 120),
                                       Line("North", 105, 143), Line("1,204", 205, 143)};
  EXPECT_EQ(vertical(CellFillEdges(tab, {}, lines, page)), 0);
  const std::vector<Rect> icon = {{100, 100, 104, 130}, {104, 100, 120, 108}, {104, 122, 120, 130}};
  const std::vector<TextLine> beside = {Line("x", 99.5, 133), Line("y", 107, 133)};
  EXPECT_EQ(vertical(CellFillEdges(icon, {}, beside, page)), 0);
}

TEST(RulingTableTest, AMergedCellIsNoRowOfItsGroupAndItsHeightNoStripeSpacing) {
  // A shaded header far above a group whose first column is one cell merged down over three rows: its
  // rows are the stripes' height (20), not the merged cell's (60), so the two are no stripes of one table
  // 150 points apart, and no column side is drawn between them.
  const Rect page{0, 0, 600, 800};
  const std::vector<Rect> fills = {{100, 100, 200, 115}, {200, 100, 300, 115}, {300, 100, 400, 115},
                                   {100, 265, 200, 325}, {200, 265, 300, 285}, {300, 265, 400, 285},
                                   {200, 305, 300, 325}, {300, 305, 400, 325}};
  for (const RulingSegment& e : CellFillEdges(fills, {}, {}, page)) {
    EXPECT_FALSE(!e.horizontal && e.box.y0 < 200 && e.box.y1 > 200) << e.box.x0 << " " << e.box.y0;
  }
}

TEST(RulingTableTest, AParagraphAsWideAsTwoBandedTablesBetweenThemPartsThem) {
  // Two banded tables of one width, a paragraph between them set as wide (inset as a cell's text is):
  // no stripes of one table, no column side drawn across the paragraph.
  const Rect page{0, 0, 600, 800};
  const std::vector<Rect> fills = {{100, 100, 200, 115}, {200, 100, 300, 115}, {300, 100, 400, 115},
                                   {100, 145, 200, 160}, {200, 145, 300, 160}, {300, 145, 400, 160}};
  const std::vector<TextLine> lines = {
      Line("A paragraph of prose between the tables, set as wide.", 105, 126)};
  for (const RulingSegment& e : CellFillEdges(fills, {}, lines, page)) {
    EXPECT_FALSE(!e.horizontal && e.box.y0 < 126 && e.box.y1 > 136) << e.box.x0 << " " << e.box.y0;
  }
}

TEST(RulingTableTest, AGroupsNameOnItsFirstRowStartsACellWhereTheFirstColumnHasNoRules) {
  // A style that rules the rows in every column but the first, the groups' names there merged down:
  // a name on the first baseline of a full row that does not go on from the text above it starts a cell
  // of its own; a label's wrapped line ("roads") goes on in its cell, and so does a line of it below the
  // next row's first baseline ("Bridges").
  const std::vector<RulingSegment> rules = {
      H(100, 100, 400), H(115, 100, 400), H(195, 100, 400), V(100, 100, 195), V(200, 100, 195),
      V(300, 100, 195), V(400, 100, 195), H(135, 200, 400), H(155, 200, 400), H(175, 200, 400)};
  const std::vector<TextLine> lines = {
      Line("Goal", 105, 102),     Line("Action", 205, 102),  Line("Lead", 305, 102),
      Line("Safer", 105, 117),    Line("Repair", 205, 117),  Line("Council", 305, 117),
      Line("roads", 105, 126),    Line("Bridges", 105, 146), Line("Light", 205, 140),
      Line("Agency", 305, 140),   Line("Schools", 105, 160), Line("Build", 205, 160),
      Line("Ministry", 305, 160), Line("Hire", 205, 180),    Line("Office", 305, 180)};
  auto tables = FindRuledTables(rules, lines);
  ASSERT_EQ(tables.size(), 1u);
  EXPECT_EQ(tables[0].html,
            "<table><tr><td>Goal</td><td>Action</td><td>Lead</td></tr><tr><td rowspan=\"2\">Safer roads "
            "Bridges</td><td>Repair</td><td>Council</td></tr><tr><td>Light</td><td>Agency</td></tr><tr><td "
            "rowspan=\"2\">Schools</td><td>Build</td><td>Ministry</td></tr><tr><td>Hire</td><td>Office</td>"
            "</tr></table>");
  // Not where that row leaves a column empty, nor where its rule leaves out another column too.
  std::vector<TextLine> partial = lines;
  std::erase_if(partial, [](const TextLine& l) { return l.text == "Ministry"; });
  tables = FindRuledTables(rules, partial);
  ASSERT_EQ(tables.size(), 1u);
  EXPECT_NE(tables[0].html.find("Safer roads Bridges Schools"), std::string::npos) << tables[0].html;
  std::vector<RulingSegment> fewer = rules;
  fewer[8] = H(155, 200, 300);
  tables = FindRuledTables(fewer, lines);
  ASSERT_EQ(tables.size(), 1u);
  EXPECT_NE(tables[0].html.find("Safer roads Bridges Schools"), std::string::npos) << tables[0].html;
}

TEST(RulingTableTest, ShadedCellsThatTileFormTheGrid) {
  Rect page{0, 0, 600, 800};
  // Two rows of two shaded cells, touching; the header cell spans both columns.
  std::vector<Rect> fills = {{100, 100, 300, 120}, {100, 120, 200, 140}, {200, 120, 300, 140}};
  std::vector<RulingSegment> edges = CellFillEdges(fills, {}, {}, page);
  EXPECT_EQ(edges.size(), 12u);
  auto tables = FindRuledTables(edges, {Line("Head", 110, 105), Line("a", 110, 125), Line("b", 210, 125)});
  ASSERT_EQ(tables.size(), 1u);
  EXPECT_EQ(tables[0].html,
            "<table><tr><td colspan=\"2\">Head</td></tr><tr><td>a</td><td>b</td></tr></table>");
  // A shaded box alone, boxes apart (bars) and a page background add no edges.
  EXPECT_TRUE(CellFillEdges({{100, 100, 300, 200}}, {}, {}, page).empty());
  EXPECT_TRUE(CellFillEdges({{100, 100, 120, 300}, {140, 150, 160, 300}}, {}, {}, page).empty());
  EXPECT_TRUE(CellFillEdges({{0, 0, 600, 800}, {0, 800, 600, 810}}, {}, {}, page).empty());
}

TEST(RulingTableTest, AShadedRowAloneBoundsBandsWithItsTopAndBottomEdges) {
  Rect page{0, 0, 600, 800};
  // A header row shaded across the table: its two edges, horizontal.
  std::vector<RulingSegment> edges = ShadedRowEdges({{72, 100, 540, 116}}, {}, page);
  ASSERT_EQ(edges.size(), 2u);
  EXPECT_TRUE(edges[0].horizontal && edges[1].horizontal);
  EXPECT_NEAR(edges[0].box.cy(), 100, 0.01);
  EXPECT_NEAR(edges[1].box.cy(), 116, 0.01);
  // A narrow swatch and a tall box: none.
  EXPECT_TRUE(ShadedRowEdges({{72, 100, 120, 115}}, {}, page).empty());
  EXPECT_TRUE(ShadedRowEdges({{72, 100, 540, 300}}, {}, page).empty());
}

TEST(RulingTableTest, ZebraStripesBoundTheirRowsAndTheLastRowUnderThem) {
  Rect page{0, 0, 600, 800};
  // Rows 1 and 3 shaded, rows 2 and 4 not; each row's first line 3 points under its top.
  std::vector<Rect> stripes = {{72, 100, 540, 126}, {72, 152, 540, 178}};
  std::vector<TextLine> lines = {
      Line("Funding", 76, 103),        Line("Grants may", 200, 103),   Line("fall short", 200, 114),
      Line("Suppliers", 76, 129),      Line("A contractor", 200, 129), Line("fails", 200, 140),
      Line("Staff", 76, 155),          Line("Key staff", 200, 155),    Line("Data", 76, 181),
      Line("Personal data", 200, 181), Line("is lost", 200, 192)};
  auto ys = [](const std::vector<RulingSegment>& edges) {
    std::vector<double> out;
    for (const RulingSegment& e : edges) {
      EXPECT_TRUE(e.horizontal);
      out.push_back(e.box.cy());
    }
    std::ranges::sort(out);
    return out;
  };
  // Each stripe's edges, and under the last stripe the bottom of the row under it (its second line's).
  EXPECT_EQ(ys(ShadedRowEdges(stripes, lines, page)), (std::vector<double>{100, 126, 152, 178, 203}));
  // They bound the rows of a table of wrapped text.
  auto tables = FindRuleBandTables(ShadedRowEdges(stripes, lines, page), lines,
                                   std::vector<bool>(lines.size()), {}, page);
  ASSERT_EQ(tables.size(), 1u);
  EXPECT_EQ(
      tables[0].html,
      "<table><tr><td>Funding</td><td>Grants may fall short</td></tr><tr><td>Suppliers</td><td>A "
      "contractor fails</td></tr><tr><td>Staff</td><td>Key staff</td></tr><tr><td>Data</td><td>Personal "
      "data is lost</td></tr></table>");
  // Under the last stripe a note in one piece, or a line further down than the rows' first lines: the
  // table ends with the stripe.
  std::vector<TextLine> note(lines.begin(), lines.begin() + 8);
  note.push_back(Line("Source: the risk register.", 76, 181, 8));
  EXPECT_EQ(ys(ShadedRowEdges(stripes, note, page)), (std::vector<double>{100, 126, 152, 178}));
  std::vector<TextLine> apart(lines.begin(), lines.begin() + 8);
  apart.push_back(Line("Data", 76, 190));
  apart.push_back(Line("Personal data", 200, 190));
  EXPECT_EQ(ys(ShadedRowEdges(stripes, apart, page)), (std::vector<double>{100, 126, 152, 178}));
}

TEST(RulingTableTest, RulesBetweenColumnsAndNoneBetweenRowsOfFiguresLeaveTheRowsToTheWhitespace) {
  // Rules over and under the header and at the foot, rules between the columns: the body is one drawn row
  // of four baselines of figures.
  std::vector<RulingSegment> rules = {H(100, 100, 400), H(118, 100, 400), H(180, 100, 400), V(200, 100, 180),
                                      V(300, 100, 180)};
  std::vector<TextLine> lines = {
      Line("Area", 105, 104),      Line("Budget", 205, 104), Line("Projects", 305, 104),
      Line("Energy", 105, 122),    Line("45.0", 205, 122),   Line("120", 305, 122),
      Line("Transport", 105, 136), Line("30.5", 205, 136),   Line("42", 305, 136),
      Line("Water", 105, 150),     Line("12.0", 205, 150),   Line("35", 305, 150),
      Line("Total", 105, 164),     Line("87.5", 205, 164),   Line("197", 305, 164)};
  EXPECT_TRUE(FindRuledTables(rules, lines).empty());
  auto tables = FindAlignedTables(lines, std::vector<bool>(lines.size(), false), {0, 0, 600, 800});
  ASSERT_EQ(tables.size(), 1u);
  EXPECT_EQ(tables[0].html,
            "<table><tr><td>Area</td><td>Budget</td><td>Projects</td></tr><tr><td>Energy</td><td>45.0</td>"
            "<td>120</td></tr><tr><td>Transport</td><td>30.5</td><td>42</td></tr><tr><td>Water</td>"
            "<td>12.0</td><td>35</td></tr><tr><td>Total</td><td>87.5</td><td>197</td></tr></table>");
  // Rules between the rows too, a figure and its share in a cell: a grid.
  std::vector<RulingSegment> grid = {H(100, 100, 400), H(118, 100, 400), H(150, 100, 400), V(100, 100, 150),
                                     V(200, 100, 150), V(300, 100, 150), V(400, 100, 150)};
  std::vector<TextLine> shares = {
      Line("Area", 105, 104), Line("Budget", 205, 104), Line("Projects", 305, 104), Line("Energy", 105, 122),
      Line("45.0", 205, 122), Line("120", 305, 122),    Line("(51%)", 205, 136),    Line("(61%)", 305, 136)};
  ASSERT_EQ(FindRuledTables(grid, shares).size(), 1u);
}

TEST(RulingTableTest, TwoFullLinesInOneDrawnRowOfAGridAreTwoRows) {
  // A grid ruled all round and between its columns, a rule under its header, its body rows, two of them,
  // in one drawn row with no rule between (LaTeX's |l|r|r| with \hline only around the body): two rows.
  // A figure and its share under it, the label on the first line only, stay one row.
  std::vector<RulingSegment> rules = {H(100, 100, 400), H(118, 100, 400), H(150, 100, 400), V(100, 100, 150),
                                      V(200, 100, 150), V(300, 100, 150), V(400, 100, 150)};
  std::vector<TextLine> lines = {Line("Budget", 105, 104), Line("Weights", 205, 104), Line("Peak", 305, 104),
                                 Line("100%", 105, 122),   Line("1340", 205, 122),    Line("2210", 305, 122),
                                 Line("50%", 105, 136),    Line("670", 205, 136),     Line("1105", 305, 136)};
  auto tables = FindRuledTables(rules, lines);
  ASSERT_EQ(tables.size(), 1u);
  EXPECT_EQ(tables[0].html,
            "<table><tr><td>Budget</td><td>Weights</td><td>Peak</td></tr><tr><td>100%</td><td>1340</td>"
            "<td>2210</td></tr><tr><td>50%</td><td>670</td><td>1105</td></tr></table>");
  std::vector<TextLine> shares = {
      Line("Area", 105, 104), Line("Budget", 205, 104), Line("Projects", 305, 104), Line("Energy", 105, 122),
      Line("45.0", 205, 122), Line("120", 305, 122),    Line("(51%)", 205, 136),    Line("(61%)", 305, 136)};
  tables = FindRuledTables(rules, shares);
  ASSERT_EQ(tables.size(), 1u);
  EXPECT_EQ(tables[0].num_rows, 2);
}

TEST(RulingTableTest, TextWrappedInEveryCellOfARowAtOnceIsOneRow) {
  // The same grid, its body one row of text wrapped in all three cells at once, each line going on from
  // the one above it (it starts in lower case, or the line above ends open): one row.
  std::vector<RulingSegment> rules = {H(100, 100, 400), H(118, 100, 400), H(150, 100, 400), V(100, 100, 150),
                                      V(200, 100, 150), V(300, 100, 150), V(400, 100, 150)};
  std::vector<TextLine> lines = {
      Line("Action", 105, 104),      Line("Response", 205, 104),     Line("Status", 305, 104),
      Line("Replace the", 105, 122), Line("Partly done,", 205, 122), Line("Delayed by", 305, 122),
      Line("payroll", 105, 136),     Line("two regions", 205, 136),  Line("six months", 305, 136)};
  auto tables = FindRuledTables(rules, lines);
  ASSERT_EQ(tables.size(), 1u);
  EXPECT_EQ(tables[0].html,
            "<table><tr><td>Action</td><td>Response</td><td>Status</td></tr><tr><td>Replace the payroll</td>"
            "<td>Partly done, two regions</td><td>Delayed by six months</td></tr></table>");
}

TEST(RulingTableTest, RulesBetweenColumnsAndNoneBetweenRowsOfTextPartRowsAtBlankLinesOrAtFullBaselines) {
  // Rules over and under the header and at the foot, rules between the columns; the body's rows of text
  // are set a blank line apart, their cells wrapped ("with the Local" / "Government Association").
  std::vector<RulingSegment> rules = {H(100, 100, 500), H(118, 100, 500), H(200, 100, 500), V(250, 100, 200),
                                      V(400, 100, 200)};
  std::vector<TextLine> lines = {Line("Action", 105, 104, 8),
                                 Line("Owner", 255, 104, 8),
                                 Line("Deadline", 405, 104, 8),
                                 Line("Publish the guidance", 105, 122, 8),
                                 Line("Department, with the", 255, 122, 8),
                                 Line("March 2024", 405, 122, 8),
                                 Line("Local Government", 255, 132, 8),
                                 Line("Review the formula", 105, 148, 8),
                                 Line("Treasury", 255, 148, 8),
                                 Line("End of the year", 405, 148, 8),
                                 Line("Evaluate the pilot", 105, 168, 8),
                                 Line("An evaluator", 255, 168, 8),
                                 Line("Late 2025", 405, 168, 8),
                                 Line("On Time", 255, 178, 8)};
  const char* kRows =
      "<table><tr><td>Action</td><td>Owner</td><td>Deadline</td></tr><tr><td>Publish the guidance</td>"
      "<td>Department, with the Local Government</td><td>March 2024</td></tr><tr><td>Review the formula</td>"
      "<td>Treasury</td><td>End of the year</td></tr><tr><td>Evaluate the pilot</td><td>An evaluator On "
      "Time</td><td>Late 2025</td></tr></table>";
  auto tables = FindRuledTables(rules, lines);
  ASSERT_EQ(tables.size(), 1u);
  EXPECT_EQ(tables[0].html, kRows);
  // Set without blank lines, the rows start at the baselines with cells side by side.
  for (TextLine& l : lines) {
    const double shift = l.box.y0 >= 168 ? -10 : l.box.y0 >= 148 ? -6 : 0;
    l = Line(l.text, l.box.x0, l.box.y0 + shift, 8);
  }
  tables = FindRuledTables(rules, lines);
  ASSERT_EQ(tables.size(), 1u);
  EXPECT_EQ(tables[0].html, kRows);
}

TEST(RulingTableTest, BoxesOfParagraphsAndDiagramsAreNoTables) {
  // Two framed boxes side by side, each a paragraph (a cover, a text frame).
  std::vector<RulingSegment> boxes = {H(100, 100, 500), H(300, 100, 500), V(100, 100, 300), V(300, 100, 300),
                                      V(500, 100, 300)};
  std::vector<TextLine> prose;
  for (int i = 0; i < 9; ++i) {
    prose.push_back(Line("one two three four", 110, 110 + 20 * i, 8));
    prose.push_back(Line("five six seven eight", 310, 110 + 20 * i, 8));
  }
  EXPECT_TRUE(FindRuledTables(boxes, prose).empty());
  // A diagram: most cells empty and labels cut by its lines.
  std::vector<RulingSegment> diagram = {
      H(100, 100, 500), H(120, 100, 500), H(140, 100, 500), H(160, 100, 500), H(180, 100, 500),
      V(100, 100, 180), V(200, 100, 180), V(300, 100, 180), V(400, 100, 180), V(500, 100, 180)};
  std::vector<TextLine> labels = {Line("label", 185, 105), Line("other", 285, 145)};
  EXPECT_TRUE(FindRuledTables(diagram, labels).empty());
}

}  // namespace
}  // namespace mineru::document
