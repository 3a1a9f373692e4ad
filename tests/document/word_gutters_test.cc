#include "document/word_gutters.h"

#include <gtest/gtest.h>

#include "document/aligned_table.h"

#include "tests/document/line_builder.h"

namespace mineru::document {
namespace {

using testing::Line;
using testing::LineOfWords;

std::vector<std::string> Texts(const TextRow& row) {
  std::vector<std::string> texts;
  for (const RowPiece& p : row.pieces) texts.push_back(p.text);
  return texts;
}

// Three columns of text 8 points (0.8 em) apart, each row one line, the first column justified (its
// lines' spaces stretched alike, 16 and 18.5 points): cut at an em, pieces run across the gutters
// ("Publish the spending Ministry") and break at stretched spaces ("of"). The stretched spaces of the
// first column's two long lines leave x = 168.5 to 182 clear in every row: no gutter, for its gaps are
// as wide as their lines' other spaces.
std::vector<TextLine> JustifiedColumns() {
  return {
      LineOfWords({{"Action", 100}, {"Lead", 230}, {"Date", 330}}, 100, 10, true),
      LineOfWords(
          {{"Publish", 100}, {"the", 151}, {"spending", 182}, {"Ministry", 230}, {"of", 290}, {"2024", 330}},
          116),
      LineOfWords({{"data", 100}, {"Finance", 230}}, 128),
      LineOfWords({{"Replace", 100},
                   {"the", 153.5},
                   {"payroll", 187},
                   {"Statistics", 230},
                   {"office", 292},
                   {"Ongoing", 330}},
                  140),
      LineOfWords({{"Train", 100}, {"staff", 130}, {"Each", 230}, {"department", 260}, {"March", 330}}, 152)};
}

// The table of those columns, each row's wrapped lines joined.
constexpr const char* kJustifiedTable =
    "<table><tr><td>Action</td><td>Lead</td><td>Date</td></tr>"
    "<tr><td>Publish the spending data</td><td>Ministry of Finance</td><td>2024</td></tr>"
    "<tr><td>Replace the payroll</td><td>Statistics office</td><td>Ongoing</td></tr>"
    "<tr><td>Train staff</td><td>Each department</td><td>March</td></tr></table>";

TEST(WordGuttersTest, TheGuttersOfColumnsOfTextAreWhereNoRowHasAWord) {
  const std::vector<TextLine> lines = JustifiedColumns();
  std::vector<TextRow> rows = BuildRows(lines, std::vector<bool>(lines.size(), false));
  ASSERT_EQ(rows.size(), 5u);
  EXPECT_EQ(Texts(rows[1]), (std::vector<std::string>{"Publish", "the", "spending Ministry", "of", "2024"}));
  const auto gutters = WordGutters(rows, lines, 111);
  ASSERT_EQ(gutters.size(), 2u);
  EXPECT_DOUBLE_EQ(gutters[0].first, 222);
  EXPECT_DOUBLE_EQ(gutters[0].second, 230);
  EXPECT_DOUBLE_EQ(gutters[1].first, 322);
  EXPECT_DOUBLE_EQ(gutters[1].second, 330);
  CutAtWordGutters(rows, lines, gutters, 111);
  EXPECT_EQ(Texts(rows[0]), (std::vector<std::string>{"Action", "Lead", "Date"}));
  EXPECT_EQ(Texts(rows[1]), (std::vector<std::string>{"Publish the spending", "Ministry of", "2024"}));
  EXPECT_EQ(Texts(rows[3]),
            (std::vector<std::string>{"Replace the payroll", "Statistics office", "Ongoing"}));
  EXPECT_DOUBLE_EQ(rows[1].pieces[1].x0, 230);
  EXPECT_DOUBLE_EQ(rows[1].pieces[1].x1, 300);
}

TEST(WordGuttersTest, AGapNarrowerThanAGutterOrClearInOneColumnOfOneRowIsNone) {
  // Gutters 6 points wide (0.6 em) are not told from a wide space; a column with words of one row only
  // is no column (the wider gutter beside it stays).
  std::vector<TextLine> lines = {LineOfWords({{"Alpha", 100}, {"beta", 131}}, 100),
                                 LineOfWords({{"Gamma", 100}, {"delta", 131}}, 112),
                                 LineOfWords({{"Epsilon", 100}, {"x", 300}}, 124)};
  std::vector<TextRow> rows = BuildRows(lines, std::vector<bool>(lines.size(), false));
  EXPECT_TRUE(WordGutters(rows, lines, 0).empty());
}

TEST(WordGuttersTest, FiguresSetCloserThanAGutterStayCellsOfTheirOwn) {
  // Two columns of figures 6 points apart (0.6 em): one column of words; its figures stay cells of their
  // own, and so do the headings over them on the second header line (counted: the first row only does
  // not), a column holding figures joining none of its pieces.
  const std::vector<TextLine> lines = {LineOfWords({{"Region", 100}, {"Cases", 200}}, 100),
                                       LineOfWords({{"Units", 100}, {"Q2", 200}, {"Rate", 222}}, 112),
                                       LineOfWords({{"North", 100}, {"1,204", 200}, {"1,310", 231}}, 124),
                                       LineOfWords({{"South", 100}, {"986", 210}, {"1,022", 231}}, 136),
                                       LineOfWords({{"West", 100}, {"1,105", 200}, {"2,416", 231}}, 148)};
  std::vector<TextRow> rows = BuildRows(lines, std::vector<bool>(lines.size(), false));
  const auto gutters = WordGutters(rows, lines, 0);
  ASSERT_EQ(gutters.size(), 1u);  // between the labels and the figures only
  CutAtWordGutters(rows, lines, gutters, 0);
  EXPECT_EQ(Texts(rows[1]), (std::vector<std::string>{"Units", "Q2", "Rate"}));
  EXPECT_EQ(Texts(rows[2]), (std::vector<std::string>{"North", "1,204", "1,310"}));
  EXPECT_EQ(Texts(rows[3]), (std::vector<std::string>{"South", "986", "1,022"}));
}

TEST(WordGuttersTest, AHeadingOverTwoColumnsMayCrossTheirGutterAndStaysWhole) {
  std::vector<TextLine> lines = JustifiedColumns();
  lines[0] = LineOfWords({{"Action", 100}, {"Lead", 190}, {"and", 215}, {"date", 235}}, 100, 10, true);
  std::vector<TextRow> rows = BuildRows(lines, std::vector<bool>(lines.size(), false));
  EXPECT_EQ(Texts(rows[0]), (std::vector<std::string>{"Action", "Lead and date"}));
  const auto gutters = WordGutters(rows, lines, 111);
  ASSERT_EQ(gutters.size(), 2u);
  CutAtWordGutters(rows, lines, gutters, 111);
  EXPECT_EQ(Texts(rows[0]), (std::vector<std::string>{"Action", "Lead and date"}));
  // Counted as a row of the table, the heading crosses the first gutter: that one is gone.
  rows = BuildRows(lines, std::vector<bool>(lines.size(), false));
  const auto counted = WordGutters(rows, lines, 0);
  ASSERT_EQ(counted.size(), 1u);
  EXPECT_DOUBLE_EQ(counted[0].first, 322);
  // With no rule under the header (`header_bottom` under every row), the first row is the header.
  EXPECT_EQ(WordGutters(rows, lines, 1e18).size(), 2u);
}

TEST(WordGuttersTest, BetweenRulesColumnsOfTextAreCutAtTheirWordGutters) {
  // The columns above between a top rule, a rule under the header and a bottom rule: each row's wrapped
  // lines joined, each cell in its column.
  const std::vector<TextLine> lines = JustifiedColumns();
  const std::vector<RulingSegment> rules = {
      {{90, 94.6, 400, 95.4}, true}, {{90, 110.6, 400, 111.4}, true}, {{90, 164.6, 400, 165.4}, true}};
  auto tables =
      FindRuleBandTables(rules, lines, std::vector<bool>(lines.size(), false), {}, {0, 0, 600, 800});
  ASSERT_EQ(tables.size(), 1u);
  EXPECT_EQ(tables[0].html, kJustifiedTable);
}

TEST(WordGuttersTest, WithoutRulesColumnsOfTextAreCutAtTheirWordGuttersToo) {
  // The same columns with no rule at all: a table of text under its bold header (FindAlignedTables).
  std::vector<TextLine> lines = JustifiedColumns();
  lines.push_back(Line("Below the table, a sentence of prose that is long.", 100, 200));
  auto tables = FindAlignedTables(lines, std::vector<bool>(lines.size(), false), {0, 0, 600, 800});
  ASSERT_EQ(tables.size(), 1u);
  EXPECT_EQ(tables[0].html, kJustifiedTable);
}

TEST(WordGuttersTest, PiecesFarApartOrGlyphsWithoutASpaceKeepTheirText) {
  // In a column of text, two pieces four ems apart are no justified line's words (unless the line fills
  // its cell): they stay apart. A
  // piece whose glyphs stand apart with no space between ("in" "mm" set apart by a kern) keeps its text
  // as it was.
  TextLine kerned = LineOfWords({{"Gamma", 100}, {"inmm", 200}}, 136);
  kerned.chars[8].box = {214, 136, 219, 146};  // "mm" 4 points (0.4 em) right of "in", no space between
  kerned.chars[9].box = {219, 136, 224, 146};
  kerned.box.x1 = 224;
  std::vector<TextLine> lines = {
      LineOfWords({{"Name", 100}, {"Notes", 200}}, 100, 10, true),
      LineOfWords({{"Alpha", 100}, {"a note running across the column", 200}}, 112),
      LineOfWords({{"Beta", 100}, {"left", 200}, {"right", 260}}, 124), kerned,
      LineOfWords({{"Delta", 100}, {"Publish", 200}, {"quarterly", 315}}, 148)};
  std::vector<TextRow> rows = BuildRows(lines, std::vector<bool>(lines.size(), false));
  const auto gutters = WordGutters(rows, lines, 106);
  ASSERT_EQ(gutters.size(), 1u);
  CutAtWordGutters(rows, lines, gutters, 106);
  EXPECT_EQ(Texts(rows[2]), (std::vector<std::string>{"Beta", "left", "right"}));
  EXPECT_EQ(Texts(rows[3]), (std::vector<std::string>{"Gamma", "inmm"}));
  // Words as far apart on a line that fills its cell from edge to edge are a justified line's.
  EXPECT_EQ(Texts(rows[4]), (std::vector<std::string>{"Delta", "Publish quarterly"}));
}

TEST(WordGuttersTest, ADotLeaderIsOneWordAndStaysApartFromItsText) {
  // Spaced leader dots set on one grid in every row (as TeX sets leaders) would leave gutters between
  // them: a leader is one word. Set apart from its entry, it stays a piece of its own.
  auto entry = [](const std::string& text, double y, const std::string& page) {
    std::vector<std::pair<std::string, double>> words = {{text, 100}};
    const double end = 100 + 5.0 * static_cast<double>(text.size());
    double x = 100;
    while (x < end + 10) x += 13;  // the dots' grid
    for (; x <= 270; x += 13) words.push_back({".", x});
    words.push_back({page, 300});
    return LineOfWords(words, y);
  };
  const std::vector<TextLine> lines = {entry("Introduction", 100, "1"), entry("Methods", 112, "4"),
                                       entry("Results and discussion", 124, "12")};
  std::vector<TextRow> rows = BuildRows(lines, std::vector<bool>(lines.size(), false));
  const auto gutters = WordGutters(rows, lines, 0);
  ASSERT_EQ(gutters.size(), 1u);  // before the page numbers only
  EXPECT_GE(gutters[0].first, 270);
  CutAtWordGutters(rows, lines, gutters, 0);
  ASSERT_EQ(rows[1].pieces.size(), 3u);
  EXPECT_EQ(rows[1].pieces[0].text, "Methods");
  EXPECT_EQ(rows[1].pieces[2].text, "4");
}

TEST(WordGuttersTest, ANoteUnderTheRowsDoesNotCloseTheirGutters) {
  // Labels and figures set 8 points (0.8 em) apart, each row one line; under them a note set smaller,
  // one line of prose whose words reach into both gutters. The gutters are the rows', as they are
  // without the note; a line of the rows' size there is a row of theirs (a contents list's last entry).
  const std::vector<TextLine> lines = {
      LineOfWords({{"Country", 65}, {"2009", 131}, {"2010", 167}}, 100),
      LineOfWords({{"Lithuania", 65}, {"209", 118}, {"743", 136}, {"-", 182}}, 112),
      LineOfWords({{"Germany", 65}, {"194", 118}, {"683", 136}, {":", 182}}, 124),
      LineOfWords({{"Denmark", 65}, {"107", 118}, {"187", 136}, {"10", 159}, {"394", 172}}, 136),
      LineOfWords({{"Source:", 58}, {"of", 89}, {"the", 100}, {"office", 115}, {"of", 142}, {"trade.", 153}},
                  148, 8)};
  std::vector<TextRow> rows = BuildRows(lines, std::vector<bool>(lines.size(), false));
  ASSERT_EQ(rows.size(), 5u);
  const auto gutters = WordGutters(rows, lines, 111);
  ASSERT_EQ(gutters.size(), 2u);
  EXPECT_DOUBLE_EQ(gutters[0].first, 110);
  EXPECT_DOUBLE_EQ(gutters[0].second, 118);
  EXPECT_DOUBLE_EQ(gutters[1].first, 151);
  EXPECT_DOUBLE_EQ(gutters[1].second, 159);
  rows.pop_back();
  EXPECT_EQ(WordGutters(rows, lines, 111), gutters);
  std::vector<TextLine> same_size = lines;
  same_size.back() =
      LineOfWords({{"Source:", 58}, {"of", 98}, {"the", 111}, {"office", 129}, {"of", 162}}, 148);
  rows = BuildRows(same_size, std::vector<bool>(same_size.size(), false));
  EXPECT_TRUE(WordGutters(rows, same_size, 111).empty());
}

}  // namespace
}  // namespace mineru::document
