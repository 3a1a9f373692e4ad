#include "document/aligned_table.h"

#include <gtest/gtest.h>

#include <string>

#include "tests/document/line_builder.h"

namespace mineru::document {
namespace {

using testing::InFont;
using testing::Line;
using testing::LineEndingAt;
using testing::LineOfWords;
using testing::WideLine;

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

// An index set in two columns: entries and their page numbers side by side on shared baselines, lines of
// page numbers (a numeric column by the look of it) where an entry wraps. Each column is text.
TEST(AlignedTableTest, AChartsAxisTitleSetOnItsSideIsNoCell) {
  // A line chart's y-axis title set up its side beside the tick value 60, the values 80 and 40 above and
  // below, and the x-axis's tick values under the frame.
  TextLine title = Line("framework", 150, 200, 8);
  title.box = {150, 190, 158, 222};
  title.sideways = true;
  std::vector<TextLine> lines = {
      Line("80", 170, 180, 8),
      title,
      Line("60", 170, 200, 8),
      Line("40", 170, 220, 8),
      LineOfWords({{"0", 200}, {"10", 243}, {"20", 286}, {"30", 329}, {"40", 372}, {"50", 415}}, 240, 8),
      Line("in", 305, 255, 8)};
  EXPECT_TRUE(FindAlignedTables(lines, std::vector<bool>(lines.size(), false), kPage).empty());
}

TEST(AlignedTableTest, AnIndexInTwoColumnsIsNoTable) {
  const std::vector<std::pair<std::string, std::string>> entries = {
      {"preamble, 5, 6, 27, 70,", "\\printtime, 330"}, {"121, 149, 153", "\\printXtitle, 152"},
      {"\\preauthor, 64", "program, 307, 308,"},       {"\\prebibhook, 262, 306", "312, 314, 315"},
      {"\\precaption, 189, 198", "proportion"},        {"\\predate, 64", "margin, 17"}};
  std::vector<TextLine> lines;
  double y = 100;
  for (const auto& [left, right] : entries) {
    lines.push_back(Line(left, 60, y));
    lines.push_back(Line(right, 320, y));
    y += 12;
  }
  EXPECT_TRUE(FindAlignedTables(lines, std::vector<bool>(lines.size(), false), kPage).empty());
  // The same rows with figures in place of the page numbers' lists are a table.
  for (TextLine& l : lines) {
    if (const size_t comma = l.text.find(", "); comma != std::string::npos) {
      l = Line(l.text.substr(0, comma), l.box.x0, l.box.y0);
    }
  }
  lines[1] = Line("4,120", 320, 100);
  lines[3] = Line("3,977", 320, 112);
  lines[5] = Line("3,050", 320, 124);
  lines[9] = Line("2,861", 320, 148);
  lines[11] = Line("2,433", 320, 160);
  EXPECT_EQ(FindAlignedTables(lines, std::vector<bool>(lines.size(), false), kPage).size(), 1u);
}

// A listing with its lines numbered: the numbers count the rows, they are no column of figures.
TEST(AlignedTableTest, ANumberedListingIsNoTable) {
  const std::vector<std::string> code = {"\\def\\x{%", "\\expandafter\\@gobble", "\\else", "#2%", "\\fi",
                                         "}%"};
  std::vector<TextLine> lines;
  for (size_t i = 0; i < code.size(); ++i) {
    const double y = 100 + 12.0 * static_cast<double>(i);
    lines.push_back(LineEndingAt(std::to_string(1400 + i) + (i == 2 ? ":" : ""), 80, y));
    lines.push_back(Line(code[i], 100, y));
  }
  EXPECT_TRUE(FindAlignedTables(lines, std::vector<bool>(lines.size(), false), kPage).empty());
  // Code in a monospaced face whose comments stand in a column of their own: still a listing.
  std::vector<TextLine> commented = lines;
  for (size_t i = 0; i < code.size(); ++i) {
    commented.push_back(Line("% step " + std::to_string(i), 300, lines[2 * i].box.y0));
  }
  for (size_t i = 0; i < commented.size(); ++i) commented[i].monospace = i % 2 == 1 || i >= lines.size();
  EXPECT_TRUE(FindAlignedTables(commented, std::vector<bool>(commented.size(), false), kPage).empty());
  // A table of character codes in a typewriter face: codes counting up, names in three columns.
  std::vector<TextLine> codes;
  for (int i = 0; i < 5; ++i) {
    const double y = 500 + 12.0 * i;
    codes.push_back(LineEndingAt(std::to_string(187 + i), 80, y));
    for (int k = 0; k < 3; ++k) {
      codes.push_back(
          Line("glyph" + std::to_string(i) + std::string(1, static_cast<char>('a' + k)), 100 + 90 * k, y));
      codes.back().monospace = true;
    }
  }
  EXPECT_EQ(FindAlignedTables(codes, std::vector<bool>(codes.size(), false), kPage).size(), 1u);
  // Display equations numbered at the right margin.
  std::vector<TextLine> equations;
  for (int i = 0; i < 4; ++i) {
    const double y = 300 + 14.0 * i;
    equations.push_back(Line("x" + std::to_string(i) + " = a + b", 200, y));
    equations.push_back(LineEndingAt("(" + std::to_string(i + 3) + ")", 540, y));
  }
  EXPECT_TRUE(FindAlignedTables(equations, std::vector<bool>(equations.size(), false), kPage).empty());
  // Items numbered in a table: a column of text beside the items'.
  std::vector<TextLine> numbered = lines;
  for (size_t i = 0; i < code.size(); ++i)
    numbered.push_back(Line("owner " + std::to_string(i), 300, lines[2 * i].box.y0));
  EXPECT_EQ(FindAlignedTables(numbered, std::vector<bool>(numbered.size(), false), kPage).size(), 1u);
  // Numbers that do not go up by one step are figures: a table.
  for (size_t i = 0; i < code.size(); ++i) {
    lines[2 * i] = LineEndingAt(std::to_string(1400 + 7 * i * i), 80, lines[2 * i].box.y0);
  }
  EXPECT_EQ(FindAlignedTables(lines, std::vector<bool>(lines.size(), false), kPage).size(), 1u);
}

TEST(AlignedTableTest, AGridOfWordsUnderATablesCaptionIsATable) {
  // No number, no bold header, no rule: the caption right above says what the aligned columns are.
  // Without it, or with its columns' cells not in line (prose cut at gaps), they stay text.
  auto grid = [](bool caption, double ragged) {
    std::vector<TextLine> lines;
    if (caption) lines.push_back(Line("Table 4: Status of recommendations", 100, 86));
    const char* rows[4][3] = {{"Agency", "Recommendation", "Status"},
                              {"Education", "Update guidance", "Open"},
                              {"Labor", "Collect outcome data", "Closed"},
                              {"Treasury", "Assess payment risks", "Open"}};
    for (int r = 0; r < 4; ++r) {
      for (int c = 0; c < 3; ++c) {
        lines.push_back(Line(rows[r][c], 100 + 130.0 * c + (r % 2) * ragged * c, 100 + 14.0 * r));
      }
    }
    return lines;
  };
  std::vector<TextLine> lines = grid(true, 0);
  auto tables = FindAlignedTables(lines, std::vector<bool>(lines.size(), false), kPage);
  ASSERT_EQ(tables.size(), 1u);
  EXPECT_EQ(
      tables[0].html,
      "<table><tr><td>Agency</td><td>Recommendation</td><td>Status</td></tr><tr><td>Education</td>"
      "<td>Update guidance</td><td>Open</td></tr><tr><td>Labor</td><td>Collect outcome data</td>"
      "<td>Closed</td></tr><tr><td>Treasury</td><td>Assess payment risks</td><td>Open</td></tr></table>");
  lines = grid(false, 0);
  EXPECT_TRUE(FindAlignedTables(lines, std::vector<bool>(lines.size(), false), kPage).empty());
  lines = grid(true, 6);
  EXPECT_TRUE(FindAlignedTables(lines, std::vector<bool>(lines.size(), false), kPage).empty());
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

TEST(AlignedTableTest, ARightToLeftLineIsCutWhereItsGlyphsStandApart) {
  // "סך הכל" (total) at the right, its figure far to its left: two pieces, left to right, each in
  // logical order. With the figure a space away, one piece.
  auto pieces =
      SplitAtColumnGaps(testing::RtlRow(U"\u05E1\u05DA \u05D4\u05DB\u05DC", 500, "1,234", 300, 100));
  ASSERT_EQ(pieces.size(), 2u);
  EXPECT_EQ(pieces[0].text, "1,234");
  EXPECT_DOUBLE_EQ(pieces[0].x0, 300);
  EXPECT_EQ(pieces[1].text, "\u05E1\u05DA \u05D4\u05DB\u05DC");
  EXPECT_DOUBLE_EQ(pieces[1].x1, 500);
  EXPECT_EQ(SplitAtColumnGaps(testing::RtlRow(U"\u05E1\u05DA", 500, "12", 485, 100)).size(), 1u);
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

TEST(AlignedTableTest, AHeadingNarrowerThanAColumnCentredOnAGutterSpansItsTwoColumns) {
  // "West" (20 wide) over figures 25 wide, centred on the gutter between 2021 and 2022; "East" over the
  // left pair the same way.
  std::vector<TextLine> lines = {
      Line("East", 212.5, 100), Line("West", 322.5, 100), Line("2021", 180, 114),  Line("2022", 235, 114),
      Line("2021", 290, 114),   Line("2022", 345, 114),   Line("Taxes", 100, 128), Line("1,204", 180, 128),
      Line("1,250", 235, 128),  Line("1,310", 290, 128),  Line("1,290", 345, 128), Line("Fees", 100, 142),
      Line("845", 190, 142),    Line("830", 245, 142),    Line("902", 300, 142),   Line("880", 355, 142)};
  auto tables = FindAlignedTables(lines, std::vector<bool>(lines.size(), false), kPage);
  ASSERT_EQ(tables.size(), 1u);
  EXPECT_EQ(tables[0].html,
            "<table><tr><td></td><td colspan=\"2\">East</td><td colspan=\"2\">West</td></tr>"
            "<tr><td></td><td>2021</td><td>2022</td><td>2021</td><td>2022</td></tr>"
            "<tr><td>Taxes</td><td>1,204</td><td>1,250</td><td>1,310</td><td>1,290</td></tr>"
            "<tr><td>Fees</td><td>845</td><td>830</td><td>902</td><td>880</td></tr></table>");
}

// A table of two groups of three columns (figures set flush right) under "Age", its groups' names on
// the line `names`, the figures of the second group's middle column `middle`.
std::string TwoGroupsTable(const std::vector<TextLine>& names, const std::vector<std::string>& middle) {
  std::vector<TextLine> lines = names;
  lines.push_back(Line("Age", 72, 112));
  const double rights[] = {200, 255, 295, 350, 405, 445};
  const char* heads[] = {"2010", "2011", "%", "2010", "2011", "%"};
  const char* rows[][7] = {{"Total", "12,441", "1,190", "72.1", "10,902", "", "61.4"},
                           {"Born here", "10,870", "1,911", "73.0", "9,601", "", "62.0"},
                           {"Born abroad", "1,571", "1,591", "66.4", "1,301", "", "57.1"}};
  for (int c = 0; c < 6; ++c) lines.push_back(LineEndingAt(heads[c], rights[c], 112));
  for (int r = 0; r < 3; ++r) {
    const double y = 126 + 14.0 * r;
    lines.push_back(Line(rows[r][0], 72, y));
    for (int c = 0; c < 6; ++c)
      lines.push_back(LineEndingAt(c == 4 ? middle[r] : rows[r][c + 1], rights[c], y));
  }
  auto tables = FindAlignedTables(lines, std::vector<bool>(lines.size(), false), kPage);
  return tables.size() == 1 ? tables[0].html : "tables: " + std::to_string(tables.size());
}

TEST(AlignedTableTest, ShortGroupsNamesSpanTheColumnsCentredOnThem) {
  // "Men" (15 wide) is centred over the three columns of its group, narrower than the middle one;
  // "Women" beside it reaches over a gutter of its group's (figures of three digits under it). Both are
  // groups' names over the next line's headings: "Men" spans its three columns, not the middle one.
  std::string html = TwoGroupsTable({Line("Men", 225, 100), Line("Women", 370, 100)}, {"902", "968", "933"});
  EXPECT_TRUE(html.starts_with(
      "<table><tr><td rowspan=\"2\">Age</td><td colspan=\"3\">Men</td><td colspan=\"3\">Women</td></tr>"
      "<tr><td>2010</td><td>2011</td><td>%</td><td>2010</td><td>2011</td><td>%</td></tr>"
      "<tr><td>Total</td><td>12,441</td>"))
      << html;
  // "Men" and "All", each narrower than the middle column of its three and centred on them: a line of
  // groups' names, not the first lines of two headings wrapped in their columns.
  html = TwoGroupsTable({Line("Men", 225, 100), Line("All", 375, 100)}, {"11,902", "10,968", "12,933"});
  EXPECT_TRUE(html.starts_with(
      "<table><tr><td rowspan=\"2\">Age</td><td colspan=\"3\">Men</td><td colspan=\"3\">All</td></tr>"))
      << html;
}

TEST(AlignedTableTest, AHeadingOverTheHeadingsOfSeveralColumnsSpansThemAll) {
  // "Establishments counted" is centred on the middle column but reaches over the headings of all three
  // on the next line: it is theirs, not the middle column's.
  std::vector<TextLine> lines = {Line("Establishments counted", 220, 100),
                                 Line("Number", 195, 114),
                                 Line("Change", 255, 114),
                                 Line("Percent", 315, 114),
                                 Line("Mining", 100, 128),
                                 Line("1,204", 200, 128),
                                 Line("(12)", 265, 128),
                                 Line("(1.0)", 320, 128),
                                 Line("Utilities", 100, 142),
                                 Line("845", 210, 142),
                                 Line("30", 275, 142),
                                 Line("3.7", 330, 142)};
  auto tables = FindAlignedTables(lines, std::vector<bool>(lines.size(), false), kPage);
  ASSERT_EQ(tables.size(), 1u);
  EXPECT_EQ(tables[0].html,
            "<table><tr><td></td><td colspan=\"3\">Establishments counted</td></tr>"
            "<tr><td></td><td>Number</td><td>Change</td><td>Percent</td></tr>"
            "<tr><td>Mining</td><td>1,204</td><td>(12)</td><td>(1.0)</td></tr>"
            "<tr><td>Utilities</td><td>845</td><td>30</td><td>3.7</td></tr></table>");
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
  // A frame's sides are no rules between columns: the same table in a box.
  std::vector<RulingSegment> framed = rules;
  framed.push_back({{89.6, 95, 90.4, 160}, false});
  framed.push_back({{399.6, 95, 400.4, 160}, false});
  EXPECT_EQ(FindRuleBandTables(framed, lines, std::vector<bool>(lines.size(), false), {}, kPage).size(), 1u);
  std::vector<TextLine> prose = {
      Line("A paragraph between two rules that runs on and on, far past any cell.", 100, 100),
      Line("Its second line is just as long as the first one was, or longer.", 100, 116)};
  EXPECT_TRUE(FindRuleBandTables(rules, prose, std::vector<bool>(prose.size(), false), {}, kPage).empty());
}

TEST(AlignedTableTest, RulesOfTwoTablesWithProseBetweenBoundNoBand) {
  // Each table has one rule, under its header; the two rules happen to be as long. The prose between the
  // tables runs past their ends: no table of everything from the first rule to the second.
  std::vector<RulingSegment> rules = {Rule(112, 90, 400), Rule(252, 91, 401)};
  std::vector<TextLine> lines = {
      Line("Region", 100, 100),
      Line("2021", 300, 100),
      Line("North", 100, 116),
      Line("1,204", 300, 116),
      Line("South", 100, 130),
      Line("987", 300, 130),
      Line("A paragraph between the two tables runs across the page from margin to margin.", 60, 170),
      Line("Its second line runs on just as far as the first one did, past both tables' ends.", 60, 184),
      Line("Item", 100, 240),
      Line("Share", 300, 240),
      Line("Housing", 100, 256),
      Line("12%", 300, 256),
      Line("Transport", 100, 270),
      Line("8%", 300, 270)};
  EXPECT_TRUE(FindRuleBandTables(rules, lines, std::vector<bool>(lines.size(), false), {}, kPage).empty());
}

TEST(AlignedTableTest, TwoTablesInAColumnWithProseBetweenAreTwo) {
  // A column 250 points wide (50 characters) holds two booktabs tables whose rules are as long, a little
  // narrower than the column; between them two headings, the column's prose and the second's caption.
  // The prose runs past the rules' ends, each line shorter than two cells: still no band across it.
  std::vector<RulingSegment> rules = {Rule(100, 105, 345), Rule(118, 105, 345), Rule(160, 105, 345),
                                      Rule(320, 106, 346), Rule(338, 106, 346), Rule(380, 106, 346)};
  const std::string prose(50, 'x');
  std::vector<TextLine> lines = {Line("Method", 110, 105),
                                 Line("Memory", 200, 105),
                                 Line("Latency", 290, 105),
                                 Line("Marco-9", 110, 122),
                                 Line("25.26", 200, 122),
                                 Line("85.201", 290, 122),
                                 Line("Julia-7", 110, 136),
                                 Line("84.84", 200, 136),
                                 Line("61.905", 290, 136),
                                 Line("IV. Limitations", 190, 200),
                                 Line(prose, 100, 215),
                                 Line(prose, 100, 227),
                                 Line("V. Results", 200, 260),
                                 Line(prose, 100, 275),
                                 Line("TABLE III: Workflow inference normalisation.", 110, 300),
                                 Line("Method", 110, 325),
                                 Line("Speed", 200, 325),
                                 Line("Accuracy", 290, 325),
                                 Line("Tomas-5", 110, 342),
                                 Line("93.765", 200, 342),
                                 Line("82.4", 290, 342),
                                 Line("Lena-1", 110, 356),
                                 Line("84.909", 200, 356),
                                 Line("36.180", 290, 356)};
  const auto tables = FindRuleBandTables(rules, lines, std::vector<bool>(lines.size(), false), {}, kPage);
  ASSERT_EQ(tables.size(), 2u);
  for (const RuledTable& t : tables) {
    for (size_t li : t.line_indices) EXPECT_TRUE(li < 9 || li > 14) << lines[li].text;
  }
}

TEST(AlignedTableTest, OptionsAndWhatTheyDoBetweenRulesAreATableWhateverTheTextsLength) {
  // booktabs rules around a tabularx table: options in the first column, what each does in the second,
  // its lines as long as the page's (over 80 characters), the last one wrapped. A table of three rows;
  // the same lines set as one column (prose between rules) are none.
  std::vector<RulingSegment> rules = {Rule(95, 40, 610), Rule(112, 40, 610), Rule(176, 40, 610)};
  const std::string what =
      "The memory the daemon may use on the device, in bytes or with a unit of them; the pages wait";
  std::vector<TextLine> lines = {
      Line("Option", 42, 100),
      Line("Meaning", 140, 100),
      Line("vram_budget", 42, 116),
      Line(what, 140, 116),
      Line("when it is full.", 140, 128),
      Line("kv_page_tokens", 42, 140),
      Line("Tokens in one page of the key-value cache.", 140, 140),
      Line("prefill_chunk", 42, 156),
      Line("The largest number of prompt tokens processed in one step.", 140, 156)};
  auto tables = FindRuleBandTables(rules, lines, std::vector<bool>(lines.size(), false), {}, kPage);
  ASSERT_EQ(tables.size(), 1u);
  EXPECT_EQ(tables[0].num_rows, 4);
  EXPECT_NE(tables[0].html.find("<td>" + what + " when it is full.</td>"), std::string::npos)
      << tables[0].html;
  std::vector<TextLine> prose = {Line(what + " and more.", 42, 116), Line(what + ", and so on.", 42, 128),
                                 Line("Its last line is short.", 42, 140)};
  EXPECT_TRUE(FindRuleBandTables(rules, prose, std::vector<bool>(prose.size(), false), {}, kPage).empty());
}

TEST(AlignedTableTest, RowsOfWrappedTextUnderAShadedHeaderBetweenRules) {
  // A shaded header (its edges as rules), a rule under each row; text wrapped in every column of a row,
  // the label's too: each line goes on from the cell above it (it starts in lower case, or the cell
  // above ends open). A line that starts every cell afresh is a row of its own.
  std::vector<RulingSegment> rules = ShadedRowEdges({{90, 95, 500, 111}}, {}, kPage);
  for (double y : {146.0, 170.0}) rules.push_back(Rule(y, 90, 500));
  std::vector<TextLine> lines = {Line("Risk", 100, 100),
                                 Line("Description", 200, 100),
                                 Line("Mitigation", 360, 100),
                                 Line("Funding shortfall", 100, 116),
                                 Line("Grants may fall short of", 200, 116),
                                 Line("Hold a reserve of", 360, 116),
                                 Line("the plan for two years.", 200, 128),
                                 Line("five per cent.", 360, 128),
                                 Line("Supplier failure", 100, 151),
                                 Line("A contractor goes out of", 200, 151),
                                 Line("Check bidders and", 360, 151),
                                 Line("on major contracts", 100, 163),
                                 Line("business in a project.", 200, 163),
                                 Line("keep step-in rights.", 360, 163),
                                 Line("Prose below the table.", 100, 220)};
  auto tables = FindRuleBandTables(rules, lines, std::vector<bool>(lines.size(), false), {}, kPage);
  ASSERT_EQ(tables.size(), 1u);
  EXPECT_EQ(tables[0].html,
            "<table><tr><td>Risk</td><td>Description</td><td>Mitigation</td></tr>"
            "<tr><td>Funding shortfall</td><td>Grants may fall short of the plan for two years.</td>"
            "<td>Hold a reserve of five per cent.</td></tr>"
            "<tr><td>Supplier failure on major contracts</td><td>A contractor goes out of business in a "
            "project.</td><td>Check bidders and keep step-in rights.</td></tr></table>");
  // "Staff turnover" starts its cells afresh: a row.
  lines[11] = Line("Staff turnover", 100, 163);
  lines[12] = Line("Staff leave for other posts.", 200, 163);
  lines[13] = Line("Review pay bands.", 360, 163);
  tables = FindRuleBandTables(rules, lines, std::vector<bool>(lines.size(), false), {}, kPage);
  ASSERT_EQ(tables.size(), 1u);
  EXPECT_NE(tables[0].html.find("<tr><td>Staff turnover</td>"), std::string::npos) << tables[0].html;
}

TEST(AlignedTableTest, TheLinesBetweenRulesUnderEachRowAreThatRowsWrappedCells) {
  // A rule under each row, none down the table; cells wrapped without a cue ("Government Association"
  // after "... with the Local", "End of the year" over "2024 to 2025" while its neighbours are one line).
  std::vector<RulingSegment> rules;
  for (double y : {95.0, 111.0, 142.0, 173.0}) rules.push_back(Rule(y, 90, 520));
  std::vector<TextLine> lines = {Line("Action", 100, 100),
                                 Line("Responsible body", 260, 100),
                                 Line("Deadline", 430, 100),
                                 Line("Publish guidance on the new", 100, 116),
                                 Line("Department for Communities,", 260, 116),
                                 Line("March 2024", 430, 116),
                                 Line("Reporting format for councils", 100, 128),
                                 Line("Local Government Association", 260, 128),
                                 Line("Review the funding formula", 100, 147),
                                 Line("Treasury", 260, 147),
                                 Line("End of the year", 430, 147),
                                 Line("2024 to 2025", 430, 159),
                                 Line("Prose below the table.", 100, 220)};
  auto tables = FindRuleBandTables(rules, lines, std::vector<bool>(lines.size(), false), {}, kPage);
  ASSERT_EQ(tables.size(), 1u);
  EXPECT_EQ(tables[0].html,
            "<table><tr><td>Action</td><td>Responsible body</td><td>Deadline</td></tr>"
            "<tr><td>Publish guidance on the new Reporting format for councils</td>"
            "<td>Department for Communities, Local Government Association</td><td>March 2024</td></tr>"
            "<tr><td>Review the funding formula</td><td>Treasury</td><td>End of the year 2024 to 2025</td>"
            "</tr></table>");
  // Rules between groups of rows: figures under the first row of a band are rows of their own, even
  // with a cell left empty.
  std::vector<TextLine> groups = {Line("Region", 100, 100), Line("2022", 320, 100),  Line("2023", 430, 100),
                                  Line("North", 100, 116),  Line("1,204", 320, 116), Line("1,310", 430, 116),
                                  Line("East", 100, 128),   Line("986", 320, 128),   Line("South", 100, 147),
                                  Line("2,210", 320, 147),  Line("2,301", 430, 147), Line("West", 100, 159),
                                  Line("1,022", 430, 159)};
  tables = FindRuleBandTables(rules, groups, std::vector<bool>(groups.size(), false), {}, kPage);
  ASSERT_EQ(tables.size(), 1u);
  EXPECT_NE(tables[0].html.find("<tr><td>East</td><td>986</td><td></td></tr>"), std::string::npos)
      << tables[0].html;
  EXPECT_NE(tables[0].html.find("<tr><td>West</td><td></td><td>1,022</td></tr>"), std::string::npos)
      << tables[0].html;
}

TEST(AlignedTableTest, AWordBrokenAtALabelsEndCarriesItsRowOn) {
  // Between booktabs-like rules, no rule between rows. The rest of a word broken at a label's end
  // ("appli-" / "cation") goes on in the row whatever its other cells say ("March" over "2022"); such
  // lines starting in lower case do not make the labels a table's of lower-case labels (where a lower-case
  // start tells nothing). A figure goes on from text that ends open ("End of" over "2025").
  const std::vector<RulingSegment> rules = {Rule(95, 90, 500), Rule(111, 90, 500), Rule(200, 90, 500)};
  std::vector<TextLine> lines = {Line("Measure", 100, 100, 10, true),
                                 Line("Lead", 250, 100, 10, true),
                                 Line("Date", 340, 100, 10, true),
                                 Line("Progress", 420, 100, 10, true),
                                 Line("Set up a helpdesk for lo-", 100, 116),
                                 Line("Each depart-", 250, 116),
                                 Line("End of", 340, 116),
                                 Line("Partly done", 420, 116),
                                 Line("cal authorities", 100, 128),
                                 Line("ment", 250, 128),
                                 Line("2022", 340, 128),
                                 Line("on track", 420, 128),
                                 Line("Introduce a single appli-", 100, 140),
                                 Line("Statistics", 250, 140),
                                 Line("March", 340, 140),
                                 Line("Not started", 420, 140),
                                 Line("cation form for grants", 100, 152),
                                 Line("office", 250, 152),
                                 Line("2022", 340, 152),
                                 Line("Replace the payroll", 100, 164),
                                 Line("Treasury", 250, 164),
                                 Line("End of", 340, 164),
                                 Line("Completed", 420, 164),
                                 Line("formula for schools", 100, 176),
                                 Line("2025", 340, 176)};
  auto tables = FindRuleBandTables(rules, lines, std::vector<bool>(lines.size(), false), {}, kPage);
  ASSERT_EQ(tables.size(), 1u);
  EXPECT_EQ(tables[0].html,
            "<table><tr><td>Measure</td><td>Lead</td><td>Date</td><td>Progress</td></tr>"
            "<tr><td>Set up a helpdesk for local authorities</td><td>Each department</td><td>End of 2022</td>"
            "<td>Partly done on track</td></tr>"
            "<tr><td>Introduce a single application form for grants</td><td>Statistics office</td>"
            "<td>March 2022</td><td>Not started</td></tr>"
            "<tr><td>Replace the payroll formula for schools</td><td>Treasury</td><td>End of 2025</td>"
            "<td>Completed</td></tr></table>");
}

TEST(AlignedTableTest, TheRuleUnderTheHeaderEndsTheHeader) {
  // A box with a rule under its header only; the first row's cells start in lower case (identifiers)
  // and hold no figure: no header line.
  std::vector<RulingSegment> rules = {Rule(95, 90, 500),
                                      Rule(111, 90, 500),
                                      Rule(165, 90, 500),
                                      {{89.6, 95, 90.4, 165}, false},
                                      {{499.6, 95, 500.4, 165}, false}};
  std::vector<TextLine> lines = {Line("Setting", 100, 98),
                                 Line("Value", 220, 98),
                                 Line("vram_budget", 100, 116),
                                 Line("half of the card, measured", 220, 116),
                                 Line("when the daemon starts", 220, 128),
                                 Line("max_batch", 100, 142),
                                 Line("16", 220, 142)};
  auto tables = FindRuleBandTables(rules, lines, std::vector<bool>(lines.size(), false), {}, kPage);
  ASSERT_EQ(tables.size(), 1u);
  EXPECT_EQ(tables[0].html,
            "<table><tr><td>Setting</td><td>Value</td></tr><tr><td>vram_budget</td><td>half of the card, "
            "measured when the daemon starts</td></tr><tr><td>max_batch</td><td>16</td></tr></table>");
}

TEST(AlignedTableTest, HeadingsWiderThanTheirFiguresAboveTheRuleUnderTheHeaderAreTheHeader) {
  // A rule under the header and one under the table, none above: the header is the line above the
  // first rule. Its headings of the figures are set flush right and wider than the figures under them
  // ("Percentage" reaches past its gutter's middle): no heading across a gutter for that.
  std::vector<RulingSegment> rules = {Rule(112, 90, 400), Rule(160, 90, 400)};
  std::vector<TextLine> lines = {Line("Industry", 100, 100),
                                 LineOfWords({{"Number", 230}, {"Percentage", 272}, {"Margin", 334}}, 100)};
  const char* rows[][4] = {{"Construction", "8,987", "6.3", "0.2"},
                           {"Mining", "14,335", "10.1", "0.2"},
                           {"Trade", "2,254", "1.6", "0.1"}};
  for (int r = 0; r < 3; ++r) {
    const double y = 116 + 14.0 * r;
    lines.push_back(Line(rows[r][0], 100, y));
    lines.push_back(LineEndingAt(rows[r][1], 260, y));
    lines.push_back(LineEndingAt(rows[r][2], 322, y));
    lines.push_back(LineEndingAt(rows[r][3], 364, y));
  }
  auto tables = FindRuleBandTables(rules, lines, std::vector<bool>(lines.size(), false), {}, kPage);
  ASSERT_EQ(tables.size(), 1u);
  EXPECT_EQ(tables[0].html,
            "<table><tr><td>Industry</td><td>Number</td><td>Percentage</td><td>Margin</td></tr>"
            "<tr><td>Construction</td><td>8,987</td><td>6.3</td><td>0.2</td></tr>"
            "<tr><td>Mining</td><td>14,335</td><td>10.1</td><td>0.2</td></tr>"
            "<tr><td>Trade</td><td>2,254</td><td>1.6</td><td>0.1</td></tr></table>");
  // Over it, a row of another table whose text reaches into a gutter without being set flush with the
  // column's other side ("string" starts left of the column and ends short of its right): no header.
  lines.push_back(Line("cdv", 100, 86));
  lines.push_back(Line("string", 285, 86));
  tables = FindRuleBandTables(rules, lines, std::vector<bool>(lines.size(), false), {}, kPage);
  ASSERT_EQ(tables.size(), 1u);
  EXPECT_TRUE(tables[0].html.starts_with("<table><tr><td>Industry</td>")) << tables[0].html;
}

TEST(AlignedTableTest, ACaptionAloneOnItsRowEndsTheTableAboveIt) {
  // Two tables set as closely as their rows, the second's caption between them: two tables, the
  // caption in neither (a word processor's table, then one set with tab stops).
  std::vector<TextLine> lines = {Line("Region", 100, 100), LineEndingAt("2010", 230, 100),
                                 LineEndingAt("2011", 290, 100)};
  const char* first[][3] = {
      {"North", "12,441", "12,502"}, {"South", "1,210", "1,190"}, {"East", "9,540", "9,580"}};
  for (int r = 0; r < 3; ++r) {
    lines.push_back(Line(first[r][0], 100, 114 + 14.0 * r));
    lines.push_back(LineEndingAt(first[r][1], 230, 114 + 14.0 * r));
    lines.push_back(LineEndingAt(first[r][2], 290, 114 + 14.0 * r));
  }
  lines.push_back(Line("Table 2: Budget by programme", 100, 156));
  const char* second[][3] = {
      {"Programme", "2010", "2011"}, {"Education", "1,204", "1,250"}, {"Health", "845", "830"}};
  for (int r = 0; r < 3; ++r) {
    lines.push_back(Line(second[r][0], 100, 170 + 14.0 * r));
    lines.push_back(LineEndingAt(second[r][1], 330, 170 + 14.0 * r));
    lines.push_back(LineEndingAt(second[r][2], 400, 170 + 14.0 * r));
  }
  auto tables = FindAlignedTables(lines, std::vector<bool>(lines.size(), false), kPage);
  ASSERT_EQ(tables.size(), 2u);
  EXPECT_EQ(tables[0].num_rows, 4);
  EXPECT_EQ(tables[1].html,
            "<table><tr><td>Programme</td><td>2010</td><td>2011</td></tr><tr><td>Education</td><td>1,204</td>"
            "<td>1,250</td></tr><tr><td>Health</td><td>845</td><td>830</td></tr></table>");
}

TEST(AlignedTableTest, ARuleUnderTwoGroupsNamesIsNeithersOwn) {
  // A word processor's style draws the border under its first row's cells as one rule, under both
  // groups' names (merged cells side by side), none under the heading over the labels: each name is over
  // the three columns it is centred on, not over the whole rule.
  std::vector<RulingSegment> rules = {Rule(80, 100, 520), Rule(100, 160, 520), Rule(160, 100, 520)};
  std::vector<TextLine> lines = {Line("Region", 105, 85), Line("Primary", 232.5, 85),
                                 Line("Secondary", 407.5, 85)};
  const char* heads[] = {"Boys", "Girls", "Total", "Boys", "Girls", "Total"};
  for (int c = 0; c < 6; ++c) lines.push_back(LineEndingAt(heads[c], 210.0 + 60 * c, 105));
  for (int r = 0; r < 2; ++r) {
    lines.push_back(Line(r == 0 ? "North" : "South", 105, 125.0 + 20 * r));
    for (int c = 0; c < 6; ++c)
      lines.push_back(LineEndingAt(std::to_string(100 + 10 * c + r), 210.0 + 60 * c, 125.0 + 20 * r));
  }
  auto tables = FindRuleBandTables(rules, lines, std::vector<bool>(lines.size(), false), {}, kPage);
  ASSERT_EQ(tables.size(), 1u);
  EXPECT_TRUE(
      tables[0].html.starts_with("<table><tr><td rowspan=\"2\">Region</td><td colspan=\"3\">Primary</td><td "
                                 "colspan=\"3\">Secondary</td></tr>"))
      << tables[0].html;
}

TEST(AlignedTableTest, AHeadingOverARuleOfItsOwnSpansTheColumnsUnderTheRule) {
  // Booktabs: top, middle and bottom rules, and under each year a shorter rule over its two columns.
  // The years are centred on their columns' boxes, not on the figures (set flush right): "2021" sits
  // nearer the first of its columns, and its headings are wider than the figures under them.
  std::vector<RulingSegment> rules = {Rule(90, 50, 500), Rule(113, 250, 370), Rule(113, 390, 500),
                                      Rule(131, 50, 500), Rule(175, 50, 500)};
  std::vector<TextLine> lines = {Line("2021", 275, 100),   Line("2022", 425, 100),   Line("Source", 50, 118),
                                 Line("Actual", 270, 118), Line("Budget", 340, 118), Line("Actual", 410, 118),
                                 Line("Budget", 470, 118), Line("Taxes", 50, 136),   Line("1,204", 275, 136),
                                 Line("1,250", 345, 136),  Line("1,310", 415, 136),  Line("1,290", 475, 136),
                                 Line("Fees", 50, 150),    Line("845", 285, 150),    Line("830", 355, 150),
                                 Line("902", 425, 150),    Line("880", 485, 150)};
  auto tables = FindRuleBandTables(rules, lines, std::vector<bool>(lines.size(), false), {}, kPage);
  ASSERT_EQ(tables.size(), 1u);
  EXPECT_EQ(
      tables[0].html,
      "<table><tr><td rowspan=\"2\">Source</td><td colspan=\"2\">2021</td><td colspan=\"2\">2022</td></tr>"
      "<tr><td>Actual</td><td>Budget</td><td>Actual</td><td>Budget</td></tr>"
      "<tr><td>Taxes</td><td>1,204</td><td>1,250</td><td>1,310</td><td>1,290</td></tr>"
      "<tr><td>Fees</td><td>845</td><td>830</td><td>902</td><td>880</td></tr></table>");
}

TEST(AlignedTableTest, AHeaderAboveTheFirstRuleWhenNothingIsRuledAboveIt) {
  // A rule under the header and one under the last row, none on top: the header's two rows (regions
  // over pairs of years) are the table's, the caption and the note above it are not.
  std::vector<RulingSegment> rules = {Rule(131, 50, 500), Rule(175, 50, 500)};
  std::vector<TextLine> lines = {Line("Table 2. Revenue by region", 50, 70),
                                 Line("[In thousands]", 50, 84),
                                 Line("Eastern region", 285, 100),
                                 Line("Western region", 422, 100),
                                 Line("2021", 270, 118),
                                 Line("2022", 340, 118),
                                 Line("2021", 410, 118),
                                 Line("2022", 470, 118),
                                 Line("Taxes", 50, 136),
                                 Line("1,204", 275, 136),
                                 Line("1,250", 345, 136),
                                 Line("1,310", 415, 136),
                                 Line("1,290", 475, 136),
                                 Line("Fees", 50, 150),
                                 Line("845", 285, 150),
                                 Line("830", 355, 150),
                                 Line("902", 425, 150),
                                 Line("880", 485, 150)};
  auto tables = FindRuleBandTables(rules, lines, std::vector<bool>(lines.size(), false), {}, kPage);
  ASSERT_EQ(tables.size(), 1u);
  EXPECT_EQ(
      tables[0].html,
      "<table><tr><td></td><td colspan=\"2\">Eastern region</td><td colspan=\"2\">Western region</td></tr>"
      "<tr><td></td><td>2021</td><td>2022</td><td>2021</td><td>2022</td></tr>"
      "<tr><td>Taxes</td><td>1,204</td><td>1,250</td><td>1,310</td><td>1,290</td></tr>"
      "<tr><td>Fees</td><td>845</td><td>830</td><td>902</td><td>880</td></tr></table>");
  EXPECT_EQ(tables[0].line_indices.size(), lines.size() - 2);
}

TEST(AlignedTableTest, AHeaderWithAStubHeadAboveTheFirstRule) {
  // "Program" heads the labels; "Funding" is wrapped over "($m)"; a caption across the columns is not
  // the header.
  std::vector<RulingSegment> rules = {Rule(131, 50, 500), Rule(175, 50, 500)};
  std::vector<TextLine> lines = {Line("Table 3. Selected programs and their funding", 50, 92),
                                 Line("Funding", 465, 106),
                                 Line("Program", 50, 118),
                                 Line("Agency", 200, 118),
                                 Line("($m)", 475, 118),
                                 Line("Head Start", 50, 136),
                                 Line("HHS", 200, 136),
                                 Line("10,613", 465, 136),
                                 Line("Job Corps", 50, 150),
                                 Line("Labor", 200, 150),
                                 Line("1,744", 470, 150)};
  auto tables = FindRuleBandTables(rules, lines, std::vector<bool>(lines.size(), false), {}, kPage);
  ASSERT_EQ(tables.size(), 1u);
  EXPECT_EQ(tables[0].html,
            "<table><tr><td>Program</td><td>Agency</td><td>Funding ($m)</td></tr>"
            "<tr><td>Head Start</td><td>HHS</td><td>10,613</td></tr>"
            "<tr><td>Job Corps</td><td>Labor</td><td>1,744</td></tr></table>");
  EXPECT_EQ(tables[0].line_indices.size(), lines.size() - 1);
}

TEST(AlignedTableTest, ACaptionBetweenTheRulesIsNoRow) {
  // The top rule is over the caption; the header is under the caption, above the second rule.
  std::vector<RulingSegment> rules = {Rule(88, 50, 500), Rule(131, 50, 500), Rule(175, 50, 500)};
  std::vector<TextLine> lines = {Line("Table 3. Programs and their funding in two years", 50, 95),
                                 Line("Program", 50, 118),
                                 Line("2021", 280, 118),
                                 Line("2022", 380, 118),
                                 Line("Head Start", 50, 136),
                                 Line("10,613", 270, 136),
                                 Line("10,748", 370, 136),
                                 Line("Job Corps", 50, 150),
                                 Line("1,744", 275, 150),
                                 Line("1,749", 375, 150)};
  auto tables = FindRuleBandTables(rules, lines, std::vector<bool>(lines.size(), false), {}, kPage);
  ASSERT_EQ(tables.size(), 1u);
  EXPECT_EQ(tables[0].html,
            "<table><tr><td>Program</td><td>2021</td><td>2022</td></tr>"
            "<tr><td>Head Start</td><td>10,613</td><td>10,748</td></tr>"
            "<tr><td>Job Corps</td><td>1,744</td><td>1,749</td></tr></table>");
  EXPECT_EQ(tables[0].line_indices.size(), lines.size() - 1);
  EXPECT_GE(tables[0].box.y0, lines[0].box.y1);  // the caption is outside the table's box
}

std::string TableOf(const std::vector<TextLine>& lines) {
  auto tables = FindAlignedTables(lines, std::vector<bool>(lines.size(), false), kPage);
  if (tables.size() != 1) return "tables: " + std::to_string(tables.size());
  if (tables[0].line_indices.size() != lines.size()) {
    return "lines in the table: " + std::to_string(tables[0].line_indices.size()) + " " + tables[0].html;
  }
  return tables[0].html;
}

TEST(AlignedTableTest, DotLeadersAreNoPartOfTheLabelAndOneColumnOfThemIsAContentsList) {
  std::vector<TextLine> lines = {Line("2021", 400, 100), Line("2022", 480, 100)};
  const char* labels[] = {"Wages and salaries", "Employee benefits", "Rent and utilities", "Travel"};
  for (int i = 0; i < 4; ++i) {
    std::string label = labels[i];
    label += " " + std::string(68 - label.size(), '.');  // the leader runs up to the first column
    lines.push_back(Line(label, 50, 114 + 14.0 * i));
    lines.push_back(Line(std::to_string(100 + i), 405, 114 + 14.0 * i));
    lines.push_back(Line(std::to_string(200 + i), 485, 114 + 14.0 * i));
  }
  EXPECT_EQ(TableOf(lines),
            "<table><tr><td></td><td>2021</td><td>2022</td></tr><tr><td>Wages and salaries</td><td>100</td>"
            "<td>200</td></tr><tr><td>Employee benefits</td><td>101</td><td>201</td></tr>"
            "<tr><td>Rent and utilities</td><td>102</td><td>202</td></tr><tr><td>Travel</td><td>103</td>"
            "<td>203</td></tr></table>");
  // Entries with leaders to page numbers: a table of contents.
  std::vector<TextLine> contents;
  for (int i = 0; i < 4; ++i) {
    std::string label = labels[i];
    label += " " + std::string(60 - label.size(), '.');
    contents.push_back(Line(label, 50, 114 + 14.0 * i));
    contents.push_back(Line(std::to_string(3 + 4 * i), 485, 114 + 14.0 * i));
  }
  EXPECT_TRUE(FindAlignedTables(contents, std::vector<bool>(contents.size(), false), kPage).empty());
}

TEST(AlignedTableTest, AWrappedLabelJoinsItsRowUpOrDown) {
  // "... Health and" goes on below (the values are on its first line); "... persons in" goes on into the
  // row below it (the values are on its last line); "Services ..." indented under its label, with no
  // word to tell, continues the row above.
  std::vector<TextLine> lines = {Line("Agency", 100, 100),
                                 Line("2019", 300, 100),
                                 Line("2020", 360, 100),
                                 Line("Department of Health and", 100, 114),
                                 Line("1,234", 300, 114),
                                 Line("5,678", 360, 114),
                                 Line("Human Services", 100, 128),
                                 Line("Number of persons in", 100, 142),
                                 Line("manufacturing", 100, 156),
                                 Line("120", 300, 156),
                                 Line("135", 360, 156),
                                 Line("Office of Personnel", 100, 170),
                                 Line("7", 300, 170),
                                 Line("9", 360, 170),
                                 Line("Management", 112, 184),
                                 Line("Department of Energy", 100, 198),
                                 Line("12", 300, 198),
                                 Line("14", 360, 198)};
  EXPECT_EQ(TableOf(lines),
            "<table><tr><td>Agency</td><td>2019</td><td>2020</td></tr>"
            "<tr><td>Department of Health and Human Services</td><td>1,234</td><td>5,678</td></tr>"
            "<tr><td>Number of persons in manufacturing</td><td>120</td><td>135</td></tr>"
            "<tr><td>Office of Personnel Management</td><td>7</td><td>9</td></tr>"
            "<tr><td>Department of Energy</td><td>12</td><td>14</td></tr></table>");
}

TEST(AlignedTableTest, ALabelWrappedOverThreeLinesWithItsValuesOnTheLastIsOneRow) {
  // A spreadsheet's cells aligned to their foot: "... bursaries and" goes on into "travel support ...",
  // whose own end carries no cue, and the values stand on "16 to 19".
  std::vector<TextLine> lines = {Line("Programme", 100, 100),
                                 Line("Budget", 340, 100),
                                 Line("Spent", 400, 100),
                                 Line("Early years education and childcare places", 100, 114),
                                 Line("1,200", 340, 114),
                                 Line("1,104", 400, 114),
                                 Line("School buildings", 100, 128),
                                 Line("3,400", 340, 128),
                                 Line("2,890", 400, 128),
                                 Line("Further education bursaries and", 100, 142),
                                 Line("travel support for students aged", 100, 156),
                                 Line("16 to 19", 100, 170),
                                 Line("410", 340, 170),
                                 Line("402", 400, 170),
                                 Line("Adult skills", 100, 184),
                                 Line("880", 340, 184),
                                 Line("611", 400, 184)};
  EXPECT_EQ(
      TableOf(lines),
      "<table><tr><td>Programme</td><td>Budget</td><td>Spent</td></tr>"
      "<tr><td>Early years education and childcare places</td><td>1,200</td><td>1,104</td></tr>"
      "<tr><td>School buildings</td><td>3,400</td><td>2,890</td></tr>"
      "<tr><td>Further education bursaries and travel support for students aged 16 to 19</td><td>410</td>"
      "<td>402</td></tr><tr><td>Adult skills</td><td>880</td><td>611</td></tr></table>");
}

TEST(AlignedTableTest, ASectionHeadingAndALineWithoutACueStayRowsOfTheirOwn) {
  // "Farms:" heads its rows; "Total revenue" carries no cue (capital letter, the row above ends closed,
  // the same spacing, not indented): a row of its own, as it may be a heading.
  std::vector<TextLine> lines = {Line("Region", 100, 100), Line("Cows", 300, 100),   Line("Pigs", 360, 100),
                                 Line("Farms:", 100, 114), Line("North", 100, 128),  Line("12", 300, 128),
                                 Line("14", 360, 128),     Line("South", 100, 142),  Line("9", 300, 142),
                                 Line("11", 360, 142),     Line("Totals", 100, 156), Line("Sold", 100, 170),
                                 Line("21", 300, 170),     Line("25", 360, 170)};
  EXPECT_EQ(TableOf(lines),
            "<table><tr><td>Region</td><td>Cows</td><td>Pigs</td></tr>"
            "<tr><td>Farms:</td><td></td><td></td></tr><tr><td>North</td><td>12</td><td>14</td></tr>"
            "<tr><td>South</td><td>9</td><td>11</td></tr><tr><td>Totals</td><td></td><td></td></tr>"
            "<tr><td>Sold</td><td>21</td><td>25</td></tr></table>");
}

TEST(AlignedTableTest, ALineSetCloserToTheRowAboveThanToTheNextContinuesIt) {
  // Rows 20 points apart, a wrapped label's second line 12 under its first.
  std::vector<TextLine> lines = {
      Line("Name", 100, 100), Line("Score", 300, 100),       Line("Alpha Beta", 100, 120),
      Line("10", 300, 120),   Line("Gamma Delta", 100, 132), Line("Epsilon Zeta", 100, 152),
      Line("20", 300, 152),   Line("Eta Theta", 100, 172),   Line("30", 300, 172)};
  EXPECT_EQ(TableOf(lines),
            "<table><tr><td>Name</td><td>Score</td></tr><tr><td>Alpha Beta Gamma Delta</td><td>10</td></tr>"
            "<tr><td>Epsilon Zeta</td><td>20</td></tr><tr><td>Eta Theta</td><td>30</td></tr></table>");
}

TEST(AlignedTableTest, ALabelLineThatFillsItsColumnGoesOnWithoutACue) {
  // Rows evenly spaced; the long labels wrap at the column's measure with no cue in the text (the next
  // line starts with a capital, the line ends in a noun). The values sit on the label's last line, then
  // on its first.
  for (const bool values_on_last_line : {true, false}) {
    std::vector<TextLine> lines = {Line("Agency", 100, 100),
                                   Line("Outlays", 300, 100),
                                   Line("Department of Agriculture", 100, 114),
                                   Line("150", 300, 114),
                                   Line("Department of Health and Human", 100, 128),
                                   Line("Services", 100, 142),
                                   Line("Social Security Administration", 100, 156),
                                   Line("1,101", 300, 156),
                                   Line("Environmental Protection Agency", 100, 170),
                                   Line("9", 300, 170)};
    lines.push_back(Line("1,214", 300, values_on_last_line ? 142 : 128));
    EXPECT_EQ(TableOf(lines),
              "<table><tr><td>Agency</td><td>Outlays</td></tr><tr><td>Department of Agriculture</td>"
              "<td>150</td></tr><tr><td>Department of Health and Human Services</td><td>1,214</td></tr>"
              "<tr><td>Social Security Administration</td><td>1,101</td></tr>"
              "<tr><td>Environmental Protection Agency</td><td>9</td></tr></table>")
        << values_on_last_line;
  }
}

TEST(AlignedTableTest, AWrappedHeaderIsOneRowAndAHeaderUnderNothingSpansTheHeaderRows) {
  // Column headings on two lines, nothing across two columns: one header row.
  std::vector<TextLine> wrapped = {
      Line("Total", 300, 100),  Line("Net", 360, 100),   Line("Agency", 100, 114), Line("revenue", 300, 114),
      Line("income", 360, 114), Line("Alpha", 100, 128), Line("10", 300, 128),     Line("20", 360, 128),
      Line("Beta", 100, 142),   Line("30", 300, 142),    Line("40", 360, 142),     Line("Gamma", 100, 156),
      Line("50", 300, 156),     Line("60", 360, 156)};
  EXPECT_EQ(TableOf(wrapped),
            "<table><tr><td>Agency</td><td>Total revenue</td><td>Net income</td></tr>"
            "<tr><td>Alpha</td><td>10</td><td>20</td></tr><tr><td>Beta</td><td>30</td><td>40</td></tr>"
            "<tr><td>Gamma</td><td>50</td><td>60</td></tr></table>");
  // "Fiscal year 2020" over two columns: two levels; "Agency" and "Change" under nothing reach up.
  std::vector<TextLine> levels = {Line("Fiscal year 2020", 290, 100),
                                  Line("Agency", 100, 114),
                                  Line("Actual", 280, 114),
                                  Line("Plan", 360, 114),
                                  Line("Change", 420, 114),
                                  Line("Alpha", 100, 128),
                                  Line("10", 280, 128),
                                  Line("20", 360, 128),
                                  Line("+1", 420, 128),
                                  Line("Beta", 100, 142),
                                  Line("30", 280, 142),
                                  Line("40", 360, 142),
                                  Line("-2", 420, 142),
                                  Line("Gamma", 100, 156),
                                  Line("50", 280, 156),
                                  Line("60", 360, 156),
                                  Line("0", 420, 156)};
  EXPECT_EQ(TableOf(levels),
            "<table><tr><td rowspan=\"2\">Agency</td><td colspan=\"2\">Fiscal year 2020</td>"
            "<td rowspan=\"2\">Change</td></tr><tr><td>Actual</td><td>Plan</td></tr>"
            "<tr><td>Alpha</td><td>10</td><td>20</td><td>+1</td></tr>"
            "<tr><td>Beta</td><td>30</td><td>40</td><td>-2</td></tr>"
            "<tr><td>Gamma</td><td>50</td><td>60</td><td>0</td></tr></table>");
}

TEST(AlignedTableTest, ABlankLineBetweenGroupsOfRowsInTheSameColumnsIsOneTable) {
  // Rows 14 points apart, a blank line (28) before the second group; prose after another blank line.
  std::vector<TextLine> lines = {Line("State", 100, 100),
                                 Line("Farms", 300, 100),
                                 Line("Maine", 100, 114),
                                 Line("12", 300, 114),
                                 Line("Ohio", 100, 128),
                                 Line("9", 300, 128),
                                 Line("Texas", 100, 156),
                                 Line("31", 300, 156),
                                 Line("Utah", 100, 170),
                                 Line("4", 300, 170),
                                 Line("A sentence of prose follows the table here.", 100, 198)};
  auto tables = FindAlignedTables(lines, std::vector<bool>(lines.size(), false), kPage);
  ASSERT_EQ(tables.size(), 1u);
  EXPECT_EQ(
      tables[0].html,
      "<table><tr><td>State</td><td>Farms</td></tr><tr><td>Maine</td><td>12</td></tr>"
      "<tr><td>Ohio</td><td>9</td></tr><tr><td>Texas</td><td>31</td></tr><tr><td>Utah</td><td>4</td></tr>"
      "</table>");
  EXPECT_EQ(tables[0].line_indices.size(), 10u);
}

TEST(AlignedTableTest, ANoteSetSmallerUnderTheLastRowIsNoWrappedLabel) {
  std::vector<TextLine> lines = {Line("Fund", 50, 100),
                                 Line("2020", 300, 100),
                                 Line("2021", 380, 100),
                                 Line("General fund", 50, 114),
                                 Line("1,204a", 300, 114),
                                 Line("1,250", 380, 114),
                                 Line("Capital projects", 50, 128),
                                 Line("88", 300, 128),
                                 Line("102b", 380, 128),
                                 Line("All funds", 50, 142),
                                 Line("1,292", 300, 142),
                                 Line("1,352", 380, 142),
                                 Line("a restated. b preliminary.", 50, 157, 7)};
  auto tables = FindAlignedTables(lines, std::vector<bool>(lines.size(), false), kPage);
  ASSERT_EQ(tables.size(), 1u);
  EXPECT_EQ(
      tables[0].html,
      "<table><tr><td>Fund</td><td>2020</td><td>2021</td></tr><tr><td>General fund</td><td>1,204a</td>"
      "<td>1,250</td></tr><tr><td>Capital projects</td><td>88</td><td>102b</td></tr><tr><td>All funds</td>"
      "<td>1,292</td><td>1,352</td></tr></table>");
  EXPECT_EQ(tables[0].line_indices.size(), lines.size() - 1);
}

TEST(AlignedTableTest, ACurrencySignSetApartIsPartOfItsFigure) {
  // A financial statement: "$" at the left of each column, the figures flush right, on some rows only.
  std::vector<TextLine> lines = {Line("2021", 390, 100), Line("2022", 490, 100)};
  const char* labels[] = {"Cash", "Receivables", "Total assets"};
  for (int r = 0; r < 3; ++r) {
    const double y = 114 + 14.0 * r;
    lines.push_back(Line(labels[r], 50, y));
    if (r != 1) lines.push_back(Line("$", 350, y));
    lines.push_back(Line(std::to_string(1000 + r), 390, y));
    if (r != 1) lines.push_back(Line("\u20ac", 450, y));
    lines.push_back(Line(std::to_string(2000 + r), 490, y));
  }
  EXPECT_EQ(TableOf(lines),
            "<table><tr><td></td><td>2021</td><td>2022</td></tr><tr><td>Cash</td><td>$1000</td>"
            "<td>\u20ac2000</td></tr><tr><td>Receivables</td><td>1001</td><td>2001</td></tr>"
            "<tr><td>Total assets</td><td>$1002</td><td>\u20ac2002</td></tr></table>");
}

TEST(AlignedTableTest, LongLabelsAndCellsWithoutAValue) {
  // Labels longer than other cells (up to 80 characters), and "-" / "n/a" where a value is missing.
  std::vector<TextLine> lines = {Line("Program", 50, 100),
                                 Line("2019", 400, 100),
                                 Line("2020", 460, 100),
                                 Line("Supplemental Nutrition Assistance Program benefits", 50, 114),
                                 Line("61", 400, 114),
                                 Line("63", 460, 114),
                                 Line("Temporary Assistance for Needy Families grants", 50, 128),
                                 Line("-", 400, 128),
                                 Line("17", 460, 128),
                                 Line("Low Income Home Energy Assistance Program payments", 50, 142),
                                 Line("4", 400, 142),
                                 Line("n/a", 460, 142),
                                 Line("Child Care and Development Fund", 50, 156),
                                 Line("9", 400, 156),
                                 Line("8", 460, 156)};
  EXPECT_EQ(TableOf(lines),
            "<table><tr><td>Program</td><td>2019</td><td>2020</td></tr>"
            "<tr><td>Supplemental Nutrition Assistance Program benefits</td><td>61</td><td>63</td></tr>"
            "<tr><td>Temporary Assistance for Needy Families grants</td><td>-</td><td>17</td></tr>"
            "<tr><td>Low Income Home Energy Assistance Program payments</td><td>4</td><td>n/a</td></tr>"
            "<tr><td>Child Care and Development Fund</td><td>9</td><td>8</td></tr></table>");
  // A column of as many missing values as numbers is still the numeric column.
  std::vector<TextLine> sparse;
  const char* values[] = {"12", "-", "7", "n/a", "\u2013", "30"};
  for (int r = 0; r < 6; ++r) {
    sparse.push_back(Line("Item " + std::string(1, static_cast<char>('A' + r)), 50, 100 + 14.0 * r));
    sparse.push_back(Line(values[r], 300, 100 + 14.0 * r));
  }
  EXPECT_EQ(TableOf(sparse).substr(0, 42), "<table><tr><td>Item A</td><td>12</td></tr>");
}

TEST(AlignedTableTest, CellLengthsAreCountedInCharactersNotBytes) {
  // A financial statement's labels of 16 to 22 Chinese characters (48 to 66 bytes of UTF-8).
  const std::string labels[] = {
      "\u5f52\u5c5e\u4e8e\u4e0a\u5e02\u516c\u53f8\u80a1\u4e1c\u7684\u6263\u9664\u975e\u7ecf\u5e38\u6027"
      "\u635f\u76ca\u7684\u51c0\u5229\u6da6",
      "\u7ecf\u8425\u6d3b\u52a8\u4ea7\u751f\u7684\u73b0\u91d1\u6d41\u91cf\u51c0\u989d\uff08\u5143\uff09",
      "\u52a0\u6743\u5e73\u5747\u51c0\u8d44\u4ea7\u6536\u76ca\u7387\uff08\u6263\u9664\u975e\u7ecf\u5e38"
      "\u6027\u635f\u76ca\uff09"};
  const char* values[][2] = {{"1,234", "1,100"}, {"567", "(89)"}, {"12.5%", "11.9%"}};
  std::vector<TextLine> lines = {Line("\u9879\u76ee", 50, 100), Line("\u672c\u671f", 400, 100),
                                 Line("\u4e0a\u671f", 480, 100)};
  for (int r = 0; r < 3; ++r) {
    lines.push_back(Line(labels[r], 20, 114 + 14.0 * r, 6));
    lines.push_back(Line(values[r][0], 400, 114 + 14.0 * r));
    lines.push_back(Line(values[r][1], 480, 114 + 14.0 * r));
  }
  const std::string html = TableOf(lines);
  EXPECT_TRUE(html.starts_with("<table><tr><td>\u9879\u76ee</td>")) << html;
  EXPECT_NE(html.find("<td>(89)</td>"), std::string::npos) << html;
}

TEST(AlignedTableTest, TightColumnsOfFiguresInOneLine) {
  // The figures of a row are one text line, set apart by half the size (two spaces of a proportional
  // font); words of a label one space apart stay together.
  auto figures = [](const std::string& text, double y) { return InFont(Line(text, 200, y), "Helvetica"); };
  std::vector<TextLine> lines = {
      Line("State", 100, 100),      Line("1990", 210, 100),
      Line("2000", 260, 100),       Line("2010", 310, 100),
      Line("California", 100, 114), figures("29,760,021  33,871,648  37,253,956", 114),
      Line("Texas", 100, 128),      figures("16,986,510  20,851,820  25,145,561", 128),
      Line("New York", 100, 142),   figures("17,990,455  18,976,457  19,378,102", 142)};
  EXPECT_EQ(TableOf(lines),
            "<table><tr><td>State</td><td>1990</td><td>2000</td><td>2010</td></tr>"
            "<tr><td>California</td><td>29,760,021</td><td>33,871,648</td><td>37,253,956</td></tr>"
            "<tr><td>Texas</td><td>16,986,510</td><td>20,851,820</td><td>25,145,561</td></tr>"
            "<tr><td>New York</td><td>17,990,455</td><td>18,976,457</td><td>19,378,102</td></tr></table>");
  auto words = SplitAtColumnGaps(InFont(Line("in 1990 2000 people", 100, 100), "Helvetica"));
  EXPECT_EQ(words.size(), 1u);
  // Figures with thousands separators one space apart are two cells all the same; other numbers are not.
  auto grouped = SplitAtColumnGaps(InFont(Line("29,760,021 33,871,648", 100, 100), "Helvetica"));
  ASSERT_EQ(grouped.size(), 2u);
  EXPECT_EQ(grouped[1].text, "33,871,648");
  EXPECT_EQ(SplitAtColumnGaps(InFont(Line("between 12.5 13.0", 100, 100), "Helvetica")).size(), 1u);
}

TEST(AlignedTableTest, AFigureRightAfterADotLeaderIsACellOfItsOwn) {
  // A tab stop's dot leader runs from the label up to the first figure with no space (a word
  // processor's table of receipts): label and figure part there.
  auto tight = SplitAtColumnGaps(InFont(Line("Excise taxes..........66,909", 100, 100), "Helvetica"));
  ASSERT_EQ(tight.size(), 2u);
  EXPECT_EQ(tight[0].text, "Excise taxes..........");
  EXPECT_EQ(tight[1].text, "66,909");
  EXPECT_GE(tight[1].x0, tight[0].x1);
  // Spaced dots before a figure a space away stay as they were: an index's entries ("par . . . 196"),
  // a contents list's.
  EXPECT_EQ(SplitAtColumnGaps(InFont(Line("Excise taxes . . . . . 66,909", 100, 100), "Helvetica")).size(),
            1u);
  // Not after two or three dots, nor a word after a leader (code: no space comes between).
  EXPECT_EQ(SplitAtColumnGaps(InFont(Line("Version 2..3 of the text", 100, 100), "Helvetica")).size(), 1u);
  EXPECT_EQ(SplitAtColumnGaps(InFont(Line("Wait...then go", 100, 100), "Helvetica")).size(), 1u);
  const auto code = SplitAtColumnGaps(InFont(Line("call(x)....(y) again", 100, 100), "Helvetica"));
  ASSERT_EQ(code.size(), 1u);
  EXPECT_EQ(code[0].text, "call(x)....(y) again");
  // The rows of such lines are a table, the labels without their leaders.
  std::vector<TextLine> lines = {InFont(Line("Source", 100, 100), "Helvetica")};
  lines.push_back(LineEndingAt("2010", 250, 100));
  lines.push_back(LineEndingAt("2011", 320, 100));
  const char* rows[][3] = {{"Excise taxes...........", "66,909", "72,381"},
                           {"Other..................", "140,997", "139,735"},
                           {"Total receipts.........", "207,906", "212,116"}};
  for (int r = 0; r < 3; ++r) {
    const double y = 114 + 14.0 * r;
    lines.push_back(InFont(LineEndingAt(std::string(rows[r][0]) + rows[r][1], 250, y), "Helvetica"));
    lines.push_back(LineEndingAt(rows[r][2], 320, y));
  }
  EXPECT_EQ(TableOf(lines),
            "<table><tr><td>Source</td><td>2010</td><td>2011</td></tr>"
            "<tr><td>Excise taxes</td><td>66,909</td><td>72,381</td></tr>"
            "<tr><td>Other</td><td>140,997</td><td>139,735</td></tr>"
            "<tr><td>Total receipts</td><td>207,906</td><td>212,116</td></tr></table>");
}

TEST(AlignedTableTest, ACaptionCentredAboveIsNotAHeaderLine) {
  // "Table 4 ..." sits over the value columns, right where a heading over two of them would.
  std::vector<TextLine> lines = {Line("Table 4. Ducks", 255, 86),
                                 Line("Pond", 100, 100),
                                 Line("2019", 250, 100),
                                 Line("2020", 320, 100),
                                 Line("North", 100, 114),
                                 Line("12", 255, 114),
                                 Line("14", 325, 114),
                                 Line("South", 100, 128),
                                 Line("9", 260, 128),
                                 Line("11", 325, 128),
                                 Line("West", 100, 142),
                                 Line("30", 255, 142),
                                 Line("31", 325, 142)};
  auto tables = FindAlignedTables(lines, std::vector<bool>(lines.size(), false), kPage);
  ASSERT_EQ(tables.size(), 1u);
  EXPECT_TRUE(tables[0].html.starts_with("<table><tr><td>Pond</td><td>2019</td><td>2020</td></tr>"))
      << tables[0].html;
  EXPECT_EQ(tables[0].line_indices.size(), lines.size() - 1);
}

TEST(AlignedTableTest, LowerCaseLabelsAreNoCueInATableOfThem) {
  // Variable names in lower case: "lifestyle" heads its rows, and is not the second line of "income".
  std::vector<TextLine> lines = {
      Line("Variable", 100, 100),  Line("Mean", 250, 100),     Line("SD", 320, 100),
      Line("age", 100, 114),       Line("45.2", 250, 114),     Line("10.1", 320, 114),
      Line("income", 100, 128),    Line("3.1", 250, 128),      Line("0.8", 320, 128),
      Line("lifestyle", 100, 142), Line("smoking", 100, 156),  Line("0.2", 250, 156),
      Line("0.4", 320, 156),       Line("exercise", 100, 170), Line("2.5", 250, 170),
      Line("1.9", 320, 170)};
  EXPECT_EQ(
      TableOf(lines),
      "<table><tr><td>Variable</td><td>Mean</td><td>SD</td></tr><tr><td>age</td><td>45.2</td><td>10.1</td>"
      "</tr><tr><td>income</td><td>3.1</td><td>0.8</td></tr><tr><td>lifestyle</td><td></td><td></td></tr>"
      "<tr><td>smoking</td><td>0.2</td><td>0.4</td></tr><tr><td>exercise</td><td>2.5</td><td>1.9</td></tr>"
      "</table>");
}

// Programs and findings: a bold header, then rows of text whose cells wrap (the wrapped lines leave the
// first column empty); `ragged` moves the second column's wrapped lines right, `header_size` sets the
// header's size.
std::vector<TextLine> TextTable(bool bold_header, double ragged = 0, double header_size = 10) {
  std::vector<TextLine> lines = {Line("Program", 50, 100, header_size, bold_header),
                                 Line("Purpose", 200, 100, header_size, bold_header),
                                 Line("Finding", 380, 100, header_size, bold_header)};
  struct Entry {
    const char* label;
    std::vector<const char*> purpose, finding;
  };
  const Entry entries[] = {
      {"Housing aid", {"Rent support for low income", "families in the county"}, {"Met its goals"}},
      {"Job training", {"Courses for adults who lost", "their jobs"}, {"Fewer places than", "planned"}},
      {"Road repair", {"Repairs of county roads"}, {"Behind schedule"}}};
  double y = 116;
  for (const Entry& e : entries) {
    lines.push_back(Line(e.label, 50, y));
    for (size_t k = 0; k < e.purpose.size(); ++k)
      lines.push_back(Line(e.purpose[k], 200 + k * ragged, y + 12.0 * k));
    for (size_t k = 0; k < e.finding.size(); ++k) lines.push_back(Line(e.finding[k], 380, y + 12.0 * k));
    y += 12.0 * std::max(e.purpose.size(), e.finding.size()) + 4;
  }
  lines.push_back(Line("Below the table, a sentence of prose that is long.", 50, y + 30));
  return lines;
}

TEST(AlignedTableTest, ATableOfTextIsToldByItsBoldHeaderAndFlushLeftColumns) {
  std::vector<TextLine> lines = TextTable(true);
  auto tables = FindAlignedTables(lines, std::vector<bool>(lines.size(), false), kPage);
  ASSERT_EQ(tables.size(), 1u);
  EXPECT_EQ(tables[0].html,
            "<table><tr><td>Program</td><td>Purpose</td><td>Finding</td></tr>"
            "<tr><td>Housing aid</td><td>Rent support for low income families in the county</td>"
            "<td>Met its goals</td></tr>"
            "<tr><td>Job training</td><td>Courses for adults who lost their jobs</td>"
            "<td>Fewer places than planned</td></tr>"
            "<tr><td>Road repair</td><td>Repairs of county roads</td><td>Behind schedule</td></tr></table>");
  EXPECT_EQ(tables[0].line_indices.size(), lines.size() - 1);
  // Without numbers, nothing else tells such rows from text set in columns: no bold header, no table;
  // nor with a column whose lines do not start together, nor under a row of larger headings.
  for (const std::vector<TextLine>& other : {TextTable(false), TextTable(true, 4), TextTable(true, 0, 14)}) {
    auto found = FindAlignedTables(other, std::vector<bool>(other.size(), false), kPage);
    EXPECT_TRUE(found.empty()) << found[0].html;
  }
}

TEST(AlignedTableTest, TheHeaderOfATableOfTextIsItsFirstRowsSetInBold) {
  // No figures to end the header at: it ends where the bold ends, not at the first label alone on its
  // line (a label's wrapped line, "formula for schools", under the first row).
  std::vector<TextLine> lines = {Line("Action", 50, 100, 10, true),
                                 Line("Responsible", 200, 100, 10, true),
                                 Line("Deadline", 380, 100, 10, true),
                                 Line("Review the funding", 50, 116),
                                 Line("Ministry of Finance", 200, 116),
                                 Line("Ongoing", 380, 116),
                                 Line("formula for schools", 50, 128),
                                 Line("Audit the accounts", 50, 144),
                                 Line("Audit office", 200, 144),
                                 Line("March 2024", 380, 144),
                                 Line("Train staff", 50, 160),
                                 Line("Each department", 200, 160),
                                 Line("Completed", 380, 160),
                                 Line("Below the table, a sentence of prose that is long.", 50, 200)};
  auto tables = FindAlignedTables(lines, std::vector<bool>(lines.size(), false), kPage);
  ASSERT_EQ(tables.size(), 1u);
  EXPECT_EQ(
      tables[0].html,
      "<table><tr><td>Action</td><td>Responsible</td><td>Deadline</td></tr>"
      "<tr><td>Review the funding formula for schools</td><td>Ministry of Finance</td><td>Ongoing</td></tr>"
      "<tr><td>Audit the accounts</td><td>Audit office</td><td>March 2024</td></tr>"
      "<tr><td>Train staff</td><td>Each department</td><td>Completed</td></tr></table>");
}

TEST(AlignedTableTest, ARowSetApartUnderALabelIsARowBesideTheLabelMergedDown) {
  // A word processor's table of text without rules, its rows padded apart, a group's name merged down
  // over two rows of actions: the second row, set apart, is a row of its own beside the name (rowspan),
  // not the first row's wrapped lines, which stand close.
  std::vector<TextLine> lines = {Line("Objective", 50, 100, 10, true),
                                 Line("Action", 200, 100, 10, true),
                                 Line("Lead", 380, 100, 10, true),
                                 Line("Roads", 50, 120),
                                 Line("Repair bridges", 200, 120),
                                 Line("Council", 380, 120),
                                 Line("on time", 200, 131),
                                 Line("Fill potholes", 200, 150),
                                 Line("Agency", 380, 150),
                                 Line("Schools", 50, 170),
                                 Line("Build classrooms", 200, 170),
                                 Line("Ministry", 380, 170),
                                 Line("Hire teachers", 200, 190),
                                 Line("Office", 380, 190),
                                 Line("Below the table, a sentence of prose that is long.", 50, 240)};
  auto tables = FindAlignedTables(lines, std::vector<bool>(lines.size(), false), kPage);
  ASSERT_EQ(tables.size(), 1u);
  EXPECT_EQ(tables[0].html,
            "<table><tr><td>Objective</td><td>Action</td><td>Lead</td></tr>"
            "<tr><td rowspan=\"2\">Roads</td><td>Repair bridges on time</td><td>Council</td></tr>"
            "<tr><td>Fill potholes</td><td>Agency</td></tr>"
            "<tr><td rowspan=\"2\">Schools</td><td>Build classrooms</td><td>Ministry</td></tr>"
            "<tr><td>Hire teachers</td><td>Office</td></tr></table>");
}

TEST(AlignedTableTest, UnderABoldHeaderTheCellsOfATableOfTextMayBeAsLongAsLabels) {
  // A wrapped line of 44 characters in the second column: longer than a cell of figures would be.
  auto line = [](const char* text, double x, double y, bool bold = false) {
    return Line(text, x, y, 8, bold);
  };
  std::vector<TextLine> lines = {line("Recommendation", 50, 100, true),
                                 line("Response", 240, 100, true),
                                 line("Status", 440, 100, true),
                                 line("Publish the data every month", 50, 114),
                                 line("Accepted: monthly data will be published in", 240, 114),
                                 line("Done", 440, 114),
                                 line("full from April", 240, 124),
                                 line("Create a regulator", 50, 138),
                                 line("Not accepted", 240, 138),
                                 line("Closed", 440, 138),
                                 line("Review the guidance", 50, 152),
                                 line("Accepted", 240, 152),
                                 line("Not started", 440, 152)};
  auto tables = FindAlignedTables(lines, std::vector<bool>(lines.size(), false), kPage);
  ASSERT_EQ(tables.size(), 1u);
  EXPECT_EQ(tables[0].html,
            "<table><tr><td>Recommendation</td><td>Response</td><td>Status</td></tr>"
            "<tr><td>Publish the data every month</td><td>Accepted: monthly data will be published in full "
            "from April</td><td>Done</td></tr><tr><td>Create a regulator</td><td>Not accepted</td>"
            "<td>Closed</td></tr><tr><td>Review the guidance</td><td>Accepted</td><td>Not started</td></tr>"
            "</table>");
}

TEST(AlignedTableTest, UsedLinesAreSkipped) {
  std::vector<TextLine> lines = {Line("1", 100, 100), Line("2", 200, 100), Line("3", 100, 114),
                                 Line("4", 200, 114), Line("5", 100, 128), Line("6", 200, 128)};
  EXPECT_EQ(FindAlignedTables(lines, std::vector<bool>(lines.size(), false), kPage).size(), 1u);
  EXPECT_TRUE(FindAlignedTables(lines, std::vector<bool>(lines.size(), true), kPage).empty());
}

// A spreadsheet's rows set with its defaults: labels flush left at x 72, three columns of figures flush
// right in cells 100 pt wide (the last one 10 pt wider), `count` rows (at most 6) 14 pt apart from `top`.
void AppendSpreadsheetRows(std::vector<TextLine>& lines, double top, int count) {
  const char* rows[][4] = {{"Primary schools", "310", "271", "39"},
                           {"Secondary schools", "88", "70", "18"},
                           {"Special schools", "21", "19", "2"},
                           {"Nurseries", "140", "131", "9"},
                           {"Colleges", "12", "9", "3"},
                           {"All providers", "571", "500", "71"}};
  for (int r = 0; r < count; ++r) {
    const double y = top + 14.0 * r;
    lines.push_back(Line(rows[r][0], 72, y));
    for (int c = 1; c < 4; ++c) {
      const double right = 226 + 100.0 * c + (c == 3 ? 10 : 0);
      lines.push_back(LineEndingAt(rows[r][c], right, y));
    }
  }
}

TEST(AlignedTableTest, AHeaderSetLeftInAWideCellOverFiguresSetRightHeadsItsOwnColumn) {
  // Each heading stands in the gap between the figures of its column and those of the one before it.
  std::vector<TextLine> lines = {Line("Service", 72, 100), Line("Inspected", 234, 100),
                                 Line("Good or better", 334, 100), Line("Requires action", 434, 100)};
  AppendSpreadsheetRows(lines, 114, 4);
  auto tables = FindAlignedTables(lines, std::vector<bool>(lines.size(), false), kPage);
  ASSERT_EQ(tables.size(), 1u);
  EXPECT_EQ(tables[0].num_cols, 4);
  EXPECT_TRUE(
      tables[0].html.starts_with("<table><tr><td>Service</td><td>Inspected</td><td>Good or better</td>"
                                 "<td>Requires action</td></tr><tr><td>Primary schools</td><td>310</td>"))
      << tables[0].html;
}

TEST(AlignedTableTest, AHeadingWrappedFlushLeftBetweenTwoColumnsFiguresIsOneHeadingOfItsOwnColumn) {
  // Headings on two lines, each set flush left in its cell over figures set flush right; the second
  // line has no heading in the first column.
  std::vector<TextLine> lines = {Line("Service", 72, 100),    Line("Number", 234, 100),
                                 Line("Good or", 334, 100),   Line("Requires", 434, 100),
                                 Line("inspected", 234, 111), Line("better", 334, 111),
                                 Line("action", 434, 111)};
  AppendSpreadsheetRows(lines, 128, 6);
  auto tables = FindAlignedTables(lines, std::vector<bool>(lines.size(), false), kPage);
  ASSERT_EQ(tables.size(), 1u);
  EXPECT_TRUE(
      tables[0].html.starts_with("<table><tr><td>Service</td><td>Number inspected</td><td>Good or better</td>"
                                 "<td>Requires action</td></tr><tr><td>Primary schools</td><td>310</td>"))
      << tables[0].html;
}

TEST(AlignedTableTest, AGroupHeadingCentredOverFiguresSetFlushRightIsARowOfItsOwn) {
  // "Cost" centred over three columns of figures set flush right, over their years set flush right too:
  // it lies within the middle column but is set apart from that column's year, so it is a header row of
  // its own, not the first line of "2021". A heading wrapped as its column is set (flush right) would
  // be one cell (AHeaderWithAStubHeadAboveTheFirstRule).
  std::vector<TextLine> lines = {Line("Cost", 265, 100), Line("2019", 180, 112), Line("2021", 280, 112),
                                 Line("2023", 380, 112)};
  const char* rows[][4] = {{"Taxes", "12,345,678", "10,204,111", "1,204"},
                           {"Fees", "2,345,678", "20,204,111", "2,204"},
                           {"Grants", "11,345,678", "30,204,111", "3,204"}};
  for (int r = 0; r < 3; ++r) {
    const double y = 128 + 14.0 * r;
    lines.push_back(Line(rows[r][0], 72, y));
    for (int c = 1; c < 4; ++c) {
      const double right = 100.0 + 100.0 * c;
      lines.push_back(LineEndingAt(rows[r][c], right, y));
    }
  }
  auto tables = FindAlignedTables(lines, std::vector<bool>(lines.size(), false), kPage);
  ASSERT_EQ(tables.size(), 1u);
  EXPECT_EQ(tables[0].num_rows, 5) << tables[0].html;
  EXPECT_TRUE(
      tables[0].html.starts_with("<table><tr><td></td><td></td><td>Cost</td><td></td></tr><tr><td></td>"
                                 "<td>2019</td><td>2021</td><td>2023</td></tr>"))
      << tables[0].html;
}

// One line of words, each starting where given (glyphs 5 points wide), a space between each two.
TextLine WordsAt(const std::vector<std::pair<std::string, double>>& words, double y) {
  std::string text;
  for (const auto& [word, x] : words) text += (text.empty() ? "" : " ") + word;
  TextLine line = Line(text, words[0].second, y);
  size_t k = 0;
  double x = words[0].second;
  for (TextChar& c : line.chars) {
    if (c.rune == ' ') {
      const double end = x;
      x = words[++k].second;
      c.box = {end, y, x, y + 10};
      continue;
    }
    c.box = {x, y, x + 5, y + 10};
    x += 5;
  }
  line.box.x1 = x;
  return line;
}

TEST(AlignedTableTest, HeadingsOfTightColumnsInOneLineAreACellEachOverTheirColumns) {
  // "Q1", "Rate" and "Planned" set flush right over three tight columns of figures, 0.8 and 0.9 of an em
  // apart: one line of text, read as a cell per column, not as one heading across all three.
  std::vector<TextLine> lines = {Line("Item", 72, 100),
                                 WordsAt({{"Q1", 190}, {"Rate", 209}, {"Planned", 237}}, 100)};
  const char* rows[][4] = {
      {"North", "12", "34", "56"}, {"South", "21", "43", "65"}, {"West", "17", "38", "59"}};
  for (int r = 0; r < 3; ++r) {
    const double y = 114 + 12.0 * r;
    lines.push_back(Line(rows[r][0], 72, y));
    lines.push_back(Line(rows[r][1], 190, y));
    lines.push_back(Line(rows[r][2], 219, y));
    lines.push_back(Line(rows[r][3], 262, y));
  }
  auto tables = FindAlignedTables(lines, std::vector<bool>(lines.size(), false), kPage);
  ASSERT_EQ(tables.size(), 1u);
  EXPECT_TRUE(tables[0].html.starts_with(
      "<table><tr><td>Item</td><td>Q1</td><td>Rate</td><td>Planned</td></tr><tr><td>North</td><td>12</td>"))
      << tables[0].html;
}

TEST(AlignedTableTest, AHeadingWrappedOntoAFigureIsStillTheHeader) {
  // Headings wrapped flush right in narrow columns, top-aligned: "Cases per" over "1,000" beside "total"
  // and "cost per". The second line holds a figure but no label and more words than figures: a header
  // line, not the first row of values.
  std::vector<TextLine> lines = {Line("Region", 72, 100),   Line("Share of", 180, 100),
                                 Line("Average", 255, 100), Line("Cases per", 315, 100),
                                 Line("total", 195, 111),   Line("cost per", 250, 111),
                                 Line("1,000", 335, 111),   Line("case", 270, 122)};
  const char* rows[][4] = {{"North", "45.0", "375", "43,055"},
                           {"South", "93.8", "866", "20,904"},
                           {"West", "79.9", "61", "60,962"}};
  for (int r = 0; r < 3; ++r) {
    const double y = 138 + 12.0 * r;
    lines.push_back(Line(rows[r][0], 72, y));
    for (int c = 1; c < 4; ++c) {
      const double right = 150.0 + 70.0 * c;
      lines.push_back(LineEndingAt(rows[r][c], right, y));
    }
  }
  auto tables = FindAlignedTables(lines, std::vector<bool>(lines.size(), false), kPage);
  ASSERT_EQ(tables.size(), 1u);
  EXPECT_EQ(tables[0].num_rows, 4) << tables[0].html;
  EXPECT_TRUE(
      tables[0].html.starts_with("<table><tr><td>Region</td><td>Share of total</td><td>Average cost per "
                                 "case</td><td>Cases per 1,000</td></tr>"))
      << tables[0].html;
  // A year is a heading's word: "Change from" over "2020", beside "1,000", is as much words as figures.
  lines[5] = Line("2020", 270, 111);
  tables = FindAlignedTables(lines, std::vector<bool>(lines.size(), false), kPage);
  ASSERT_EQ(tables.size(), 1u);
  EXPECT_TRUE(
      tables[0].html.starts_with("<table><tr><td>Region</td><td>Share of total</td><td>Average 2020 "
                                 "case</td><td>Cases per 1,000</td></tr>"))
      << tables[0].html;
}

TEST(AlignedTableTest, AMatrixOfMarksIsATable) {
  // A form's question: a check box, the option (one longer than a cell of figures may be), and who
  // provides it ticked in two columns; no figure anywhere.
  std::vector<TextLine> lines = {Line("State funded", 300, 88, 10, true), Line("CSOs", 380, 88, 10, true),
                                 Line("legal aid", 305, 100, 10, true)};
  const char* options[] = {"Persons with disabilities", "Children",
                           "Refugees, asylum seekers, or stateless persons", "Internally displaced persons"};
  for (int r = 0; r < 4; ++r) {
    const double y = 116 + 14.0 * r;
    lines.push_back(InFont(Line("y", 50, y), "Wingdings"));
    lines.push_back(Line(options[r], 62, y));
    lines.push_back(Line("\u2713", 320, y));
    if (r != 1) lines.push_back(Line("*", 390, y));
  }
  auto tables = FindAlignedTables(lines, std::vector<bool>(lines.size(), false), kPage);
  ASSERT_EQ(tables.size(), 1u);
  EXPECT_EQ(tables[0].num_rows, 5);  // the header's two lines are one row
  EXPECT_NE(tables[0].html.find("<td>State funded legal aid</td><td>CSOs</td></tr>"), std::string::npos)
      << tables[0].html;
  EXPECT_NE(tables[0].html.find(
                "<tr><td>y</td><td>Refugees, asylum seekers, or stateless persons</td><td>\u2713</td>"
                "<td>*</td></tr>"),
            std::string::npos)
      << tables[0].html;
  // The same options with nothing ticked beside them are no table.
  std::vector<TextLine> plain;
  for (int r = 0; r < 4; ++r) plain.push_back(Line(options[r], 62, 116 + 14.0 * r));
  EXPECT_TRUE(FindAlignedTables(plain, std::vector<bool>(plain.size(), false), kPage).empty());
}

TEST(AlignedTableTest, BulletedListsSideBySideAreNoMatrixOfMarks) {
  // A slide's three lists in columns: each bullet stands an em before its item, as no mark ticked in a
  // matrix does.
  std::vector<TextLine> lines;
  const char* items[][3] = {{"First step", "Alpha", "Red"},
                            {"Second step", "Beta", "Green"},
                            {"Third step", "Gamma", "Blue"},
                            {"Fourth step", "Delta", "Amber"}};
  for (int r = 0; r < 4; ++r) {
    for (int c = 0; c < 3; ++c) {
      lines.push_back(WideLine(U"\u2022", 50 + 150.0 * c, 100 + 14.0 * r));
      lines.push_back(Line(items[r][c], 70 + 150.0 * c, 100 + 14.0 * r));
    }
  }
  auto tables = FindAlignedTables(lines, std::vector<bool>(lines.size(), false), kPage);
  EXPECT_TRUE(tables.empty()) << tables[0].html;
}

TEST(AlignedTableTest, TwoTablesSideBySideUnderTheirCaptionsAreTwoTables) {
  std::vector<TextLine> lines = {Line("Table 1: Staff", 72, 100), Line("Table 2: Sites", 330, 100)};
  const char* rows[][4] = {{"Grade", "Number", "Site", "Area"},
                           {"Senior", "412", "North", "1,204"},
                           {"Middle", "3,105", "South", "2,011"}};
  for (int r = 0; r < 3; ++r) {
    const double y = 116 + 13.0 * r;
    lines.push_back(Line(rows[r][0], 72, y));
    lines.push_back(Line(rows[r][1], 200, y));
    lines.push_back(Line(rows[r][2], 330, y));
    lines.push_back(Line(rows[r][3], 470, y));
  }
  auto tables = FindAlignedTables(lines, std::vector<bool>(lines.size(), false), kPage);
  ASSERT_EQ(tables.size(), 2u);
  EXPECT_EQ(tables[0].html,
            "<table><tr><td>Grade</td><td>Number</td></tr><tr><td>Senior</td><td>412</td></tr>"
            "<tr><td>Middle</td><td>3,105</td></tr></table>");
  EXPECT_EQ(tables[1].html,
            "<table><tr><td>Site</td><td>Area</td></tr><tr><td>North</td><td>1,204</td></tr>"
            "<tr><td>South</td><td>2,011</td></tr></table>");
  // The captions are left to the text.
  for (const RuledTable& t : tables) {
    for (size_t li : t.line_indices) EXPECT_GE(li, 2u);
  }
}

}  // namespace
}  // namespace mineru::document
