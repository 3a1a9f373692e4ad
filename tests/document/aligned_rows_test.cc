#include "document/aligned_rows.h"

#include <gtest/gtest.h>

#include "tests/document/line_builder.h"

namespace mineru::document {
namespace {

TEST(AlignedRowsTest, NumbersWithTheirSignsAndMarksAreNumeric) {
  for (const char* number :
       {"1,234",        "-5.6",         "12%",        "$3",    "(4)",    "\u20ac7",         "\u00a31.50",
        "\u22123",      "\u20132.0",    "12.5p",      "45 e",  "1,234*", "56\u2020",        "+0.3",
        "$2.7 billion", "$300 million", "12 percent", "$3.1B", "45K",    "0.81 \u00b1 0.02"}) {
    EXPECT_TRUE(IsNumericCell(number)) << number;
  }
  for (const char* word :
       {"", "-", "Total", "n/a", "x", "abc", "A1", "Q3", "12 ducks", "No", "B", "million", "K2"}) {
    EXPECT_FALSE(IsNumericCell(word)) << word;
  }
}

TEST(AlignedRowsTest, GroupsNamesSpanTheRunsOfColumnsCentredOnThem) {
  // Seven columns 60 wide, the labels' first; every column but the first headed on the next line.
  std::vector<std::pair<double, double>> columns;
  for (int c = 0; c < 7; ++c) columns.push_back({100.0 + 60 * c, 150.0 + 60 * c});
  std::vector<bool> headed = {false, true, true, true, true, true, true};
  using Runs = std::vector<std::pair<size_t, size_t>>;
  // "Men" and "Women" each in the middle column of its three, a heading over the labels beside them.
  EXPECT_EQ(GroupNameRuns({{0, 0, 110}, {2, 2, 275}, {5, 5, 455}}, columns, headed),
            (Runs{{0, 0}, {1, 3}, {4, 6}}));
  // Beside a name over several columns already, one in the middle of its three.
  EXPECT_EQ(GroupNameRuns({{2, 2, 275}, {4, 6, 455}}, columns, headed), (Runs{{1, 3}, {4, 6}}));
  // One name: no line of groups' names (a heading wrapped in its column, "Change" over "(%)").
  EXPECT_TRUE(GroupNameRuns({{0, 0, 110}, {2, 2, 275}}, columns, headed).empty());
  // Two headings in columns two apart: their runs would share a column; neither is a group's name.
  EXPECT_TRUE(GroupNameRuns({{2, 2, 275}, {4, 4, 395}}, columns, headed).empty());
  // A column the next line leaves without a heading is no group's.
  headed[3] = false;
  EXPECT_TRUE(GroupNameRuns({{2, 2, 275}, {5, 5, 455}}, columns, headed).empty());
}

TEST(AlignedRowsTest, ALabelCentredBetweenTwoRowsDoesNotChainThemIntoOne) {
  // "Papers" set half way between the rows of its two methods (a label over two rows, as LaTeX's
  // \multirow sets it): it overlaps both, and the two rows stay two.
  using testing::Line;
  const std::vector<TextLine> lines = {Line("Ours", 200, 100), Line(".94", 300, 100),
                                       Line("Papers", 50, 104.5), Line("Baseline", 200, 109),
                                       Line(".88", 300, 109)};
  const std::vector<TextRow> rows = BuildRows(lines, std::vector<bool>(lines.size(), false));
  auto row_of = [&](size_t line) {
    for (size_t r = 0; r < rows.size(); ++r) {
      for (const RowPiece& p : rows[r].pieces) {
        if (p.line == line) return r;
      }
    }
    return rows.size();
  };
  EXPECT_EQ(row_of(0), row_of(1));
  EXPECT_EQ(row_of(3), row_of(4));
  EXPECT_NE(row_of(0), row_of(3));
}

TEST(AlignedRowsTest, CellsThatSayThereIsNoValue) {
  for (const char* none :
       {"-", "\u2013", "\u2014", "..", "...", "n/a", "N/A", "NA", "(X)", "(D)", "*", "x"}) {
    EXPECT_TRUE(IsPlaceholderCell(none)) << none;
  }
  for (const char* value : {"0", "12", "Total", "--x", "none of them"}) {
    EXPECT_FALSE(IsPlaceholderCell(value)) << value;
  }
}

TEST(AlignedRowsTest, IndexEntriesEndInPageNumbers) {
  for (const char* entry :
       {"\\printtime, 330", "MakeIndex, xxv, xxix, 312,", "book, 12", "pages, 317\u2013321, 324",
        "157, 190, 243, 296,", "386, 464, 468", "footnotes, 45n, 46ff", "preface, ix", "margin, 17,"}) {
    EXPECT_TRUE(IsIndexEntry(entry)) << entry;
  }
  for (const char* other : {"330", "0,8", "1,234", "12 441", "2019-20", "proportion", "vi", ", 12",
                            "Total, all ages", "mid, mix", "Alpha, beta", "12, abc", "xxv,x"}) {
    EXPECT_FALSE(IsIndexEntry(other)) << other;
  }
}

TEST(AlignedRowsTest, MarksAreOneSymbolOrOneGlyphOfASymbolFont) {
  for (const char* mark :
       {"*", "x", "X", "\u2713", "\u2714", "\u2610", "\u2612", "\u25cf", "\u2022", "\uf0fc"}) {
    EXPECT_TRUE(IsMarkCell(mark, "Helvetica")) << mark;
  }
  // A check box drawn as the letter "y" of Wingdings.
  EXPECT_TRUE(IsMarkCell("y", "Wingdings"));
  EXPECT_TRUE(IsMarkCell("n", "ZapfDingbats"));
  for (const char* font : {"ABCDEF+Wingdings-Regular", "Wingdings2", "SymbolMT", "Symbol,Bold", "Webdings"})
    EXPECT_TRUE(IsMarkCell("a", font)) << font;
  // Letter fonts whose names hold such a word are no symbol fonts.
  for (const char* font : {"SymbolicSans", "NotoSansSymbols-Regular", "MyDingbatsLike"})
    EXPECT_FALSE(IsMarkCell("a", font)) << font;
  for (const char* value : {"y", "1", "a", "**", "xx", "Yes", ""}) {
    EXPECT_FALSE(IsMarkCell(value, "Helvetica")) << value;
  }
}

}  // namespace
}  // namespace mineru::document
