#include "document/text_layout.h"

#include <gtest/gtest.h>

#include "tests/document/line_builder.h"

namespace mineru::document {
namespace {

using testing::InFont;
using testing::Line;
using testing::WideLine;

TEST(TextLayoutTest, ASentenceEndsAtItsStopWhateverQuotesAndBracketsCloseAfterIt) {
  for (const char* text : {"It works.", "as in the example below.)", "He said \u201cno.\u201d", "Why?",
                           "Wait\u2026", "\u516c\u53f8\u3002", "\u597d\uff01\u300d", "Note:"}) {
    EXPECT_TRUE(EndsSentence(text)) << text;
  }
  for (const char* text : {"and the", "see (Table 2)", "first;", "one, two,", ""}) {
    EXPECT_FALSE(EndsSentence(text)) << text;
  }
  EXPECT_TRUE(EndsSentence("first;", /*clause=*/true));
  EXPECT_TRUE(EndsSentence("\u7b2c\u4e00\uff1b", /*clause=*/true));
}

TEST(TextLayoutTest, JoinLineDehyphenates) {
  std::string p = "the para-";
  JoinLine(p, "graph continues");
  EXPECT_EQ(p, "the paragraph continues");
  p = "well-";
  JoinLine(p, "Known");  // a capital after the hyphen: the hyphen is real and kept
  EXPECT_EQ(p, "well- Known");
  p = "range 1-";
  JoinLine(p, "5");
  EXPECT_EQ(p, "range 1- 5");
  p = "plain";
  JoinLine(p, "next");
  EXPECT_EQ(p, "plain next");
  p = "\xE4\xB8\xAD";  // 中
  JoinLine(p, "\xE6\x96\x87");
  EXPECT_EQ(p, "\xE4\xB8\xAD\xE6\x96\x87");
  p = "";
  JoinLine(p, "first");
  EXPECT_EQ(p, "first");
}

TEST(TextLayoutTest, CutTrailingLeader) {
  std::string t = "Wages and salaries ..........";
  EXPECT_TRUE(CutTrailingLeader(t));
  EXPECT_EQ(t, "Wages and salaries");
  t = "Travel . . . . . .";
  EXPECT_TRUE(CutTrailingLeader(t));
  EXPECT_EQ(t, "Travel");
  t = "Rent\u2026\u2026";
  EXPECT_TRUE(CutTrailingLeader(t));
  EXPECT_EQ(t, "Rent");
  for (std::string kept : {"Ends a sentence.", "And so on...", "..........", "12.5", "Notes . . . 4"}) {
    std::string before = kept;
    EXPECT_FALSE(CutTrailingLeader(kept)) << before;
    EXPECT_EQ(kept, before);
  }
}

TEST(TextLayoutTest, ListMarkers) {
  bool numbered = false;
  EXPECT_EQ(ListMarkerLength("\xE2\x80\xA2 item", &numbered), 4u);  // "• "
  EXPECT_FALSE(numbered);
  EXPECT_EQ(ListMarkerLength("- item", &numbered), 2u);
  EXPECT_EQ(ListMarkerLength("\u2219 item", &numbered), 4u);  // "∙ " (a bullet operator: a math font's)
  EXPECT_EQ(ListMarkerLength("\u2023 item", &numbered), 4u);  // "‣ "
  EXPECT_EQ(ListMarkerLength("12. item", &numbered), 4u);
  EXPECT_TRUE(numbered);
  EXPECT_EQ(ListMarkerLength("(3) item", &numbered), 4u);
  EXPECT_EQ(ListMarkerLength("b) item", &numbered), 3u);
  EXPECT_EQ(ListMarkerLength("5.1 Section", &numbered), 0u);
  EXPECT_EQ(ListMarkerLength("2024 was a year", &numbered), 0u);
  EXPECT_EQ(ListMarkerLength("-", &numbered), 0u);
  EXPECT_EQ(ListMarkerLength("Word. Next", &numbered), 0u);
  // A symbol font's glyph: a shape, a ballot box, a dingbat, a private-use character, or a C1 control
  // (a Wingdings check box whose code maps to no meaning).
  for (const char* mark : {"\u25aa item", "\u2610 item", "\u27a2 item", "\uf0a8 item", "\u0084 item"}) {
    numbered = true;
    EXPECT_EQ(ListMarkerLength(mark, &numbered), std::string(mark).size() - 4) << mark;
    EXPECT_FALSE(numbered);
  }
  EXPECT_EQ(ListMarkerLength("\uf0a8item", &numbered), 0u);  // a glyph run into its word
  // A shape right before Chinese text, no space: the shape alone.
  EXPECT_EQ(ListMarkerLength("\u25c6\u516c\u53f8", &numbered), 3u);  // ◆公司
  EXPECT_EQ(ListMarkerLength("\u25cf\u516c\u53f8", &numbered), 3u);  // ●公司
  EXPECT_EQ(ListMarkerLength("-\u516c\u53f8", &numbered), 0u);
  // A line of choices: the box again, or a check mark.
  EXPECT_EQ(ListMarkerLength("\u25a1 \u9002\u7528 \u221a \u4e0d\u9002\u7528", &numbered),
            0u);  // □ 适用 √ 不适用
  EXPECT_EQ(ListMarkerLength("\u2610 Yes \u2610 No", &numbered), 0u);
  EXPECT_EQ(ListMarkerLength("\uf0a8 Yes \uf0a8 No", &numbered), 0u);
  EXPECT_EQ(ListMarkerLength("- Days 3 - 5", &numbered), 2u);
}

TEST(TextLayoutTest, PageNumbers) {
  for (const char* s : {"7", "- 12 -", "Page 3", "3 of 10", "Page 2 of 9", "iv", "[4]", "\u7b2c 5 \u9875",
                        "\u7b2c 5 \u9875 \u5171 120 \u9875", "\u7b2c5\u9801"}) {
    EXPECT_TRUE(IsPageNumberText(s)) << s;
  }
  EXPECT_TRUE(IsPageNumberText("7-45"));  // chapter-page
  for (const char* s : {"Chapter 3", "Introduction", "3.5 Results", "1998-2004 survey", "X",
                        "\u7b2c 3 \u8282"}) {  // "section 3"
    EXPECT_FALSE(IsPageNumberText(s)) << s;
  }
}

PageContent Page(std::vector<TextLine> lines) {
  PageContent p;
  p.page = {0, 0, 600, 800};
  p.lines = std::move(lines);
  for (const TextLine& l : p.lines) p.num_chars += static_cast<int>(l.chars.size());
  return p;
}

TEST(TextLayoutTest, AWhitespaceTableOnARightToLeftPageStartsItsRowsAtTheRight) {
  // Hebrew labels at the right (x 400..500), figures at the left (x 100..): rows of two cells, the
  // label first; a paragraph under the table.
  const std::u32string labels[] = {U"\u05D0\u05D1\u05D2", U"\u05D3\u05D4", U"\u05D5\u05D6\u05D7",
                                   U"\u05D8\u05D9"};
  const char* figures[] = {"1,200", "340", "5,600", "78"};
  std::vector<TextLine> lines;
  for (int r = 0; r < 4; ++r)
    lines.push_back(testing::RtlRow(labels[r], 500, figures[r], 100, 100 + 14.0 * r));
  // A row with a Latin label: a left-to-right line, read left to right ("9,218 Sum").
  TextLine latin = Line("9,218", 100, 156);
  TextLine sum = Line("Sum", 485, 156);
  latin.chars.push_back({U' ', {}});
  latin.chars.insert(latin.chars.end(), sum.chars.begin(), sum.chars.end());
  latin.text = "9,218 Sum";
  latin.box = latin.box.Union(sum.box);
  lines.push_back(latin);
  std::string label0, label1;
  for (char32_t c : labels[0]) AppendUtf8(label0, c);
  for (char32_t c : labels[1]) AppendUtf8(label1, c);
  PageContent page = Page(lines);
  std::vector<Block> blocks = LayoutPage(page, AnalyzeStyle({page}));
  ASSERT_EQ(blocks.size(), 1u);
  ASSERT_EQ(blocks[0].type, BlockType::kTable);
  EXPECT_EQ(blocks[0].content.substr(0, blocks[0].content.find("</tr>") + 5),
            "<table><tr><td>" + label0 + "</td><td>1,200</td></tr>");
  EXPECT_NE(blocks[0].content.find("<tr><td>" + label1 + "</td><td>340</td></tr>"), std::string::npos);
  EXPECT_NE(blocks[0].content.find("<tr><td>Sum</td><td>9,218</td></tr>"), std::string::npos)
      << blocks[0].content;
}

TEST(TextLayoutTest, ATableInASidebarBesideTheTextIsATable) {
  // A report's text (x 72..372) and, beside it, a sidebar of key data (labels at 430, figures at 515)
  // whose rows share baselines with the text's lines.
  std::vector<TextLine> lines;
  for (int k = 0; k < 10; ++k) {
    lines.push_back(Line("Revenue grew in every segment while costs fell in line " + std::to_string(k) + ".",
                         72, 100 + 12.0 * k));
  }
  lines.push_back(Line("Key data", 430, 100, 8, true));
  const char* labels[] = {"Market cap", "Shares (m)", "Free float", "Range"};
  const char* figures[] = {"4,210", "110.2", "78%", "29-41"};
  for (int r = 0; r < 4; ++r) {
    lines.push_back(Line(labels[r], 430, 112 + 12.0 * r, 8));
    lines.push_back(Line(figures[r], 515, 112 + 12.0 * r, 8));
  }
  PageContent page = Page(lines);
  std::vector<Block> blocks = LayoutPage(page, AnalyzeStyle({page}));
  std::string tables;
  for (const Block& b : blocks) {
    if (b.type == BlockType::kTable) tables += b.content;
  }
  EXPECT_EQ(tables,
            "<table><tr><td>Market cap</td><td>4,210</td></tr><tr><td>Shares (m)</td><td>110.2</td></tr>"
            "<tr><td>Free float</td><td>78%</td></tr><tr><td>Range</td><td>29-41</td></tr></table>");
  // The text stays one paragraph, read before the sidebar.
  ASSERT_FALSE(blocks.empty());
  EXPECT_EQ(blocks[0].content.rfind("Revenue grew in every segment", 0), 0u);
  EXPECT_NE(blocks[0].content.find("in line 9."), std::string::npos);
}

TEST(TextLayoutTest, ShortLinesOfTwoColumnsOnOneBaselineAreNoTableTogether) {
  // Two columns of running text (x 50..290 and 320..560). Between their paragraphs, the left column
  // holds a column of numbers (a chart's tick values, x 60) and the right one a table without rules:
  // on each baseline, a tick value and a row of the table. The table is the right column's alone.
  std::vector<TextLine> lines;
  auto prose = [&](double x, double y) {
    lines.push_back(Line("Running text of a column of the page, set in lines.", x, y));
  };
  for (int k = 0; k < 4; ++k) prose(50, 100 + 12.0 * k), prose(320, 100 + 12.0 * k);
  const char* ticks[] = {"0.8", "0.6", "0.4", "0.2"};
  const char* rows[][3] = {{"Method", "Papers", "Reports"},
                           {"Baseline", "0.458", "0.512"},
                           {"Ours", "0.312", "0.344"},
                           {"Ours + OCR", "0.301", "0.329"}};
  for (int r = 0; r < 4; ++r) {
    const double y = 160 + 12.0 * r;
    lines.push_back(Line(ticks[r], 60, y));
    lines.push_back(Line(rows[r][0], 320, y));
    lines.push_back(Line(rows[r][1], 430, y));
    lines.push_back(Line(rows[r][2], 490, y));
  }
  for (int k = 0; k < 4; ++k) prose(50, 220 + 12.0 * k), prose(320, 220 + 12.0 * k);
  PageContent page = Page(lines);
  std::string tables;
  for (const Block& b : LayoutPage(page, AnalyzeStyle({page}))) {
    if (b.type == BlockType::kTable) tables += b.content;
  }
  EXPECT_EQ(
      tables,
      "<table><tr><td>Method</td><td>Papers</td><td>Reports</td></tr><tr><td>Baseline</td><td>0.458</td>"
      "<td>0.512</td></tr><tr><td>Ours</td><td>0.312</td><td>0.344</td></tr><tr><td>Ours + OCR</td>"
      "<td>0.301</td><td>0.329</td></tr></table>");
}

TEST(TextLayoutTest, AParagraphsLastLinesBesideAChartsTickValuesAreNoTable) {
  // The top of a page: the left column's paragraph ends in five lines (x 50..290); level with them at the
  // top of the right column, a chart's tick values (x 330), its x axis's values under them and its
  // caption under those. No other text near: the paragraph's own lines are the left side's running text.
  std::vector<TextLine> lines;
  const char* ticks[] = {"80", "60", "40", "20", "0"};
  for (int k = 0; k < 5; ++k) {
    const double y = 60 + 12.0 * k;
    lines.push_back(
        Line(k < 4 ? "Running text of a column of the page, in lines set." : "And it ends.", 50, y));
    lines.push_back(Line(ticks[k], 330, y));
  }
  lines.push_back(Line("0   10   20   30   40   50", 340, 122));
  lines.push_back(Line("Fig. 1: A caption under the chart, as long as a line.", 320, 140));
  PageContent page = Page(lines);
  for (const Block& b : LayoutPage(page, AnalyzeStyle({page}))) {
    EXPECT_NE(b.type, BlockType::kTable) << b.content;
  }
}

TEST(TextLayoutTest, RunningHeadersRepeatAcrossPages) {
  std::vector<PageContent> pages;
  for (int i = 1; i <= 3; ++i) {
    pages.push_back(Page({Line("Journal of Tests", 50, 20, 9),
                          Line("Body text of page " + std::to_string(i) + " with more words", 50, 300),
                          Line(std::to_string(i), 300, 770, 9)}));
  }
  DocumentStyle style = AnalyzeStyle(pages);
  EXPECT_DOUBLE_EQ(style.body_size, 10);
  EXPECT_EQ(style.running_keys.count("T:journaloftests"), 1u);
  std::vector<Block> blocks = LayoutPage(pages[1], style);
  ASSERT_EQ(blocks.size(), 1u);
  EXPECT_EQ(blocks[0].content, "Body text of page 2 with more words");
}

TEST(TextLayoutTest, AnExponentReachingUpToTheLineOverItSplitsNoParagraph) {
  // Lines of a paragraph at a 12-point pitch; the third holds "e" raised to a power whose glyph's box
  // (its font's ascent) reaches over the second line's bottom. A formula in the line: its glyphs in a
  // math font, as TeX sets them.
  std::vector<TextLine> lines;
  const char* words[] = {"The decay of the signal is fast in every run we made and",
                         "it follows the law we derived in the section before this one",
                         "of the form e while the noise stays flat at every step of it",
                         "so that the estimate holds for all of the samples we took."};
  for (int k = 0; k < 4; ++k) {
    std::vector<TextChar> glyphs = testing::Glyphs(words[k], 72, 100 + 12.0 * k, 10, false);
    if (k == 2) {
      glyphs[12].math = true;  // "e"
      TextChar power = testing::Glyph('x', glyphs[12].box.x1, 120, 7);
      power.box.y0 = 106;  // (the line over it ends at 114.5)
      glyphs.insert(glyphs.begin() + 13, power);
    }
    lines.push_back(testing::LineOf(glyphs));
    lines.back().font_size = 10;
  }
  PageContent page = Page(lines);
  std::vector<Block> blocks = LayoutPage(page, AnalyzeStyle({page}));
  ASSERT_EQ(blocks.size(), 1U);
  EXPECT_NE(blocks[0].content.find("of the form $e^x$ while"), std::string::npos)
      << "[" << blocks[0].content << "]";
}

TEST(TextLayoutTest, TwoColumnsReadLeftThenRight) {
  std::vector<TextLine> lines = {Line("Big Title Across", 50, 50, 20, true)};
  // Left column x 50..250, right column x 320..520; lines at the same heights in both.
  for (int i = 0; i < 6; ++i) {
    double y = 100 + 12.0 * i;
    lines.push_back(Line("left column line number " + std::to_string(i), 50, y));
    lines.push_back(Line("Right column line numbr " + std::to_string(i), 320, y));
  }
  PageContent page = Page(lines);
  DocumentStyle style = AnalyzeStyle({page});
  std::vector<Block> blocks = LayoutPage(page, style);
  ASSERT_EQ(blocks.size(), 3u);
  EXPECT_EQ(blocks[0].type, BlockType::kTitle);
  EXPECT_EQ(blocks[0].title_level, 1);
  EXPECT_EQ(blocks[1].type, BlockType::kText);
  EXPECT_EQ(blocks[1].content.substr(0, 26), "left column line number 0 ");
  EXPECT_NE(blocks[1].content.find("left column line number 5"), std::string::npos);
  EXPECT_EQ(blocks[1].content.find("Right"), std::string::npos);
  EXPECT_EQ(blocks[2].content.substr(0, 25), "Right column line numbr 0");
  // Boxes in the 0-1000 frame of a 600 x 800 page.
  EXPECT_EQ(blocks[1].bbox.x0, 83);   // 50 / 600
  EXPECT_EQ(blocks[1].bbox.y0, 125);  // 100 / 800
}

TEST(TextLayoutTest, HeadingsListsAndParagraphs) {
  std::vector<TextLine> lines = {Line("Chapter One", 50, 50, 18, true),
                                 Line("Section", 50, 90, 14, true),
                                 Line("Bold Lead In", 50, 120, 10, true),
                                 Line("This is a para-", 50, 140),
                                 Line("graph of text.", 50, 152),
                                 Line("- first item", 60, 175),
                                 Line("- second item that wraps", 60, 188),
                                 Line("onto a second line", 69, 200),
                                 Line("1. numbered", 60, 225),
                                 Line("A closing paragraph here.", 50, 260)};
  // More body text so that 10 pt is the body size.
  lines.push_back(Line("Body body body body body body body body body body body body", 50, 300));
  PageContent page = Page(lines);
  std::vector<Block> blocks = LayoutPage(page, AnalyzeStyle({page}));
  ASSERT_EQ(blocks.size(), 8u);
  EXPECT_EQ(blocks[0].title_level, 1);
  EXPECT_EQ(blocks[1].title_level, 2);
  EXPECT_EQ(blocks[2].type, BlockType::kTitle);
  EXPECT_EQ(blocks[2].title_level, 3);
  EXPECT_EQ(blocks[3].content, "This is a paragraph of text.");
  EXPECT_EQ(blocks[4].type, BlockType::kList);
  EXPECT_EQ(blocks[4].content, "- first item\n- second item that wraps onto a second line");
  EXPECT_EQ(blocks[5].type, BlockType::kList);
  EXPECT_EQ(blocks[5].content, "1. numbered");
  EXPECT_EQ(blocks[6].content, "A closing paragraph here.");
}

TEST(TextLayoutTest, TheBodySizeIsThatOfRunningTextNotOfATablesCells) {
  // A page mostly of a table in 8 pt (more characters than anything else) under three lines of text in
  // 10 pt: the text is the body, not a heading; the 12 pt title is the heading.
  std::vector<TextLine> lines = {Line("Results", 50, 40, 12, true),
                                 Line("The programs below were funded in fiscal year 2020; each one", 50, 70),
                                 Line("is run by the agency named beside it in the table, and the", 50, 82),
                                 Line("amounts are obligations reported by each of the agencies.", 50, 94)};
  auto table = [&](double size) {
    for (int r = 0; r < 12; ++r) {
      const double y = 120 + 11 * r;
      lines.push_back(Line("Program number " + std::to_string(r), 50, y, size));
      for (int c = 0; c < 5; ++c) {
        lines.push_back(Line(std::to_string(1000 + 37 * r + c), 200 + 60 * c, y, size));
      }
    }
  };
  table(8);
  PageContent page = Page(lines);
  DocumentStyle style = AnalyzeStyle({page});
  EXPECT_EQ(style.body_size, 10);
  std::vector<Block> blocks = LayoutPage(page, style);
  ASSERT_GE(blocks.size(), 2u);
  EXPECT_EQ(blocks[0].type, BlockType::kTitle);
  EXPECT_EQ(blocks[0].content, "Results");
  EXPECT_EQ(blocks[1].type, BlockType::kText);
  EXPECT_EQ(blocks[1].content.substr(0, 12), "The programs");
  // A statement: its table in 9 pt, a unit line in parentheses set larger over it, one note in 8 pt under it.
  // The note alone does not set the body; the unit line is no heading.
  lines = {Line("(In thousands, except share data)", 50, 90, 10)};
  table(9);
  lines.push_back(Line("The accompanying notes are an integral part of these statements.", 50, 270, 8));
  page = Page(lines);
  style = AnalyzeStyle({page});
  EXPECT_EQ(style.body_size, 9);
  blocks = LayoutPage(page, style);
  ASSERT_GE(blocks.size(), 1u);
  EXPECT_EQ(blocks[0].type, BlockType::kText) << blocks[0].content;
}

TEST(TextLayoutTest, ALongSentenceOrANoteInParenthesesSetLargerIsNoHeading) {
  std::vector<TextLine> lines = {
      Line("Summary", 50, 40, 12, true),
      Line("Employment fell in every region in 2020, with the largest losses in services.", 50, 70, 12),
      Line("Body text body text body text body text body text body text body text.", 50, 100),
      Line("Body text body text body text body text body text body text body text.", 50, 112),
      Line("Body text body text body text body text body text body text body text.", 50, 124),
      Line("(Unaudited)", 50, 160, 12),
      Line("Body text body text body text body text body text.", 50, 190),
      Line("[In thousands]", 50, 220, 12),
      Line("Body text body text body text body text body text.", 50, 250)};
  PageContent page = Page(lines);
  std::vector<Block> blocks = LayoutPage(page, AnalyzeStyle({page}));
  ASSERT_EQ(blocks.size(), 7u);
  EXPECT_EQ(blocks[0].type, BlockType::kTitle);
  EXPECT_EQ(blocks[1].type, BlockType::kText);
  EXPECT_EQ(blocks[1].content.substr(0, 10), "Employment");
  // A line in parentheses or brackets set larger is a note, no heading either.
  EXPECT_EQ(blocks[3].type, BlockType::kText) << blocks[3].content;
  EXPECT_EQ(blocks[5].type, BlockType::kText) << blocks[5].content;
}

TEST(TextLayoutTest, AChineseLineEndingShortEndsItsParagraph) {
  // "一、概述" (a heading in the body's face) over a paragraph indented two ems that fills the measure, and a
  // line ending under two characters short inside the paragraph (the measure is not always filled to the
  // last em).
  std::vector<TextLine> lines = {
      Line("\u4e00\u3001\u6982\u8ff0", 50, 100),
      Line("\u62a5\u544a\u671f\u5185\uff0c\u516c\u53f8\u5b9e\u73b0\u8425\u4e1a\u6536\u5165\u589e\u957f", 70,
           113),
      Line("\u516c\u53f8\u6301\u7eed\u52a0\u5927\u7814\u53d1\u6295\u5165\uff0c\u4f18\u5316\u4ea7\u54c1", 50,
           126),
      Line("\u7ed3\u6784\u3002", 50, 139)};
  PageContent page = Page(lines);
  std::vector<Block> blocks = LayoutPage(page, AnalyzeStyle({page}));
  ASSERT_EQ(blocks.size(), 2u);
  EXPECT_EQ(blocks[0].content, "\u4e00\u3001\u6982\u8ff0");
  EXPECT_EQ(blocks[1].content.substr(0, 6), "\u62a5\u544a");
  EXPECT_NE(blocks[1].content.find("\u54c1\u7ed3\u6784"), std::string::npos);
}

// Two columns of `rows` lines each from y `top`, 60..290 and 310..540: a gutter 20 points wide around x 300.
void AddTwoColumns(std::vector<TextLine>& lines, double top, int rows) {
  for (int k = 0; k < rows; ++k) {
    lines.push_back(
        Line("Left column line " + std::to_string(k) + " of the body text, set wide.", 60, top + 12 * k));
    lines.push_back(
        Line("Right column line " + std::to_string(k) + " of the body text, set wide", 310, top + 12 * k));
  }
}

// The blocks of a page of `lines` in reading order, each its first `chars` characters and "|", titles
// marked "# ".
std::string BlockOrder(const std::vector<TextLine>& lines, size_t chars) {
  PageContent page = Page(lines);
  std::string order;
  for (const Block& b : LayoutPage(page, AnalyzeStyle({page}))) {
    order += (b.type == BlockType::kTitle ? "# " : "") + b.content.substr(0, chars) + "|";
  }
  return order;
}

TEST(TextLayoutTest, ABlankLineAcrossTwoColumnsOfTextDoesNotEndThem) {
  // Authors centred over the gutter and an abstract across the page (no gutter runs down the whole page),
  // then two columns (60..285 and 310..535) whose paragraphs end level, so that a blank line runs across
  // both, and a paragraph of three lines under it in each. The left column is read whole, then the right.
  std::vector<TextLine> head = {Line("A. Author and B. Writer", 243, 120)};
  for (int k = 0; k < 4; ++k) {
    std::string text =
        "Abstract of the paper, line " + std::to_string(k) + ", set across the width of the page";
    head.push_back(Line(text + std::string(96 - text.size(), '.'), 60, 150 + 12 * k));
  }
  std::vector<TextLine> lines = head;
  for (int k = 0; k < 11; ++k) {
    const std::string part = k < 8 ? "first" : "other";
    const double y = k < 8 ? 210 + 12 * k : 210 + 12 * k + 14;
    lines.push_back(
        Line("Left column, " + part + " part, line " + std::to_string(k % 8) + " of body text.", 60, y));
    lines.push_back(
        Line("Right column, " + part + " part, line " + std::to_string(k % 8) + " of body tex", 310, y));
  }
  EXPECT_EQ(BlockOrder(lines, 19),
            "A. Author and B. Wr|Abstract of the pap|Left column, first |Left column, other |"
            "Right column, first|Right column, other|");
  // Two headings level over the columns, a blank line over each column's text: each heads its column.
  std::vector<TextLine> headed = head;
  headed.push_back(Line("1. Introduction", 60, 210, 10, true));
  headed.push_back(Line("2. Limitations", 310, 210, 10, true));
  for (int k = 0; k < 6; ++k) {
    headed.push_back(
        Line("Left column, line " + std::to_string(k) + " of its body text here.", 60, 235 + 12 * k));
    headed.push_back(
        Line("Right column, line " + std::to_string(k) + " of its body text too", 310, 235 + 12 * k));
  }
  EXPECT_EQ(BlockOrder(headed, 14),
            "A. Author and |Abstract of th|# 1. Introductio|Left column, l|"
            "# 2. Limitations|Right column, |");
  // Pictures over short captions in a row, twice, under the abstract, are panels read row by row.
  std::vector<TextLine> panels = head;
  for (int row = 0; row < 2; ++row) {
    const double y = 305 + 120.0 * row;
    panels.push_back(Line("(" + std::string(1, static_cast<char>('a' + 2 * row)) + ") left panel", 120, y));
    panels.push_back(Line("(" + std::string(1, static_cast<char>('b' + 2 * row)) + ") right panel", 370, y));
  }
  PageContent page = Page(panels);
  page.images = {{60, 210, 285, 300}, {310, 210, 535, 300}, {60, 330, 285, 420}, {310, 330, 535, 420}};
  std::string order;
  for (const Block& b : LayoutPage(page, AnalyzeStyle({page}))) order += b.content.substr(0, 3) + "|";
  EXPECT_TRUE(order.find("(a)") < order.find("(b)") && order.find("(b)") < order.find("(c)")) << order;
}

TEST(TextLayoutTest, AnAuthorBlockOverTheGutterIsReadAuthorByAuthorAndTheColumnsBelowItColumnByColumn) {
  // Three authors (11 pt names centred over 9 pt affiliations; the middle one centred over the gutter of
  // the two columns below), then two columns of body text: nothing runs down the whole page clear.
  std::vector<TextLine> lines = {Line("A Title Set Large", 200, 40, 16, true)};
  const double centres[] = {150, 300, 450};
  for (int a = 0; a < 3; ++a) {
    const std::string name = "Author " + std::string(1, static_cast<char>('A' + a));
    const std::string place = "University " + std::to_string(a + 1) + " Town";
    lines.push_back(Line(name, centres[a] - 5.5 * 0.5 * name.size(), 80, 11));
    lines.push_back(Line(place, centres[a] - 4.5 * 0.5 * place.size(), 93, 9));
  }
  AddTwoColumns(lines, 130, 8);
  const std::string order = BlockOrder(lines, 17);
  EXPECT_EQ(order,
            "# A Title Set Large|Author A|University 1 Town|Author B|University 2 Town|Author C|"
            "University 3 Town|Left column line |Right column line|")
      << order;
}

TEST(TextLayoutTest, AuthorBlocksSideBySideAreReadBlockByBlockAndTheirNamesAreNoHeadings) {
  // IEEE's author blocks: three or four authors side by side under a title, each a name (11 pt) centred
  // over four lines of affiliation (10 pt) 12 points apart, their boxes overlapping a little as a font's
  // do, the blocks' rows level with each other, two columns of a page under them past a blank strip. Of
  // three to a row, the middle block is centred over the columns' gutter (its lines cross it, and so few
  // others do that it is one); of four, two stand over each column; a fourth author after three stands
  // alone on a row of its own. The third author's first two lines are a little shorter than the name
  // (their left edges under an em apart); three of the fourth's are as wide. The title is centred over
  // the page a little over the names (and the middle one).
  const std::string places[4][4] = {
      {"Dept. of Computing", "Univ. of Somewhere", "City, Country", "a@somewhere.edu"},
      {"School of Design", "Institute of Art", "Town, Country", "b@somewhere.org"},
      {"Data Lab", "Lab Campus", "City, Country", "c@elsewhere.edu"},
      {"Dept. of Physics", "Univ. of Nowhere", "Austin, Texas US", "d@elsewhere.org"}};
  // (ACM's: the columns' first lines under an author's last one by less than a line: close.)
  for (const auto& [authors, per_row, close] :
       {std::tuple{3, 3, false}, std::tuple{4, 4, false}, std::tuple{4, 3, false}, std::tuple{3, 3, true}}) {
    std::vector<TextLine> lines = {Line("Reading Author Blocks", 216, 60, 16)};  // centred on x 300
    std::string expected = "# Reading Autho|";
    for (int a = 0; a < authors; ++a) {
      const double centre = per_row == 3 ? 150 + 150 * (a % 3) : 120 + 120 * a;
      const double top = 80 + 70 * (a / per_row);
      const std::string name = "Author " + std::string(1, static_cast<char>('A' + a)) + " Name";
      lines.push_back(Line(name, centre - 5.5 * 0.5 * name.size(), top, 11));
      const std::string n = " " + std::to_string(a + 1);
      for (int k = 0; k < 4; ++k) {
        const std::string place = places[a][k] + n;
        lines.push_back(Line(place, centre - 5 * 0.5 * place.size(), top + 9 + 12 * k, 10));
      }
      expected += name + "|" + (places[a][0] + n + " " + places[a][1]).substr(0, 13) + "|";
    }
    expected += "Left column l|Right column |";
    AddTwoColumns(lines, close ? lines.back().box.y1 + 9 : 240, 40);
    EXPECT_EQ(BlockOrder(lines, 13), expected) << authors << " authors, " << per_row << " to a row";
    PageContent page = Page(lines);
    for (const Block& b : LayoutPage(page, AnalyzeStyle({page}))) {  // each affiliation whole, to its address
      if (b.content.find("Country") != std::string::npos) {
        EXPECT_NE(b.content.find('@'), std::string::npos) << b.content;
      }
    }
  }
}

TEST(TextLayoutTest, ALineWithAnEmailAddressIsNoHeading) {
  // An author's address and affiliation set at 10 pt over a body of 9 pt: larger than the body, short,
  // and no heading; the same line without the address is one.
  for (const bool email : {true, false}) {
    const std::string address = email ? "costa@example.org Silva Institute" : "Silva Institute";
    std::vector<TextLine> lines = {Line(address, 100, 100, 10)};
    for (int k = 0; k < 6; ++k)
      lines.push_back(Line("Body text of the page set in nine point type, line.", 100, 130 + 11 * k, 9));
    const std::string order = BlockOrder(lines, 12);
    EXPECT_EQ(order.starts_with("# "), !email) << order;
  }
}

TEST(TextLayoutTest, ParagraphsOfTwoColumnsEndingLevelOverABlankStripAreNoBlocksOverThem) {
  // Two columns of justified paragraphs (lines flush at both edges, the last one short) that both end
  // level, a blank strip across the page under them, then more of both columns: each column whole, left
  // first, not the two top paragraphs first. So too under two headings of a line each, centred over the
  // columns' tops, level, set apart over their text.
  for (bool headings : {false, true}) {
    std::vector<TextLine> lines = {Line("Two Columns Of Paragraphs", 200, 20, 16)};
    if (headings) {
      lines.push_back(Line("Left Heading", 155, 52, 10));
      lines.push_back(Line("Right Heading", 402, 52, 10));
    }
    auto column = [&](const std::string& side, double x, double y) {
      for (int k = 0; k < 6; ++k) {
        lines.push_back(Line(side + " justified line of a paragraph, set full.", x, y + 12 * k));
      }
      lines.push_back(Line(side + " ends here.", x, y + 72));
    };
    for (double y : {80.0, 200.0, 320.0, 440.0}) {
      column("Left", 60, y);
      column("Right", 310, y);
    }
    PageContent page = Page(lines);
    std::vector<Block> blocks = LayoutPage(page, AnalyzeStyle({page}));
    std::string order;
    for (const Block& b : blocks) order += b.content.substr(0, 5);
    EXPECT_EQ(order, headings ? "Two CLeft Left Left Left Left RightRightRightRightRight"
                              : "Two CLeft Left Left Left RightRightRightRight")
        << order;
  }
}

TEST(TextLayoutTest, OptionsAndWhatTheyDoAreReadRowByRowAndSoIsCode) {
  // Between paragraphs across the page, options and their descriptions set apart (keys flush left,
  // values flush left at one x): each option with what it does, not all options then all descriptions.
  auto paragraphs = [](double y, int n) {
    std::vector<TextLine> lines;
    for (int k = 0; k < n; ++k) {
      lines.push_back(
          Line("A paragraph of text that runs across the whole page, line " + std::to_string(k) + ".", 50,
               y + 12 * k));
    }
    return lines;
  };
  std::vector<TextLine> lines = paragraphs(26, 6);
  const char* options[][2] = {{"-c, --check", "checks the syntax only"},
                              {"-o, --output=FILE", "output file"},
                              {"-n, --name=NAME", "array name"},
                              {"-h, --help", "display this help and exit"}};
  for (int k = 0; k < 4; ++k) {
    lines.push_back(Line(options[k][0], 60, 112 + 12 * k));
    lines.push_back(Line(options[k][1], 200, 112 + 12 * k));
  }
  for (TextLine& l : paragraphs(182, 3)) lines.push_back(std::move(l));
  PageContent page = Page(lines);
  std::string text;
  for (const Block& b : LayoutPage(page, AnalyzeStyle({page}))) text += b.content + "|";
  EXPECT_NE(text.find("|-c, --check|checks the syntax only|-o, --output=FILE|output file|"),
            std::string::npos)
      << text;
  // A listing whose lines are cut at wide gaps, in a monospaced font, under a paragraph.
  lines = paragraphs(170, 2);
  const char* code[][2] = {{"x", "INTEGER,"}, {"y", "CHOICE {"}, {"z", "BOOLEAN }"}};
  for (int k = 0; k < 3; ++k) {
    for (int c = 0; c < 2; ++c) {
      lines.push_back(InFont(Line(code[k][c], 60 + 60 * c, 200 + 12 * k), "Courier"));
      lines.back().monospace = true;
    }
  }
  page = Page(lines);
  text.clear();
  for (const Block& b : LayoutPage(page, AnalyzeStyle({page}))) text += b.content + "|";
  EXPECT_NE(text.find("x|INTEGER,|y|CHOICE {|z|BOOLEAN }|"), std::string::npos) << text;
}

TEST(TextLayoutTest, ACaptionsNumberFollowsItsLabel) {
  EXPECT_EQ(CaptionNumber("Table 3: Scores on the held-out sets.").first, "3:");
  EXPECT_EQ(CaptionNumber("Fig. 2: Mean at each step.").first, "2:");
  EXPECT_EQ(CaptionNumber("Fig. 4.1. Mean at each step.").first, "4.1.");
  EXPECT_EQ(CaptionNumber("TABLE IV").first, "IV");
  EXPECT_EQ(CaptionNumber("TABLE IV").second, std::string::npos);
  EXPECT_EQ(CaptionNumber("Figure").first, "");
}

TEST(TextLayoutTest, ACaptionSetRightUnderAParagraphStartsABlockOfItsOwn) {
  // A float set inside a paragraph: the line before its caption ends mid-sentence, as close as the
  // paragraph's own lines. "Table 3 shows" at the start of a line of running text is no caption.
  PageContent page = Page({Line("The results of every run are in the table below, which lists", 50, 100),
                           Line("the scores of each method on the held-out sets and", 50, 112),
                           Line("Table 3: Scores on the held-out sets.", 50, 124),
                           Line("The scores of each method, as the numbers in", 50, 160),
                           Line("Table 3 shows, are lower on the reports than on papers.", 50, 172)});
  std::vector<Block> blocks = LayoutPage(page, AnalyzeStyle({page}));
  ASSERT_EQ(blocks.size(), 3u);
  EXPECT_EQ(blocks[0].content,
            "The results of every run are in the table below, which lists the scores of each method on the "
            "held-out sets and");
  EXPECT_EQ(blocks[1].content, "Table 3: Scores on the held-out sets.");
  EXPECT_EQ(
      blocks[2].content,
      "The scores of each method, as the numbers in Table 3 shows, are lower on the reports than on papers.");
}

// Four lines of a report's running text from y 80.
void AddRunningText(std::vector<TextLine>& lines) {
  for (int i = 0; i < 4; ++i)
    lines.push_back(Line("Running text of the report that goes on for a while, line " + std::to_string(i), 50,
                         80 + 12.0 * i));
}

// A table of regions and two years' figures without rules: a header and three rows from `top`.
void AddRegionTable(std::vector<TextLine>& lines, double top, double leading = 14) {
  const char* rows[4][3] = {{"Region", "2022", "2023"},
                            {"North", "1,204", "1,310"},
                            {"South", "2,011", "2,150"},
                            {"West", "988", "1,002"}};
  for (int r = 0; r < 4; ++r) {
    for (int c = 0; c < 3; ++c) lines.push_back(Line(rows[r][c], 50 + 120.0 * c, top + leading * r));
  }
}

// The page of running text, `caption` (at y 140) and the region table under it (y 160), laid out.
std::vector<Block> CaptionOverRegionTable(const TextLine& caption) {
  std::vector<TextLine> lines;
  AddRunningText(lines);
  lines.push_back(caption);
  AddRegionTable(lines, 160);
  PageContent page = Page(lines);
  return LayoutPage(page, AnalyzeStyle({page}));
}

TEST(TextLayoutTest, ACaptionSetBoldLikeAHeadingOverItsTableIsTheTablesCaption) {
  std::vector<Block> blocks = CaptionOverRegionTable(Line("Table 4: Spending by region", 50, 140, 10, true));
  ASSERT_EQ(blocks.size(), 3u);
  EXPECT_EQ(blocks[1].type, BlockType::kTableCaption);
  EXPECT_EQ(blocks[1].title_level, 0);
  EXPECT_EQ(blocks[1].content, "Table 4: Spending by region");
  EXPECT_EQ(blocks[2].type, BlockType::kTable);
}

TEST(TextLayoutTest, ACaptionsLoneLabelTakesTheTextUnderItAsItsOwn) {
  // A journal's "Table 2" in bold with its description on the next line in the body's face, and IEEE's
  // "TABLE IV" over its description in capitals: each one caption over its table, in that order.
  for (const char* label : {"Table 2", "TABLE IV"}) {
    std::vector<TextLine> lines;
    for (int i = 0; i < 4; ++i)
      lines.push_back(Line("Running text of the paper that goes on for a while, line " + std::to_string(i),
                           50, 80 + 12.0 * i));
    lines.push_back(Line(label, 50, 140, 10, true));
    lines.push_back(Line("Pages per second by schedule and budget.", 50, 152));
    const char* rows[4][3] = {{"Schedule", "4 GB", "8 GB"},
                              {"Static", "0.41", "0.88"},
                              {"Continuous", "0.93", "1.71"},
                              {"Ours", "1.12", "2.05"}};
    for (int r = 0; r < 4; ++r) {
      for (int c = 0; c < 3; ++c) lines.push_back(Line(rows[r][c], 50 + 120.0 * c, 172 + 14.0 * r));
    }
    PageContent page = Page(lines);
    std::vector<Block> blocks = LayoutPage(page, AnalyzeStyle({page}));
    ASSERT_EQ(blocks.size(), 3u) << label;
    EXPECT_EQ(blocks[1].type, BlockType::kTableCaption);
    EXPECT_EQ(blocks[1].content, std::string(label) + " Pages per second by schedule and budget.");
    EXPECT_EQ(blocks[2].type, BlockType::kTable);
  }
}

TEST(TextLayoutTest, TextBetweenACaptionAndItsTableIsTheCaptions) {
  // A table's unit line set under its title, over the table: the caption's, written before the table.
  // The same line under a caption with the running text after it, no table right under: the text's.
  for (bool table_below : {true, false}) {
    std::vector<TextLine> lines;
    AddRunningText(lines);
    lines.push_back(Line("Table 4: Spending by region", 50, 140, 10, true));
    lines.push_back(Line("(in thousands of dollars)", 50, 152));
    const double top = table_below ? 172 : 240;
    AddRegionTable(lines, top);
    PageContent page = Page(lines);
    std::vector<Block> blocks = LayoutPage(page, AnalyzeStyle({page}));
    ASSERT_EQ(blocks.size(), table_below ? 3u : 4u);
    EXPECT_EQ(blocks[1].type, BlockType::kTableCaption);
    EXPECT_EQ(blocks[1].content, table_below ? "Table 4: Spending by region (in thousands of dollars)"
                                             : "Table 4: Spending by region");
  }
}

TEST(TextLayoutTest, RomanNumbersLabelCaptions) {
  BlockType body;
  EXPECT_TRUE(StartsCaption("TABLE IV", &body));
  EXPECT_EQ(body, BlockType::kTable);
  EXPECT_TRUE(StartsCaption("TABLE II. Results", &body));
  EXPECT_TRUE(StartsCaption("Fig. XI: A plot", &body));
  EXPECT_EQ(body, BlockType::kImage);
  EXPECT_FALSE(StartsCaption("TABLE IVY", &body));
  // Chinese and Japanese labels, with a space before the number or none.
  EXPECT_TRUE(StartsCaption("\u8868 2 \u5404\u65b9\u6cd5\u7684\u7ed3\u679c", &body));  // "表 2 各方法的结果"
  EXPECT_EQ(body, BlockType::kTable);
  EXPECT_TRUE(StartsCaption("\u56fe3 \u8c03\u5ea6", &body));  // "图3 调度"
  EXPECT_EQ(body, BlockType::kImage);
  EXPECT_TRUE(StartsCaption("\u56f3 1", &body));                       // "図 1"
  EXPECT_FALSE(StartsCaption("\u8868\u660e", &body));                  // "表明" (shows), no number
  EXPECT_TRUE(StartsCaption("[\ud45c 1] \uac10\uc5fc\ubcd1", &body));  // Korean "[표 1] 감염병"
  EXPECT_EQ(body, BlockType::kTable);
  EXPECT_TRUE(StartsCaption("\uadf8\ub9bc 2", &body));  // "그림 2"
  EXPECT_EQ(body, BlockType::kImage);
  EXPECT_FALSE(StartsCaption("Table Lamps", &body));
}

TEST(TextLayoutTest, NotesUnderAFloatAreItsFootnotes) {
  // Under a table: a source line and a note, then running text. The same lines with no table above them
  // (the table moved under them) are text.
  for (bool under : {true, false}) {
    const double notes = under ? 200 : 100, table = under ? 140 : 160;
    std::vector<TextLine> lines = {
        Line("Source: Bureau of Labor Statistics, current survey.", 50, notes),
        Line("Note: Figures may not add to totals because of rounding.", 50, notes + 12)};
    AddRegionTable(lines, table, 12);
    lines.push_back(
        Line("Wages rose in every region, the most in the South, where they rose by a tenth.", 50, 260));
    PageContent page = Page(lines);
    std::vector<Block> blocks = LayoutPage(page, AnalyzeStyle({page}));
    std::string types;
    for (const Block& b : blocks) types += std::string(BlockTypeName(b.type)) + ",";
    EXPECT_EQ(types, under ? "table,table_footnote,table_footnote,text," : "text,text,table,text,") << types;
    if (under) {
      ASSERT_EQ(blocks.size(), 4u);
      EXPECT_EQ(blocks[1].parent, 0);
      EXPECT_EQ(blocks[2].content, "Note: Figures may not add to totals because of rounding.");
    }
  }
  EXPECT_TRUE(StartsNoteLabel("Data sources: the survey"));
  EXPECT_TRUE(StartsNoteLabel("NOTES. Values are means"));
  EXPECT_TRUE(StartsNoteLabel("\u8d44\u6599\u6765\u6e90\uff1aWind"));  // 资料来源：Wind
  EXPECT_TRUE(StartsNoteLabel("\u6ce8\uff1a\u5355\u4f4d"));            // 注：单位
  EXPECT_FALSE(StartsNoteLabel("Sources of error are discussed in Section 4."));
  EXPECT_FALSE(StartsNoteLabel("source. The survey"));  // a line of running text after "from the same"
  EXPECT_FALSE(StartsNoteLabel("\u6ce8\u610f"));        // 注意 (take care)
}

TEST(TextLayoutTest, AChineseReportsChartOrTableLabelCaptionsTheFloatItIsSetWith) {
  // "图表 1：..." over a table (Chinese research reports label charts and tables alike): the table's.
  std::vector<Block> blocks =
      CaptionOverRegionTable(WideLine(U"\u56fe\u8868 1\uff1a\u4e3b\u8981\u8d22\u52a1\u6570\u636e", 50, 140));
  ASSERT_EQ(blocks.size(), 3u);
  EXPECT_EQ(blocks[1].type, BlockType::kTableCaption);
  EXPECT_EQ(blocks[1].parent, 2);
  BlockType body;
  EXPECT_TRUE(StartsCaption("\u56fe\u88683\uff1a\u8425\u6536", &body));  // 图表3：营收
  EXPECT_FALSE(StartsCaption("\u56fe\u8868\u663e\u793a", &body));        // 图表显示 (the chart shows)
}

TEST(TextLayoutTest, TextThatReadsOnAfterALabelsNumberIsNoCaption) {
  BlockType body;
  EXPECT_FALSE(StartsCaption("Table 3 shows the scores of each method.", &body));
  EXPECT_FALSE(StartsCaption("Figures 2 and 3", &body));
  EXPECT_FALSE(StartsCaption("Figure 2 and 3 plot the same runs.", &body));
  EXPECT_FALSE(StartsCaption("표 3에서 보듯이", &body));                // Korean "표 3에서 보듯이"
  EXPECT_TRUE(StartsCaption("Fig. 1 a The setup, b the plot", &body));  // panel letters
  EXPECT_TRUE(StartsCaption("Table 2 continued", &body));
  EXPECT_TRUE(StartsCaption("Table 2 Pages per second", &body));
  EXPECT_TRUE(StartsCaption("표 3. 결과", &body));  // "표 3. 결과"

  // A paragraph naming the table at its start, on the page of that table: the text's.
  std::vector<TextLine> lines = {
      Line("Table 1 shows the spending of each region in the last two years; the", 50, 80),
      Line("South spends the most in both, and more so in the later year.", 50, 92)};
  AddRegionTable(lines, 140);
  PageContent page = Page(lines);
  std::vector<Block> blocks = LayoutPage(page, AnalyzeStyle({page}));
  ASSERT_EQ(blocks.size(), 2u);
  EXPECT_EQ(blocks[0].type, BlockType::kText);
  EXPECT_EQ(blocks[1].type, BlockType::kTable);
}

TEST(TextLayoutTest, AVectorChartTakesItsTickValuesAndTheAxisTitleUnderThem) {
  // A paragraph whose last line, "image.", ends just over a chart of ten bars (y 200..300); tick values
  // left of the bars and under them, the axis title under those: the chart's, in its box.
  std::vector<TextLine> lines;
  for (int i = 0; i < 4; ++i)
    lines.push_back(Line("Running text of the paper that goes on for a while, line " + std::to_string(i), 50,
                         139 + 12.0 * i));
  lines.push_back(Line("image.", 50, 187));
  for (int k = 0; k < 3; ++k) lines.push_back(Line(std::to_string(50 * k), 40, 292 - 50.0 * k, 7));
  for (int k = 0; k < 5; ++k) lines.push_back(Line(std::to_string(1 << k), 66 + 40.0 * k, 305, 7));
  lines.push_back(Line("Pages in flight", 120, 315, 7));
  lines.push_back(
      Line("The text goes on under the chart, far enough below it to be the body's again.", 50, 360));
  PageContent page = Page(lines);
  for (int k = 0; k < 10; ++k) page.drawings.push_back({60.0 + 20 * k, 200, 76.0 + 20 * k, 300});
  std::vector<Block> blocks = LayoutPage(page, AnalyzeStyle({page}));
  ASSERT_EQ(blocks.size(), 3u);
  EXPECT_TRUE(blocks[0].content.ends_with("line 3 image.")) << blocks[0].content;
  EXPECT_EQ(blocks[1].type, BlockType::kImage);
  const Rect figure = FromPageFrame(blocks[1].bbox, page.page);
  EXPECT_LE(figure.x0, 41);
  EXPECT_GE(figure.y1, 321);
  EXPECT_EQ(blocks[2].content, lines.back().text);
}

TEST(TextLayoutTest, AChineseLineIsAsWideAsTwiceItsCharacters) {
  EXPECT_EQ(DisplayWidth("abc"), 3u);
  EXPECT_EQ(DisplayWidth("\u6536\u76d8\u4ef7 12.34"), 12u);  // "收盘价 12.34"
  EXPECT_EQ(DisplayWidth("\ud45c 1"), 4u);                   // Hangul "표 1"
}

TEST(TextLayoutTest, AKeyDataTableInASidebarBesideChineseTextIsATable) {
  // A research report's sidebar: four labels with figures flush right beside them, on the baselines of
  // the main column's Chinese lines (35 characters each: prose, however few its characters).
  const std::u32string prose(35, U'\u516c');
  const std::u32string labels[] = {U"\u6536\u76d8\u4ef7", U"\u603b\u5e02\u503c", U"\u5e02\u76c8\u7387",
                                   U"\u6bcf\u80a1\u6536\u76ca"};
  const char* figures[] = {"12.34", "456.78", "23.5", "0.82"};
  std::vector<TextLine> lines;
  for (int i = 0; i < 8; ++i) lines.push_back(WideLine(prose, 200, 100 + 15.0 * i));
  for (int i = 0; i < 4; ++i) {
    lines.push_back(WideLine(labels[i], 40, 130 + 15.0 * i, 8));
    lines.push_back(
        Line(figures[i], 170 - 4.0 * static_cast<double>(std::string(figures[i]).size()), 130 + 15.0 * i, 8));
  }
  PageContent page = Page(lines);
  int tables = 0;
  for (const Block& b : LayoutPage(page, AnalyzeStyle({page}))) {
    if (b.type != BlockType::kTable) continue;
    ++tables;
    EXPECT_NE(b.content.find("<td>12.34</td>"), std::string::npos) << b.content;
  }
  EXPECT_EQ(tables, 1);
}

TEST(TextLayoutTest, ContentsEntriesEndAtTheirPageNumbers) {
  // A table of contents: each entry a line with a leader and a page number, lines set as close as a
  // paragraph's; one chapter's entry in bold, another's in the sans family of the headings. The entry
  // that wraps is one entry.
  std::vector<TextLine> lines = {Line("Notices . . . . . . . . . . . . vii", 50, 50),
                                 Line("Chapter 1. Securing data . . . . . 1", 50, 62, 10, true),
                                 Line("1.1 Security fundamentals . . . . . 2", 50, 74),
                                 Line("1.2 A longer entry that runs on to", 50, 86),
                                 Line("a second line . . . . . . . . . . 13", 50, 98),
                                 Line("Chapter 2. Roles . . . . . . . . . 17", 50, 110),
                                 Line("Appendix A. Glossary . . . . . . A-1", 50, 122),
                                 Line("Index ........................... 217", 50, 134)};
  for (TextLine& line : lines) line = InFont(line, "Times");
  lines[5] = InFont(lines[5], "Helvetica");
  for (int i = 0; i < 12; ++i) {
    lines.push_back(InFont(
        Line("body text of the page that runs on and on line " + std::to_string(i), 50, 300 + 12.0 * i),
        "Times"));
  }
  PageContent page = Page(lines);
  std::vector<Block> blocks = LayoutPage(page, AnalyzeStyle({page}));
  ASSERT_EQ(blocks.size(), 8u);
  EXPECT_EQ(blocks[0].content, "Notices . . . . . . . . . . . . vii");
  EXPECT_EQ(blocks[1].content, "Chapter 1. Securing data . . . . . 1");
  EXPECT_EQ(blocks[2].content, "1.1 Security fundamentals . . . . . 2");
  EXPECT_EQ(blocks[3].content, "1.2 A longer entry that runs on to a second line . . . . . . . . . . 13");
  EXPECT_EQ(blocks[4].content, "Chapter 2. Roles . . . . . . . . . 17");
  EXPECT_EQ(blocks[5].content, "Appendix A. Glossary . . . . . . A-1");
  EXPECT_EQ(blocks[6].content, "Index ........................... 217");
  // Alone, short, bold or in the headings' family: entries all the same, not headings.
  for (size_t i = 0; i < 7; ++i) EXPECT_EQ(blocks[i].type, BlockType::kText) << blocks[i].content;
}

// Body text in a proportional "Times" at 10 pt from y = `y`, `n` lines, so that the body size and
// family are known.
std::vector<TextLine> Body(double y, int n, double x = 50) {
  std::vector<TextLine> lines;
  for (int i = 0; i < n; ++i) {
    lines.push_back(
        InFont(Line("body text of the page that runs on and on line " + std::to_string(i), x, y + 12.0 * i),
               "Times"));
  }
  return lines;
}

std::vector<Block> Titles(const std::vector<Block>& blocks) {
  std::vector<Block> out;
  for (const Block& b : blocks) {
    if (b.type == BlockType::kTitle) out.push_back(b);
  }
  return out;
}

std::vector<Block> LayoutAlone(std::vector<TextLine> lines) {
  PageContent page = Page(std::move(lines));
  return LayoutPage(page, AnalyzeStyle({page}));
}

TEST(TextLayoutTest, BoldCellsOfAHeaderRowAreNoHeadings) {
  std::vector<TextLine> lines = {InFont(Line("Overview", 50, 50, 10, true), "Times")};
  for (TextLine l : Body(70, 4)) lines.push_back(l);
  // Two bold labels on one baseline, apart: the header row of a table without rules.
  lines.push_back(InFont(Line("State funded", 60, 140, 10, true), "Times"));
  lines.push_back(InFont(Line("Volunteers", 300, 140, 10, true), "Times"));
  for (TextLine l : Body(160, 4)) lines.push_back(l);
  std::vector<Block> titles = Titles(LayoutAlone(lines));
  ASSERT_EQ(titles.size(), 1u);
  EXPECT_EQ(titles[0].content, "Overview");
  // Set a little under the body's size (9 points over 10, as REVTeX's subsections): a heading still; at
  // 8 points, a note.
  for (const double size : {9.0, 8.0}) {
    lines[0] = InFont(Line("Overview", 50, 50, size, true), "Times");
    EXPECT_EQ(Titles(LayoutAlone(lines)).size(), size == 9.0 ? 1u : 0u) << size;
  }
}

TEST(TextLayoutTest, ABoldLineAtOrALittleUnderBodySizeIsAHeadingUnlessItStartsInLowerCase) {
  std::vector<TextLine> lines = {InFont(Line("Overview", 50, 50, 10, true), "Times")};
  for (TextLine l : Body(70, 4)) lines.push_back(l);
  // The second line of a column's heading left alone over a table: it goes on from the line above.
  lines.push_back(InFont(Line("legal aid", 300, 140, 10, true), "Times"));
  for (TextLine l : Body(160, 4)) lines.push_back(l);
  std::vector<Block> titles = Titles(LayoutAlone(lines));
  ASSERT_EQ(titles.size(), 1u);
  EXPECT_EQ(titles[0].content, "Overview");
}

TEST(TextLayoutTest, ANumberedLineSetBoldAloneIsAHeadingAndSevenOfThemStayHeadings) {
  // A short paper's page: its title, and seven numbered sections' headings set bold at body size, each
  // over two lines of text. A numbered line set bold inside a list of such lines stays an item.
  std::vector<TextLine> lines = {InFont(Line("Scheduling Pages", 50, 30, 16, true), "Times")};
  const char* kHeads[] = {"1. Introduction", "2. Method",  "2.1. Memory",  "2.2 Preemption",
                          "3. Results",      "4. Outlook", "5. Conclusion"};
  double y = 60;
  for (const char* head : kHeads) {
    lines.push_back(InFont(Line(head, 50, y, 10, true), "Times"));
    for (TextLine l : Body(y + 14, 2)) lines.push_back(l);
    y += 44;
  }
  std::vector<Block> titles = Titles(LayoutAlone(lines));
  ASSERT_EQ(titles.size(), 8u);
  for (size_t k = 0; k < 7; ++k) EXPECT_EQ(titles[k + 1].content, kHeads[k]);
  // Set in italics at body size, numbered or numbered in levels (a memorandum's headings): headings too.
  std::vector<TextLine> memo = {InFont(Line("1. Scope", 50, 50), "Times")};
  memo[0].italic = true;
  for (TextLine l : Body(66, 2)) memo.push_back(l);
  memo.push_back(InFont(Line("1.1 Who it applies to", 50, 100), "Times"));
  memo.back().italic = true;
  for (TextLine l : Body(116, 2)) memo.push_back(l);
  std::vector<Block> memo_titles = Titles(LayoutAlone(memo));
  ASSERT_EQ(memo_titles.size(), 2u);
  EXPECT_EQ(memo_titles[1].content, "1.1 Who it applies to");
  // "3. Results" alone among numbered items of a list: an item.
  std::vector<TextLine> list = Body(50, 2);
  list.push_back(InFont(Line("1. Install the package", 50, 80), "Times"));
  list.push_back(InFont(Line("2. Run the tests", 50, 92, 10, true), "Times"));
  list.push_back(InFont(Line("3. Read the report", 50, 104), "Times"));
  EXPECT_TRUE(Titles(LayoutAlone(list)).empty());
}

// Body text over entries (`label`, its text at x `text_x`) from y `top`, `pitch` apart; an entry's text
// may hold several lines ('\n').
std::vector<TextLine> LabelledEntries(const std::vector<std::pair<std::string, std::string>>& entries,
                                      double text_x, double top, double pitch) {
  std::vector<TextLine> lines = Body(50, 3);
  double y = top;
  for (const auto& [label, text] : entries) {
    lines.push_back(InFont(Line(label, 50, y), "Times"));
    for (size_t from = 0; from <= text.size(); y += pitch) {
      const size_t end = std::min(text.find('\n', from), text.size());
      lines.push_back(InFont(Line(text.substr(from, end - from), text_x, y), "Times"));
      from = end + 1;
    }
  }
  return lines;
}

TEST(TextLayoutTest, ALabelSetApartBeforeItsTextOnItsBaselineGoesWithIt) {
  // References numbered "[n]" in a column of labels, their lines hanging indented: no column of labels
  // read before a column of references, each label with its reference.
  std::vector<Block> blocks = LayoutAlone(LabelledEntries(
      {{"[1]", "Kwon, W. et al. Efficient memory manage-\nment for serving with paged attention."},
       {"[2]", "Yu, G. et al. Orca."}},
      78, 100, 14));
  ASSERT_EQ(blocks.size(), 3u);
  EXPECT_EQ(blocks[1].content,
            "[1] Kwon, W. et al. Efficient memory management for serving with paged attention.");
  EXPECT_EQ(blocks[2].content, "[2] Yu, G. et al. Orca.");
}

TEST(TextLayoutTest, AnItemsLabelSetApartUnderAParagraphStartsTheItem) {
  // "1." set apart before its item's text, right under a paragraph as close as its lines: the item's.
  std::vector<Block> blocks = LayoutAlone(LabelledEntries(
      {{"1.", "Out found people of the sets."}, {"2.", "While rose in out sets."}}, 72, 86, 12));
  ASSERT_GE(blocks.size(), 2u);
  EXPECT_TRUE(blocks[0].content.ends_with("line 2")) << blocks[0].content;
  EXPECT_EQ(blocks[1].content, "1. Out found people of the sets.\n2. While rose in out sets.");
}

TEST(TextLayoutTest, SpaceBetweenParagraphsPartsThemWithoutAnIndent) {
  // Lines 12 points apart, then half a line more between two paragraphs (a word processor's "space after"),
  // neither indented nor short at its end.
  std::vector<TextLine> lines = Body(50, 3);
  for (TextLine l : Body(90.5, 3)) lines.push_back(l);  // 6.5 points under the first, 2 between lines
  std::vector<Block> blocks = LayoutAlone(lines);
  ASSERT_EQ(blocks.size(), 2u);
  EXPECT_TRUE(blocks[1].content.starts_with("body text of the page that runs on and on line 0"))
      << blocks[1].content;
  // A line set deeper (a subscript in it) narrows the gap under it: the next gap is no space between
  // paragraphs.
  lines = Body(50, 5);
  lines[2].box.y1 += 5;
  EXPECT_EQ(LayoutAlone(lines).size(), 1u);
}

TEST(TextLayoutTest, TextUnderAListAtItsBulletsEdgeIsNoPartOfTheLastItem) {
  // A bullet and its space half an em wide; the paragraph after the list starts where the bullets do,
  // right under the last item, which ends a sentence. A wrapped item's line there goes on in its item.
  auto item = [](const std::string& text, double y) {
    TextLine l = Line("- " + text, 50, y);
    l.chars[1].box.x1 = l.chars[1].box.x0 + 1;  // a narrow space: the text 6 points after the bullet
    for (size_t i = 2; i < l.chars.size(); ++i) l.chars[i].box.x0 -= 4, l.chars[i].box.x1 -= 4;
    return l;
  };
  std::vector<TextLine> lines = Body(50, 2);
  lines.push_back(item("Interest rates may stay high.", 80));
  lines.push_back(item("Growth may slow.", 92));
  lines.push_back(Line("The outlook will be updated in the autumn.", 50, 104));
  std::vector<Block> blocks = LayoutAlone(lines);
  ASSERT_EQ(blocks.size(), 3u);
  EXPECT_EQ(blocks[2].content, "The outlook will be updated in the autumn.");
  lines[3] = item("Growth in the second half may slow as", 92);
  lines[4] = Line("rates stay high.", 50, 104);
  blocks = LayoutAlone(lines);
  ASSERT_EQ(blocks.size(), 2u);
  EXPECT_TRUE(blocks[1].content.ends_with("as rates stay high.")) << blocks[1].content;
}

TEST(TextLayoutTest, OtherFamilyHeadingsButNotCodeOrStackedLabels) {
  std::vector<TextLine> lines = Body(50, 4);
  // A single line in a sans family at body size: a heading.
  lines.push_back(InFont(Line("Method and Scope", 50, 110), "Arial"));
  for (TextLine l : Body(125, 3)) lines.push_back(l);
  // A line of code (uniform advances) in another family: not a heading.
  lines.push_back(InFont(Line("Helper words first", 50, 170), "Times"));
  lines.push_back(Line("CALL proc1(alice)", 50, 190));
  lines.back().font = "BookMaster";
  lines.back().monospace = MeasureAdvances(lines.back().chars) == Advances::kUniform;
  for (TextLine l : Body(210, 3)) lines.push_back(l);
  // Figure labels: a family set in stacks of short lines, so a lone line of it is a label too.
  for (int i = 0; i < 3; ++i) {
    lines.push_back(InFont(Line("Label number " + std::to_string(i), 50, 270 + 11.0 * i), "Calibri"));
  }
  lines.push_back(InFont(Line("Signed on as Alice", 50, 320), "Calibri"));
  for (TextLine l : Body(340, 3)) lines.push_back(l);
  std::vector<Block> titles = Titles(LayoutAlone(lines));
  ASSERT_EQ(titles.size(), 1u);
  EXPECT_EQ(titles[0].content, "Method and Scope");
}

TEST(TextLayoutTest, ASectionsNumberMakesALineAHeadingInAStyleOfStacks) {
  // IEEE's small capitals: the tables' captions set in them wrap onto stacks of lines, and a section's
  // heading in them, its number in Roman, is a heading still; a line without a number is not, nor are
  // initials ("C. Darwin"), nor a contents entry with its page's number.
  for (const char* text :
       {"III. Experimental Setup", "Signed on as Alice", "C. Darwin Institute", "10.1 Tweaks 204"}) {
    std::vector<TextLine> lines = Body(50, 4);
    for (int i = 0; i < 3; ++i) {
      lines.push_back(
          InFont(Line("Caption line number " + std::to_string(i), 50, 110 + 11.0 * i), "CapsFont"));
    }
    for (TextLine l : Body(150, 3)) lines.push_back(l);
    lines.push_back(InFont(Line(text, 50, 200), "CapsFont"));
    for (TextLine l : Body(220, 3)) lines.push_back(l);
    const std::vector<Block> titles = Titles(LayoutAlone(lines));
    const bool heading = std::string(text) == "III. Experimental Setup";
    ASSERT_EQ(titles.size(), heading ? 1u : 0u) << text;
    if (heading) {
      EXPECT_EQ(titles[0].content, text);
    }
  }
}

TEST(TextLayoutTest, HeadingsLevelInTwoColumnsAreHeadingsAndCellsOfAHeaderRowAreNot) {
  // Two columns of a paper, each with a heading in small capitals on one baseline over its text.
  std::vector<TextLine> lines = Body(50, 4);
  for (TextLine l : Body(50, 4, 320)) lines.push_back(l);
  lines.push_back(InFont(Line("III. Experimental Setup", 80, 110), "CapsFont"));
  lines.push_back(InFont(Line("IV. Discussion", 380, 110), "CapsFont"));
  for (TextLine l : Body(126, 3)) lines.push_back(l);
  for (TextLine l : Body(126, 3, 320)) lines.push_back(l);
  std::vector<Block> titles = Titles(LayoutAlone(lines));
  ASSERT_EQ(titles.size(), 2u);
  EXPECT_EQ(titles[0].content, "III. Experimental Setup");
  EXPECT_EQ(titles[1].content, "IV. Discussion");
  // The same lines over short cells are a table's header row, no headings.
  lines.resize(8);
  lines.push_back(InFont(Line("III. Experimental Setup", 80, 110), "CapsFont"));
  lines.push_back(InFont(Line("IV. Discussion", 380, 110), "CapsFont"));
  for (int r = 0; r < 3; ++r) {
    lines.push_back(InFont(Line("cell " + std::to_string(r), 80, 126 + 12.0 * r), "Times"));
    lines.push_back(InFont(Line("value " + std::to_string(r), 380, 126 + 12.0 * r), "Times"));
  }
  EXPECT_TRUE(Titles(LayoutAlone(lines)).empty());
}

TEST(TextLayoutTest, ADisplayEquationInMathItalicIsNoHeading) {
  // A paper's display equation: a line alone in TeX's math italic (another family than the body's, at its
  // size, not ending like a sentence), between paragraphs. A line in a sans family there is a heading.
  for (const char* family : {"CMMI10", "CambriaMath", "Arial"}) {
    std::vector<TextLine> lines = Body(50, 4);
    lines.push_back(InFont(Line("Log p(y | x) + c", 120, 110), family));
    for (TextLine l : Body(125, 3)) lines.push_back(l);
    EXPECT_EQ(Titles(LayoutAlone(lines)).size(), std::string(family) == "Arial" ? 1u : 0u) << family;
  }
}

TEST(TextLayoutTest, AReferenceWhoseMiddleLineIsMostlyInItalicsIsOneParagraph) {
  // A reference: a line in roman, a line mostly in italics (the proceedings' title, a quarter or more in
  // roman), a line in roman; one paragraph. A bold heading over a line of text with a bold word in it
  // stays a heading of its own.
  auto faced = [](const std::string& text, double y, int roman, int italic, int bold) {
    TextLine l = InFont(Line(text, 50, y), "Times");
    l.faces = {{"Times", roman}, {"Times/i", italic}, {"Times/b", bold}};
    std::erase_if(l.faces, [](const auto& face) { return face.second == 0; });
    l.italic = italic * 2 > roman + italic + bold;
    l.bold = bold * 2 > roman + italic + bold;
    return l;
  };
  std::vector<TextLine> lines = Body(50, 3);
  lines.push_back(
      faced("Author, A. and Writer, B. (2023). Efficient memory for serving models", 100, 60, 0, 0));
  lines.push_back(faced("with paged attention. In Proceedings of the Symposium on Systems,", 112, 20, 45, 0));
  lines.push_back(faced("pages 611-626, and a second line in roman after it all.", 124, 50, 0, 0));
  for (TextLine l : Body(150, 3)) lines.push_back(l);
  std::vector<Block> blocks = LayoutAlone(lines);
  ASSERT_EQ(blocks.size(), 3u);
  EXPECT_EQ(blocks[1].content.substr(0, 10), "Author, A.");
  EXPECT_NE(blocks[1].content.find("Systems, pages 611"), std::string::npos) << blocks[1].content;

  lines = Body(50, 3);
  lines.push_back(faced("For more information:", 100, 0, 0, 20));
  lines.push_back(faced("see example.com for the details", 112, 20, 0, 8));
  for (TextLine l : Body(140, 3)) lines.push_back(l);
  blocks = LayoutAlone(lines);
  ASSERT_GE(blocks.size(), 3u);
  EXPECT_EQ(blocks[1].content, "For more information:");
}

TEST(TextLayoutTest, ALineInCapitalsAloneBetweenParagraphsIsAHeading) {
  // IEEE papers' section headings: "I. INTRODUCTION" in small capitals (most of it 8 pt under a 10 pt
  // body), alone between paragraphs. An identifier in capitals and figures, or a sentence in capitals,
  // is none.
  for (const char* text : {"I. INTRODUCTION", "REFERENCES", "REDP-5110-00", "ALL RIGHTS ARE RESERVED."}) {
    std::vector<TextLine> lines = Body(50, 4);
    lines.push_back(InFont(Line(text, 120, 112, 8), "Times"));
    for (TextLine l : Body(128, 3)) lines.push_back(l);
    const std::vector<Block> titles = Titles(LayoutAlone(lines));
    const bool heading = std::string(text) == "I. INTRODUCTION" || std::string(text) == "REFERENCES";
    ASSERT_EQ(titles.size(), heading ? 1u : 0u) << text;
    if (heading) {
      EXPECT_EQ(titles[0].content, text);
    }
  }
}

TEST(TextLayoutTest, ProseWithCodeInItIsOneParagraphWhicheverFaceHasMostOfALine) {
  // A manual's sentence full of identifiers: its second line has more characters in the code face than
  // in the text face, its first and last fewer; then a line of code alone.
  std::vector<TextLine> lines = Body(50, 3);
  auto mixed = [](const std::string& text, double y, int times, int courier) {
    TextLine l = InFont(Line(text, 50, y), times >= courier ? "Times" : "Courier");
    l.faces = {{"Times", times}, {"Courier", courier}};
    l.monospace = courier > times;
    return l;
  };
  lines.push_back(mixed("Returns: ASN1_SUCCESS if the file is read and every name is known,", 100, 40, 17));
  lines.push_back(
      mixed("ASN1_ELEMENT_NOT_EMPTY if definitions is not NULL, ASN1_FILE_NOT_FOUND", 112, 20, 43));
  lines.push_back(mixed("if the file could not be opened.", 124, 21, 5));
  TextLine code = Line("asn1_node definitions = NULL;", 50, 136);
  code.font = "Courier";
  code.faces = {{"Courier", 26}};
  code.monospace = true;
  lines.push_back(code);
  std::vector<Block> blocks = LayoutAlone(lines);
  ASSERT_EQ(blocks.size(), 3u);
  EXPECT_EQ(blocks[1].content,
            "Returns: ASN1_SUCCESS if the file is read and every name is known, ASN1_ELEMENT_NOT_EMPTY if "
            "definitions is not NULL, ASN1_FILE_NOT_FOUND if the file could not be opened.");
  EXPECT_EQ(blocks[2].content, "asn1_node definitions = NULL;");
}

TEST(TextLayoutTest, AFirstLineIndentStartsAParagraphAndAHangingIndentDoesNot) {
  // Paragraphs set solid, told only by their first lines' indents: the first one's last line ends a
  // sentence nearly at the margin (too long to count as a short last line). Then references set with a
  // hanging indent, one's full first line ending with a period, its second line indented under it.
  std::vector<TextLine> lines = {
      InFont(Line("The first paragraph runs on over two full lines and its last line", 50, 100), "Times"),
      InFont(Line("is nearly as long as the others, and ends a sentence here.", 50, 112), "Times"),
      InFont(Line("The second paragraph starts here with its first line indented", 70, 124), "Times"),
      InFont(Line("by two em, as books and papers set them, and it goes on here", 50, 136), "Times"),
      InFont(Line("for one more line of text, and then it ends on this line.", 50, 148), "Times"),
      InFont(Line("[1] A. Author. A title of a paper that is long enough to wrap, Ed.", 50, 172), "Times"),
      InFont(Line("onto the next line. Journal of Examples, 12(3), 2020, pages 1-9.", 70, 184), "Times"),
      InFont(Line("[2] B. Author. Another title that also wraps onto a second line", 50, 196), "Times"),
      InFont(Line("of its own. Journal of Examples, 12(4), 2020, pages 10 to 19.", 70, 208), "Times")};
  for (size_t i : {0, 2, 3, 5, 7}) lines[i].box.x1 = 400;  // justified: full lines end at the margin
  lines[1].box.x1 = 395;                                   // nearly full
  std::vector<Block> blocks = LayoutAlone(lines);
  ASSERT_GE(blocks.size(), 3u);
  EXPECT_TRUE(blocks[0].content.ends_with("ends a sentence here.")) << blocks[0].content;
  EXPECT_TRUE(blocks[1].content.starts_with("The second paragraph")) << blocks[1].content;
  EXPECT_TRUE(blocks[1].content.ends_with("ends on this line.")) << blocks[1].content;
  EXPECT_TRUE(blocks[2].content.starts_with("[1] A. Author.")) << blocks[2].content;
  EXPECT_NE(blocks[2].content.find("Ed. onto the next line."), std::string::npos) << blocks[2].content;
}

TEST(TextLayoutTest, EntriesSetWithAHangingIndentAreParagraphsOneLineEntriesToo) {
  // References without numbers: each entry's first line at the margin, its other lines indented under
  // it; one entry is a single short line. Then running text at the margin, its lines full.
  std::vector<TextLine> lines = {
      InFont(Line("Smith, J. (2019). A study of long titles in the reading of", 50, 100), "Times"),
      InFont(Line("references. Journal of Examples, 12(3):45-67.", 62, 112), "Times"),
      InFont(Line("Brown, A. (2020). Another title that runs on to a second", 50, 124), "Times"),
      InFont(Line("line as they often do. Proceedings of Things, pages 1-10", 62, 136), "Times"),
      InFont(Line("Lee, D. (2021). Short one. Tech. Rep.", 50, 148), "Times"),
      InFont(Line("Zhang, W. (2022). Yet another study whose title is long", 50, 160), "Times"),
      InFont(Line("enough to wrap. arXiv preprint arXiv:2201.00001.", 62, 172), "Times"),
      InFont(Line("Running text after the list starts at the margin and runs on", 50, 196), "Times"),
      InFont(Line("over its full lines, which are no entries of the list above.", 50, 208), "Times")};
  for (size_t i : {0, 2, 5, 7, 8}) lines[i].box.x1 = 400;  // justified: full lines end at the margin
  std::vector<Block> blocks = LayoutAlone(lines);
  ASSERT_EQ(blocks.size(), 5u);
  EXPECT_TRUE(blocks[0].content.ends_with("12(3):45-67.")) << blocks[0].content;
  EXPECT_TRUE(blocks[1].content.ends_with("pages 1-10")) << blocks[1].content;
  EXPECT_EQ(blocks[2].content, "Lee, D. (2021). Short one. Tech. Rep.");
  EXPECT_TRUE(blocks[3].content.starts_with("Zhang, W.")) << blocks[3].content;
  EXPECT_TRUE(blocks[4].content.starts_with("Running text")) << blocks[4].content;
  EXPECT_TRUE(blocks[4].content.ends_with("list above.")) << blocks[4].content;
  // Right-to-left lines end ragged on the left: a line starting further right is no hanging indent.
  std::vector<TextLine> rtl = {Line("a right-to-left paragraph set flush right, line one", 50, 100),
                               Line("its second line, which ends short on the left", 62, 112),
                               Line("and its third line, as long as the first one was", 50, 124)};
  for (TextLine& l : rtl) {
    l.rtl = true;
    l.box.x1 = 400;
  }
  EXPECT_EQ(LayoutAlone(rtl).size(), 1u);
}

TEST(TextLayoutTest, AOneLineEntryOfAHangingListEndsShortOfTheListsMeasure) {
  // After an entry of two lines (the list's measure, x 400), two entries of one line each, the second
  // shorter than the first: each is an entry.
  std::vector<TextLine> lines = {
      InFont(Line("Smith, J. (2019). A study of long titles in the reading of", 50, 100), "Times"),
      InFont(Line("references. Journal of Examples, 12(3):45-67.", 62, 112), "Times"),
      InFont(Line("Kim, S. (2018). A single line, longer one, 2016.", 50, 124), "Times"),
      InFont(Line("Lee, D. (2021). Short one. Tech. Rep.", 50, 136), "Times")};
  lines[0].box.x1 = 400;
  std::vector<Block> blocks = LayoutAlone(lines);
  ASSERT_EQ(blocks.size(), 3u);
  EXPECT_EQ(blocks[1].content, "Kim, S. (2018). A single line, longer one, 2016.");
  EXPECT_EQ(blocks[2].content, "Lee, D. (2021). Short one. Tech. Rep.");
}

TEST(TextLayoutTest, EachReferenceStartsAtItsLabel) {
  // Numbered references: a full line alone, then the next label; "[10]" set flush right in the labels'
  // box, further left than "[9]".
  std::vector<TextLine> lines = {
      InFont(Line("[8] A. Name. A title of one line, as long as the measure", 54, 100), "Times"),
      InFont(Line("[9] B. Name. Short title, 1992.", 54, 112), "Times"),
      InFont(Line("[10] C. Name. The last title runs on to a second line of", 49, 124), "Times"),
      InFont(Line("its own. Proc. Last, 1997.", 70, 136), "Times")};
  lines[0].box.x1 = lines[2].box.x1 = 400;
  std::vector<Block> blocks = LayoutAlone(lines);
  ASSERT_EQ(blocks.size(), 3u);
  EXPECT_TRUE(blocks[0].content.ends_with("the measure")) << blocks[0].content;
  EXPECT_EQ(blocks[1].content, "[9] B. Name. Short title, 1992.");
  EXPECT_TRUE(blocks[2].content.ends_with("Proc. Last, 1997.")) << blocks[2].content;
  // A reference broken by a column break: its rest, indented under the label at the top of the next
  // column, goes on from it, and the next label there starts the next reference.
  lines = {InFont(Line("[3] D. Name and E. Name. A title that runs on to", 54, 600), "Times"),
           InFont(Line("a second line and to the foot of the column, and", 70, 612), "Times"),
           InFont(Line("on to the next. Proc. Things, 2023.", 330, 100), "Times"),
           InFont(Line("[4] F. Name. Workflow of a dataset, 2005.", 317, 112), "Times")};
  lines[0].box.x1 = lines[1].box.x1 = 300;
  blocks = LayoutAlone(lines);
  ASSERT_EQ(blocks.size(), 2u);
  EXPECT_TRUE(blocks[0].content.ends_with("the column, and on to the next. Proc. Things, 2023."))
      << blocks[0].content;
  EXPECT_EQ(blocks[1].content, "[4] F. Name. Workflow of a dataset, 2005.");
}

TEST(TextLayoutTest, TwoColumnsUnderACentredTitleThatCrossesTheirGutter) {
  // A paper's title, centred and narrower than half the page, over two columns of running text whose
  // baselines do not line up: the gutter between the columns holds, the title across it.
  std::vector<TextLine> lines = {Line("A Study of Long Inputs in Practice", 150, 40, 12)};
  for (int i = 0; i < 8; ++i) {
    lines.push_back(
        Line("left column words that run on, line " + std::to_string(i), 72, 100 + 11.0 * i, 9.5));
    lines.push_back(
        Line("Right column words that run on, line " + std::to_string(i), 320, 105 + 11.0 * i, 9.5));
  }
  std::vector<Block> blocks = LayoutAlone(lines);
  ASSERT_EQ(blocks.size(), 3u);
  EXPECT_EQ(blocks[0].content, "A Study of Long Inputs in Practice");
  EXPECT_TRUE(blocks[1].content.starts_with("left column words that run on, line 0 left"))
      << blocks[1].content;
  EXPECT_TRUE(blocks[1].content.ends_with("line 7")) << blocks[1].content;
  EXPECT_TRUE(blocks[2].content.starts_with("Right column words")) << blocks[2].content;
}

// Two columns (x 50 and 320, about 40 characters a line): a paragraph of two lines, then one of four
// whose last line, `left_end`, runs to the measure; the right column starts with `right_start` and ends a
// sentence a line on, then a paragraph of its own.
std::vector<Block> ColumnBreak(const std::string& left_end, const std::string& right_start) {
  return LayoutAlone({Line("The first paragraph in the left column,", 50, 100),
                      Line("it ends here.", 50, 112),
                      Line("The second paragraph runs on and on, for", 50, 136),
                      Line("a few lines of text that are all as long", 50, 148),
                      Line("as the others, and the last line of this", 50, 160), Line(left_end, 50, 172),
                      Line(right_start, 320, 100), Line("n, ends here.", 320, 112),
                      Line("A third paragraph starts after a gap and", 320, 136), Line("ends.", 320, 148)});
}

TEST(TextLayoutTest, AParagraphBrokenByAColumnBreakIsOneParagraph) {
  std::vector<Block> blocks =
      ColumnBreak("one runs to the measure and ends in the", "rest of the paragraph, in the next colum");
  ASSERT_EQ(blocks.size(), 3u);
  EXPECT_NE(blocks[1].content.find("ends in the rest of the paragraph"), std::string::npos)
      << blocks[1].content;
  EXPECT_TRUE(blocks[1].content.ends_with("colum n, ends here.")) << blocks[1].content;
  EXPECT_LT(blocks[1].bbox.x1, 500);  // the box of its start, in the left column
  EXPECT_TRUE(blocks[2].content.starts_with("A third paragraph")) << blocks[2].content;
  // A word hyphenated at the foot of the column joins as in a paragraph.
  blocks =
      ColumnBreak("one runs to the measure and ends, measu-", "rement of the paragraph, in the next col");
  ASSERT_EQ(blocks.size(), 3u);
  EXPECT_NE(blocks[1].content.find(" ends, measurement of the"), std::string::npos) << blocks[1].content;
  // A sentence that ends at the foot of the column, or a capital after the break: two paragraphs.
  EXPECT_EQ(
      ColumnBreak("one runs to the measure and it ends here.", "rest of the paragraph, in the next colum")
          .size(),
      4u);
  EXPECT_EQ(ColumnBreak("one runs to the measure and ends in the", "Rest of the paragraph, in the next colum")
                .size(),
            4u);
}

TEST(TextLayoutTest, AParagraphGoesOnPastAFootnoteUnderItsColumn) {
  // A footnote set small at the foot of the left column, between the paragraph's two halves; a short
  // heading centred over the columns does not make the right column's first line indented.
  std::vector<TextLine> lines = {Line("ABSTRACT", 245, 90),
                                 Line("The second paragraph runs on and on, for", 50, 136),
                                 Line("a few lines of text that are all as long", 50, 148),
                                 Line("as the others, and the last line of this", 50, 160),
                                 Line("one runs to the measure and ends in the", 50, 172),
                                 Line("1 A note set small under the column.", 50, 200, 8),
                                 Line("rest of the paragraph, in the next colum", 280, 136),
                                 Line("n, ends here.", 280, 148),
                                 Line("A third paragraph starts after a gap and", 280, 172),
                                 Line("runs down the right column past the note", 280, 184),
                                 Line("at the foot of the left one, and ends.", 280, 196),
                                 Line("It is the last one on this page so far.", 280, 208)};
  std::vector<Block> blocks = LayoutAlone(lines);
  ASSERT_EQ(blocks.size(), 4u);
  EXPECT_TRUE(
      blocks[1].content.ends_with("ends in the rest of the paragraph, in the next colum n, ends here."))
      << blocks[1].content;
  EXPECT_EQ(blocks[2].content, "1 A note set small under the column.");
}

TEST(TextLayoutTest, ACaptionCentredUnderItsFloatEndsWhereTheColumnsTextStarts) {
  std::vector<TextLine> lines = {Line("Table 1: Scheduler parameters.", 90, 100),
                                 Line("The cost of a step is dominated by the", 50, 112),
                                 Line("weights, read once for the whole batch.", 50, 124)};
  std::vector<Block> blocks = LayoutAlone(lines);
  ASSERT_EQ(blocks.size(), 2u);
  EXPECT_EQ(blocks[0].content, "Table 1: Scheduler parameters.");
  // The text under it opens with an indented line that runs to the measure, the next at the column's
  // edge: apart too, whatever the label ("Fig." ends in a dot of its own). A caption's own second line,
  // centred and short, stays in it.
  for (const char* caption :
       {"Table 1: Scheduler parameters.", "Fig. 1: Scheduler parameters.", "Fig. 1. Scheduler parameters."}) {
    lines = {Line(caption, 75, 100), Line("The cost of a step is dominated by read-", 70, 112),
             Line("ing the weights, once for the whole batch.", 50, 124)};
    blocks = LayoutAlone(lines);
    ASSERT_EQ(blocks.size(), 2u) << caption;
    EXPECT_EQ(blocks[0].content, caption);
  }
  lines = {Line("Table 1: Scheduler parameters.", 75, 100), Line("Higher is better.", 108, 112),
           Line("The weights are read once for the whole batch.", 50, 128)};
  EXPECT_EQ(LayoutAlone(lines)[0].content, "Table 1: Scheduler parameters. Higher is better.");
}

TEST(TextLayoutTest, ASecondColumnOfOneLineIsReadAfterTheFirst) {
  // The last column of an article holds the last line of its paragraph, level with the first column's
  // top: read after the whole first column. A short value beside a label at the top is read with it.
  for (bool lone_line : {true, false}) {
    std::vector<TextLine> lines = {Line("Closing Remarks on the Method", 150, 50, 14, true)};
    for (int i = 0; i < 6; ++i)
      lines.push_back(
          Line("The first column runs on line by line " + std::to_string(i) + ",", 50, 100 + 12.0 * i));
    lines.push_back(lone_line ? Line("the last words of the article end here.", 320, 100)
                              : Line("12 May", 320, 100));
    std::string text;
    for (const Block& b : LayoutAlone(lines)) text += b.content + "|";
    EXPECT_EQ(text.find("line by line 0,|12 May|") != std::string::npos, !lone_line) << text;
    EXPECT_EQ(text.ends_with("line 5, the last words of the article end here.|"), lone_line) << text;
  }
}

TEST(TextLayoutTest, ChineseNumberingStartsABlock) {
  // A section's number and heading over a shorter sub-heading, in the body's face and size; items of a
  // related-research list, as long as each other: each line a block of its own.
  std::vector<TextLine> lines = {
      WideLine(U"\u4e09\u3001\u6838\u5fc3\u7ade\u4e89\u529b\u5206\u6790", 50, 100),  // 三、核心竞争力分析
      WideLine(U"\uff08\u4e00\uff09\u6280\u672f\u4f18\u52bf", 50, 114),              // （一）技术优势
      WideLine(U"1\u3001\u7814\u53d1\u6295\u5165", 50, 128),                         // 1、研发投入
      WideLine(U"1.\u300a\u65b0\u54c1\u653e\u91cf\u300b", 50, 142),                  // 1.《新品放量》
      WideLine(U"2.\u300a\u6d77\u5916\u63d0\u901f\u300b", 50, 156)};                 // 2.《海外提速》
  std::vector<Block> blocks = LayoutAlone(lines);
  ASSERT_EQ(blocks.size(), 5u);
  EXPECT_EQ(blocks[1].content, "\uff08\u4e00\uff09\u6280\u672f\u4f18\u52bf");
  EXPECT_EQ(blocks[4].content, "2.\u300a\u6d77\u5916\u63d0\u901f\u300b");
  // Not a figure with a decimal point ("2.5亿元") or a year ("2023年") at the start of a wrapped line.
  const std::u32string full =
      U"\u8425\u4e1a\u6536\u5165\u540c\u6bd4\u589e\u957f\u5341\u4e8c\u4e2a"
      U"\u767e\u5206\u70b9\u4e3b\u8981\u6765\u81ea\u4e8e\u65b0";
  EXPECT_EQ(LayoutAlone({WideLine(full, 50, 100), WideLine(U"2.5\u4ebf\u5143\u3002", 50, 114)}).size(), 1u);
}

TEST(TextLayoutTest, ATitleUnderAColumnOverAFigureAsWideAsThePageIsReadAfterTheColumns) {
  // A sidebar (x 50..200) beside a column of text (x 250..550), a title set flush left a blank line under
  // both, right over a figure as wide as the page: the sidebar, the text, the title, the figure. The
  // sidebar's own last line, set as close as its others, stays in it.
  for (bool apart : {true, false}) {
    std::vector<TextLine> lines;
    for (int i = 0; i < 5; ++i)
      lines.push_back(Line("Sidebar line " + std::to_string(i), 50, 100 + 12.0 * i));
    for (int i = 0; i < 8; ++i)
      lines.push_back(
          Line("Main text runs on in its column, line " + std::to_string(i) + ",", 250, 100 + 12.0 * i));
    lines.push_back(Line("Forecast and valuation", 50, apart ? 210 : 160));
    PageContent page = Page(lines);
    page.images.push_back({50, 226, 550, 400});
    std::string text;
    for (const Block& b : LayoutPage(page, AnalyzeStyle({page}))) text += b.content + "|";
    EXPECT_EQ(text.find("line 7,|Forecast and valuation|") != std::string::npos, apart) << text;
    EXPECT_EQ(text.find("Sidebar line 4 Forecast and valuation|") != std::string::npos, !apart) << text;
  }
}

TEST(TextLayoutTest, FieldsOneUnderTheOtherAreALineEach) {
  // A report's sidebar: an analyst's name, licence number and email, each "name：value", as long as each
  // other. A paragraph whose wrapped line starts "Default: " after a line that is no field goes on.
  std::vector<TextLine> lines = {
      WideLine(U"\u5206\u6790\u5e08\uff1a\u5f20\u4e09\u674e\u56db", 50, 100),  // 分析师：张三李四
      WideLine(U"\u8054\u7cfb\u4eba\uff1a\u738b\u4e94\u8d75\u516d", 50, 114),  // 联系人：王五赵六
      Line("Email: analyst@example.com", 50, 128), Line("Phone: 010 1234 5678 ext 9", 50, 140)};
  std::vector<Block> blocks = LayoutAlone(lines);
  ASSERT_EQ(blocks.size(), 4u);
  EXPECT_EQ(blocks[1].content, "\u8054\u7cfb\u4eba\uff1a\u738b\u4e94\u8d75\u516d");
  EXPECT_EQ(blocks[3].content, "Phone: 010 1234 5678 ext 9");
  blocks = LayoutAlone({Line("The three settings of the budget are listed below, with the one we", 50, 100),
                        Line("Default: this is the one on a card of sixteen gigabytes, and the", 50, 112),
                        Line("others are the ones users set most often in our survey of them.", 50, 124)});
  EXPECT_EQ(blocks.size(), 1u);
}

TEST(TextLayoutTest, ATitleOverTheMainColumnBesideASidebarThatStartsLowerIsReadFirst) {
  // A report's title (16 pt) over its main column (x 200..), the sidebar (x 50..170) starting under the
  // title's foot, the report's header over the sidebar: the header, the title, the sidebar, the text. Set at
  // the text's size it is the main column's first line, read after the sidebar.
  for (double size : {16.0, 10.0}) {
    std::vector<TextLine> lines = {Line("Strong quarter, raised outlook", 200, 50, size, true)};
    if (size > 10) lines.push_back(Line("Equity research", 50, 30, 8));  // a header over the sidebar
    for (int i = 0; i < 6; ++i) lines.push_back(Line("Sidebar " + std::to_string(i), 50, 100 + 11.0 * i, 8));
    for (int i = 0; i < 8; ++i)
      lines.push_back(
          Line("The main text of the report runs on, line " + std::to_string(i), 200, 84 + 12.0 * i));
    std::string text;
    for (const Block& b : LayoutAlone(lines)) text += b.content + "|";
    EXPECT_EQ(text.starts_with("Equity research|Strong quarter, raised outlook|Sidebar 0"), size > 10)
        << text;
  }
}

TEST(TextLayoutTest, LinesTakenForNamesCountAmongAPagesTitlesOfOneFace) {
  // Four lines set large (12 pt over 10 pt text), two by two on a baseline, each centred over a line
  // under it (taken for authors' names, no titles), and four more in that size, each over a paragraph:
  // eight in one face on a page, a listing set large, so the four are no titles either.
  std::vector<TextLine> lines;
  for (double y : {60.0, 120.0}) {
    for (double centre : {150.0, 400.0}) {
      lines.push_back(Line("Large Cell Text", centre - 3 * 15, y, 12));
      lines.push_back(Line("a smaller line under it", centre - 2.5 * 23, y + 14, 10));
    }
  }
  for (int k = 0; k < 4; ++k) {
    const double y = 200 + 60.0 * k;
    lines.push_back(Line("Large Line " + std::to_string(k), 50, y, 12));
    lines.push_back(Line("A paragraph of text under the large line, set at the body's size.", 50, y + 18));
    lines.push_back(Line("It runs on for a second line and then ends here.", 50, y + 30));
  }
  EXPECT_TRUE(Titles(LayoutAlone(lines)).empty());
}

TEST(TextLayoutTest, TwoAuthorsCentredAsAPairOverTwoColumnsAreReadBeforeThem) {
  // A paper's title across the page, two authors with their affiliations centred as a pair under it (the
  // gap between them over the columns' gutter, 300..310), two columns of text a blank line under them:
  // the title, each author whole, then the columns. Two columns' own first lines, flush left, are no
  // such pair.
  for (bool authors : {true, false}) {
    std::vector<TextLine> lines = {
        Line("Paged attention for document parsing under small budgets", 60, 40, 17)};
    if (authors) {
      lines.push_back(Line("Ana Silva", 213, 80, 12));
      lines.push_back(Line("University of Lisbon", 180, 94, 12));
      lines.push_back(Line("Wei Zhang", 347, 80, 12));
      lines.push_back(Line("Tsinghua University", 317, 94, 12));
    }
    for (int i = 0; i < 8; ++i) {  // 245 points wide: 54..299 and 312..557
      const std::string n = std::to_string(i);
      lines.push_back(Line("Left column text, a paragraph that runs on, line " + n + (i == 7 ? "." : ""), 54,
                           130 + 12.0 * i));
      lines.push_back(Line("Right column text, another one that runs on, line " + n, 312, 130 + 12.0 * i));
    }
    std::string text;
    for (const Block& b : LayoutAlone(lines)) text += b.content.substr(0, 16) + "|";
    const std::string columns = "Left column text|Right column tex|";
    EXPECT_EQ(text, authors ? "Paged attention |Ana Silva Univer|Wei Zhang Tsingh|" + columns
                            : "Paged attention |" + columns)
        << text;
    // The names, side by side and each centred over an affiliation set as large, are an author block,
    // no headings: the title is the one heading.
    EXPECT_EQ(Titles(LayoutAlone(lines)).size(), 1u);
  }
}

TEST(TextLayoutTest, EachNoteUnderAColumnStartsAtItsRaisedMark) {
  // Two footnotes set small under a column, each starting with its mark set smaller and raised: two
  // notes. The same lines without raised marks are one paragraph.
  for (bool raised : {true, false}) {
    std::vector<TextLine> lines = Body(50, 6);
    for (const char* note : {"*Corresponding author: ana@example.org, Lisbon",
                             "1The code is available from the authors on request"}) {
      TextLine l = InFont(Line(note, 50, lines.back().box.y1 + 2, 8), "Times");
      if (raised) {
        l.chars[0].box.y0 -= 1.5;
        l.chars[0].box.y1 = l.chars[0].box.y0 + 5;
      }
      lines.push_back(l);
    }
    std::vector<Block> blocks = LayoutAlone(lines);
    ASSERT_EQ(blocks.size(), raised ? 3u : 2u);
    EXPECT_TRUE(blocks[1].content.starts_with("*Corresponding"));
  }
}

std::string Utf8(const std::u32string& text) {
  std::string out;
  for (char32_t c : text) AppendUtf8(out, c);
  return out;
}

TEST(TextLayoutTest, BulletsRightBeforeChineseTextAreListItemsTheirLinesUnderTheBullet) {
  // A report's key points: "◆" and its text, no space, an item's second line under the bullet, as long
  // as its first: two items.
  const std::u32string full =
      U"\u8425\u4e1a\u6536\u5165\u540c\u6bd4\u589e\u957f\u5341\u4e8c\u4e2a"
      U"\u767e\u5206\u70b9\u4e3b\u8981\u6765\u81ea\u4e8e\u65b0";  // 20 characters
  const std::u32string end = U"\u4e1a\u52a1\u3002";               // 业务。
  std::vector<TextLine> lines = {WideLine(U"\u25c6" + full.substr(1), 50, 100), WideLine(full, 50, 114),
                                 WideLine(end, 50, 128), WideLine(U"\u25c6" + full.substr(1), 50, 142),
                                 WideLine(end, 50, 156)};
  std::vector<Block> blocks = LayoutAlone(lines);
  ASSERT_EQ(blocks.size(), 1u);
  EXPECT_EQ(blocks[0].type, BlockType::kList);
  EXPECT_EQ(blocks[0].content,
            "- " + Utf8(full.substr(1) + full + end) + "\n- " + Utf8(full.substr(1) + end));
}

TEST(TextLayoutTest, AChineseParagraphBrokenByAColumnBreakIsOneParagraph) {
  // 20 characters a line; the right column's first line indented by two characters starts a paragraph.
  for (bool indented : {false, true}) {
    const std::u32string full =
        U"\u8425\u4e1a\u6536\u5165\u540c\u6bd4\u589e\u957f\u5341\u4e8c\u4e2a"
        U"\u767e\u5206\u70b9\u4e3b\u8981\u6765\u81ea\u4e8e\u65b0";  // 营业收入同比增长...
    std::vector<TextLine> lines;
    for (int i = 0; i < 4; ++i) lines.push_back(WideLine(full, 50, 100 + 14.0 * i));
    const double x = indented ? 320 + 20 : 320;
    lines.push_back(WideLine(full.substr(0, indented ? 18 : 20), x, 100));
    lines.push_back(WideLine(full, 320, 114));
    lines.push_back(WideLine(U"\u4e1a\u52a1\u3002", 320, 128));  // 业务。
    std::vector<Block> blocks = LayoutAlone(lines);
    ASSERT_EQ(blocks.size(), indented ? 2u : 1u);
    EXPECT_TRUE(blocks.back().content.ends_with("\u4e1a\u52a1\u3002"));
    if (!indented) {
      EXPECT_EQ(blocks[0].content.find(' '), std::string::npos) << blocks[0].content;
    }
  }
}

TEST(TextLayoutTest, AParagraphGoesOnPastAFigureInItsColumn) {
  // A paragraph cut by an image set across the column, its rest under the image: one paragraph, the image
  // after it. Without the image between, text that far down starts a paragraph of its own.
  for (bool image : {true, false}) {
    std::vector<TextLine> lines;
    for (int i = 0; i < 3; ++i)
      lines.push_back(
          Line("the paragraph runs on over the figure set in its column, line " + std::to_string(i) + " of",
               50, 100 + 12.0 * i));
    lines.push_back(Line("it goes on under the figure and ends here.", 50, 300));
    PageContent page = Page(lines);
    if (image) page.images.push_back({50, 150, 330, 280});
    std::vector<Block> blocks = LayoutPage(page, AnalyzeStyle({page}));
    ASSERT_EQ(blocks.size(), 2u);
    EXPECT_EQ(blocks[0].type, BlockType::kText);
    EXPECT_EQ(blocks[0].content.ends_with("ends here."), image) << blocks[0].content;
    EXPECT_EQ(blocks[1].type, image ? BlockType::kImage : BlockType::kText);
  }
}

TEST(TextLayoutTest, HelveticaNeueIsTheFamilyOfHelvetica) {
  std::vector<TextLine> lines;
  for (TextLine l : Body(50, 4)) lines.push_back(InFont(l, "Helvetica"));
  lines.push_back(InFont(Line("A short line in the neue cut", 50, 110), "HelveticaNeue"));
  for (TextLine l : Body(125, 3)) lines.push_back(InFont(l, "Helvetica"));
  EXPECT_TRUE(Titles(LayoutAlone(lines)).empty());
}

TEST(TextLayoutTest, FooterBesideAPageNumberIsLeftOut) {
  std::vector<TextLine> lines = Body(100, 5);
  // Bottom band of an 800 pt page: "208", and far from it a bold footer title.
  lines.push_back(InFont(Line("208", 40, 760, 10, true), "Times"));
  lines.push_back(InFont(Line("Global Study of Tests", 250, 760, 10, true), "Times"));
  std::vector<Block> blocks = LayoutAlone(lines);
  EXPECT_TRUE(Titles(blocks).empty());
  for (const Block& b : blocks) EXPECT_EQ(b.content.find("Global Study"), std::string::npos);
}

TEST(TextLayoutTest, ANumberedListSetLargerStaysAList) {
  std::vector<TextLine> lines = Body(50, 5);
  lines.push_back(InFont(Line("1. numbered item one", 60, 130, 12), "Times"));
  lines.push_back(InFont(Line("2. numbered item two", 60, 150, 12), "Times"));
  lines.push_back(InFont(Line("Heading After", 50, 180, 16, true), "Times"));
  for (TextLine l : Body(205, 3)) lines.push_back(l);
  // "(1) Scope" in a heading size, followed by body text: a numbered heading.
  lines.push_back(InFont(Line("(1) Scope", 50, 260, 16, true), "Times"));
  for (TextLine l : Body(285, 3)) lines.push_back(l);
  std::vector<Block> blocks = LayoutAlone(lines);
  std::vector<Block> titles = Titles(blocks);
  ASSERT_EQ(titles.size(), 2u);
  EXPECT_EQ(titles[0].content, "Heading After");
  EXPECT_EQ(titles[1].content, "(1) Scope");
  bool list = false;
  for (const Block& b : blocks) {
    if (b.type == BlockType::kList) {
      list = true;
      EXPECT_EQ(b.content, "1. numbered item one\n2. numbered item two");
    }
  }
  EXPECT_TRUE(list);
}

TEST(TextLayoutTest, BulletsAndLeadInsAreNoHeadings) {
  std::vector<TextLine> lines = Body(50, 5);
  // Larger than the body, but the lead-in and the items of a list in one style.
  lines.push_back(InFont(Line("Let us introduce a list", 50, 130, 14), "Times"));
  lines.push_back(InFont(Line("- With foo", 60, 150, 14), "Times"));
  lines.push_back(InFont(Line("- And bar", 60, 170, 14), "Times"));
  lines.push_back(InFont(Line("example.com/docs", 50, 200, 14), "Times"));
  for (TextLine l : Body(230, 3)) lines.push_back(l);
  EXPECT_TRUE(Titles(LayoutAlone(lines)).empty());
}

TEST(TextLayoutTest, HeadingInPiecesIsOneTitle) {
  std::vector<TextLine> lines = Body(50, 5);
  // Section number and title on one baseline, set apart.
  lines.push_back(InFont(Line("1", 50, 130, 16, true), "Times"));
  lines.push_back(InFont(Line("Introduction", 80, 130, 16, true), "Times"));
  for (TextLine l : Body(155, 3)) lines.push_back(l);
  // A chapter title over two lines with a small label beside them, between the two.
  lines.push_back(InFont(Line("Securing the", 150, 220, 26, true), "Times"));
  lines.push_back(InFont(Line("Chapter 2.", 60, 240, 7, true), "Times"));
  lines.push_back(InFont(Line("data", 150, 250, 26, true), "Times"));
  for (TextLine l : Body(290, 3)) lines.push_back(l);
  std::vector<Block> blocks = LayoutAlone(lines);
  std::vector<Block> titles = Titles(blocks);
  ASSERT_EQ(titles.size(), 2u);
  EXPECT_EQ(titles[0].content, "1 Introduction");
  EXPECT_EQ(titles[1].content, "Securing the data");
  bool label = false;
  for (const Block& b : blocks) label = label || (b.type == BlockType::kText && b.content == "Chapter 2.");
  EXPECT_TRUE(label);
}

// A narrow side column (names, figures) beside a column whose lines are all wide, under a title that
// crosses the gutter: the two columns are read one after the other, never interleaved line by line.
TEST(TextLayoutTest, NarrowSideColumnBesideWideLinesIsItsOwnColumn) {
  std::vector<TextLine> lines = {Line("Quarterly results", 40, 40, 18)};
  const char* side[] = {"Analyst", "Jane Doe", "Price", "12.50", "Target", "15.00"};
  for (int i = 0; i < 6; ++i) {
    double y = 100 + 13 * i;
    lines.push_back(Line(side[i], 40, y));
    lines.push_back(
        Line("main column line " + std::to_string(i) + " of the report with many more words", 190, y));
  }
  PageContent page = Page(lines);
  std::vector<Block> blocks = LayoutPage(page, AnalyzeStyle({page}));
  std::string order;
  for (const Block& b : blocks) order += b.content + "\n";
  size_t main_first = order.find("main column line 0"), main_last = order.find("main column line 5");
  ASSERT_NE(main_first, std::string::npos) << order;
  ASSERT_NE(main_last, std::string::npos) << order;
  for (const char* s : side) {
    size_t at = order.find(s);
    ASSERT_NE(at, std::string::npos) << order;
    EXPECT_TRUE(at < main_first || at > main_last) << s << " inside the main column:\n" << order;
  }
}

}  // namespace
}  // namespace mineru::document
