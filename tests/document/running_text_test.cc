#include "document/running_text.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "document/text_layout.h"
#include "tests/document/line_builder.h"

namespace mineru::document {
namespace {

using testing::Line;

// A 600 x 800 page: body lines in the middle, and `extra` lines.
PageContent Page(int number, std::vector<TextLine> extra) {
  PageContent p;
  p.page = {0, 0, 600, 800};
  for (int k = 0; k < 4; ++k) {
    p.lines.push_back(
        Line("Body line " + std::to_string(k) + " of page " + std::to_string(number) + " with words", 70,
             300 + 12 * k));
  }
  for (TextLine& l : extra) p.lines.push_back(std::move(l));
  return p;
}

std::string BodyText(const PageContent& page, const DocumentStyle& style) {
  std::string text;
  for (const Block& b : LayoutPage(page, style)) text += b.content + "\n";
  return text;
}

TEST(RunningTextTest, ACopyrightLineAboveTheFooterBandAtOnePlaceOnEveryPage) {
  // y 650 of 800: 81% down, outside the classic 14% footer band, inside the 20% one.
  std::vector<PageContent> pages;
  for (int i = 1; i <= 4; ++i) {
    pages.push_back(
        Page(i, {Line("(c) 2020 The Authors. Journal of Tests 12:" + std::to_string(100 + i), 70, 650, 8)}));
  }
  DocumentStyle style = AnalyzeStyle(pages);
  EXPECT_EQ(style.running_keys.count("B:(c)#theauthors.journaloftests#:#"), 1u);
  std::string body = BodyText(pages[2], style);
  EXPECT_EQ(body.find("Journal of Tests"), std::string::npos) << body;
  EXPECT_NE(body.find("Body line 0 of page 3"), std::string::npos) << body;
}

TEST(RunningTextTest, RepeatedTextAtDifferentPlacesOutsideTheClassicBandStays) {
  // The same sentence 14-20% from the top, but 17 points (more than 2% of the height) apart from page to
  // page: body text, not a header.
  std::vector<PageContent> pages;
  for (int i = 0; i < 3; ++i) {
    pages.push_back(Page(i, {Line("See the appendix for details", 70, 113 + 17.5 * i)}));
  }
  DocumentStyle style = AnalyzeStyle(pages);
  EXPECT_TRUE(style.running_keys.empty());
  EXPECT_NE(BodyText(pages[1], style).find("See the appendix"), std::string::npos);
}

TEST(RunningTextTest, ParagraphLinesRepeatedAtOnePlaceStay) {
  // The same boilerplate paragraph at the foot of every page (16-19% from the bottom): its lines stand
  // in a stack of their own style, so they are body text.
  std::vector<PageContent> pages;
  for (int i = 1; i <= 3; ++i) {
    pages.push_back(Page(i, {Line("Lorem ipsum dolor sit amet, consetetur", 70, 650),
                             Line("sadipscing elitr, sed diam nonumy", 70, 662)}));
  }
  DocumentStyle style = AnalyzeStyle(pages);
  EXPECT_TRUE(style.running_keys.empty());
  EXPECT_NE(BodyText(pages[1], style).find("Lorem ipsum dolor sit amet, consetetur sadipscing"),
            std::string::npos);
}

TEST(RunningTextTest, TheSeriesNameAsATitleOnTheFirstPageStays) {
  // "Issues and Views" is the running header of pages 2-4 (in the 14% band) and the large title of page
  // 1, 15% down: only the header repeats at its place.
  std::vector<PageContent> pages;
  pages.push_back(Page(1, {Line("Issues and Views", 300, 110, 20)}));
  for (int i = 2; i <= 4; ++i) pages.push_back(Page(i, {Line("Issues and Views", 60, 40, 8)}));
  DocumentStyle style = AnalyzeStyle(pages);
  EXPECT_EQ(style.running_keys.count("T:issuesandviews"), 1u);
  EXPECT_NE(BodyText(pages[0], style).find("Issues and Views"), std::string::npos);
  EXPECT_EQ(BodyText(pages[2], style).find("Issues and Views"), std::string::npos);
}

TEST(RunningTextTest, APapersTitleUnderItsOwnRunningHeaderStays) {
  // The title set at 17 pt on page 1, in the top band under the same words set at 9 pt as the running
  // header of every page: the header goes, the title stays. Set at the header's size it would go too.
  for (double size : {17.0, 9.0}) {
    std::vector<PageContent> pages;
    for (int i = 1; i <= 3; ++i) {
      std::vector<TextLine> top = {Line("SCHEDULING PAGES ON SMALL GPUS", 220, 15, 9)};
      if (i == 1) top.push_back(Line("Scheduling Pages on Small GPUs", 160, 60, size));
      pages.push_back(Page(i, top));
    }
    DocumentStyle style = AnalyzeStyle(pages);
    ASSERT_EQ(style.running_keys.count("T:schedulingpagesonsmallgpus"), 1u);
    const std::string body = BodyText(pages[0], style);
    EXPECT_EQ(body.find("SCHEDULING"), std::string::npos);
    EXPECT_EQ(body.find("Scheduling Pages on Small GPUs") != std::string::npos, size > 9) << size;
  }
}

TEST(RunningTextTest, AStampInTheSideMarginOnEveryPage) {
  // A narrow line within the left 10% (a rotated "Downloaded from" stamp has a box like this).
  std::vector<PageContent> pages;
  for (int i = 1; i <= 3; ++i) pages.push_back(Page(i, {Line("Downloaded", 10, 400, 8)}));
  DocumentStyle style = AnalyzeStyle(pages);
  EXPECT_EQ(style.running_keys.count("L:downloaded"), 1u);
  EXPECT_EQ(BodyText(pages[0], style).find("Downloaded"), std::string::npos);
}

TEST(RunningTextTest, ALineOnItsSideInAMarginIsAStampOnOnePageToo) {
  // arXiv's identifier set sideways in the left margin of a paper's first page (a box 27 wide, 345 high),
  // and the same text sideways in the body or flat in the margin: only the first is a stamp.
  TextLine stamp = Line("arXiv:2305.03393v1 [cs.CV] 5 May 2023", 10, 200, 20);
  stamp.box = {10, 200, 37, 545};
  TextLine in_body = stamp;
  in_body.box = {300, 200, 327, 545};
  TextLine flat = Line("Note", 10, 400, 8);
  std::vector<PageContent> pages = {Page(1, {stamp, in_body, flat})};
  DocumentStyle style = AnalyzeStyle(pages);
  EXPECT_TRUE(IsMarginStamp(stamp, pages[0].page));
  EXPECT_FALSE(IsMarginStamp(in_body, pages[0].page));
  EXPECT_FALSE(IsMarginStamp(flat, pages[0].page));
  EXPECT_TRUE(IsRunningLine(stamp, pages[0], style.running_keys));
  EXPECT_FALSE(IsRunningLine(in_body, pages[0], style.running_keys));
}

TEST(RunningTextTest, APagesOwnHeaderIsFoundOnThatPageAlone) {
  // "Chapter 3. Methods" at the top (y 40), the body from y 300: a header, whatever other pages say.
  PageContent page = Page(1, {Line("Chapter 3. Methods", 70, 40, 9)});
  std::vector<bool> header = FindPageHeader(page, 10);
  ASSERT_EQ(header.size(), 5u);
  EXPECT_TRUE(header[4]);
  EXPECT_EQ(std::count(header.begin(), header.end(), true), 1);
  // Two pieces on its baseline (a short title left, a date right) are one header.
  page = Page(1, {Line("Short title", 70, 40, 9), Line("May 2023", 480, 40, 9)});
  header = FindPageHeader(page, 10);
  EXPECT_TRUE(header[4] && header[5]);
  // Not: a page's first line of text, close to the next; a bold or large heading; a caption right over a
  // picture; a line below the top tenth of the page.
  EXPECT_FALSE(FindPageHeader(
      Page(1, {Line("the end of a paragraph from before", 70, 40), Line("and its last line", 70, 52)}),
      10)[4]);
  EXPECT_FALSE(FindPageHeader(Page(1, {Line("3 Methods", 70, 40, 10, true)}), 10)[4]);
  EXPECT_FALSE(FindPageHeader(Page(1, {Line("Overview", 70, 40, 14)}), 10)[4]);
  page = Page(1, {Line("Figure 3: The pipeline.", 70, 40, 9)});
  page.images.push_back({70, 55, 400, 250});
  EXPECT_FALSE(FindPageHeader(page, 10)[4]);
  EXPECT_FALSE(FindPageHeader(Page(1, {Line("Chapter 3. Methods", 70, 120, 9)}), 10)[4]);
}

TEST(RunningTextTest, APagesOnlyTextOrASentencesEndAtItsTopIsNoHeader) {
  // A paragraph's last line carried over to a page of its own, a page number at its foot: the page's
  // text, not its header.
  PageContent page;
  page.page = {0, 0, 600, 800};
  page.lines = {Line("Chapter 3. Methods", 70, 40, 9), Line("7", 300, 770, 9)};
  EXPECT_EQ(FindPageHeader(page, 10), (std::vector<bool>{false, false}));
  // Over a figure set at the foot of the page: a line ending a sentence, as long as a line of prose,
  // is text; a short one, or a long one that ends no sentence, is a header.
  const std::string sentence = "and the last words of this paragraph run over onto this page.";
  EXPECT_FALSE(FindPageHeader(Page(1, {Line(sentence, 70, 40, 10)}), 10)[4]);
  EXPECT_TRUE(FindPageHeader(Page(1, {Line("Results.", 70, 40, 9)}), 10)[4]);
  EXPECT_TRUE(FindPageHeader(
      Page(1, {Line("Published as a conference paper at the Conference on Tests 2024", 70, 40, 9)}), 10)[4]);
}

TEST(RunningTextTest, AlternatingHeadersWithThePageNumberOnEitherSide) {
  // Even pages "N Journal of Tests (2020) 28:1-9", odd pages "Journal of Tests (2020) 28:1-9 N".
  std::vector<PageContent> pages;
  for (int i = 1; i <= 6; ++i) {
    std::string header = i % 2 == 0 ? std::to_string(i) + " Journal of Tests (2020) 28:1-9"
                                    : "Journal of Tests (2020) 28:1-9 " + std::to_string(i);
    pages.push_back(Page(i, {Line(header, 70, 40, 8)}));
  }
  DocumentStyle style = AnalyzeStyle(pages);
  for (const PageContent& p : pages) EXPECT_EQ(BodyText(p, style).find("Journal"), std::string::npos);
}

TEST(RunningTextTest, PageNumbersInTheClassicBandOrAloneAtTheFoot) {
  PageContent page = Page(1, {});
  EXPECT_TRUE(IsRunningLine(Line("7", 300, 770, 9), page, {}));
  EXPECT_TRUE(IsRunningLine(Line("- 7 -", 300, 20, 9), page, {}));
  // 17% from the bottom: alone at the foot, the text ending well above it, it is the page's number
  // (LaTeX's on an A4 page); with text beside it, under it or close over it, a figure's or a table's.
  page.lines.push_back(Line("7", 300, 660, 9));
  EXPECT_TRUE(IsRunningLine(page.lines.back(), page, {}));
  for (const TextLine& near : {Line("Note on the figure", 70, 660, 9), Line("Source: the survey", 70, 690, 9),
                               Line("the last line of the text", 70, 645, 9)}) {
    PageContent with = Page(1, {Line("7", 300, 660, 9), near});
    EXPECT_FALSE(IsRunningLine(with.lines[4], with, {})) << near.text;
  }
}

TEST(RunningTextTest, NumbersAmongCellsInTheBandAreNoPageNumbers) {
  // A table at the top of the page: its header of years, and its first rows, in the 14% band.
  PageContent page = Page(1, {Line("2019", 300, 40, 8), Line("2020", 360, 40, 8), Line("Total", 70, 52, 8),
                              Line("41", 306, 52, 8)});
  // Its last rows at the foot: one figure per row, a column of them.
  page.lines.push_back(Line("Mining", 70, 740, 8));
  page.lines.push_back(Line("12", 306, 740, 8));
  page.lines.push_back(Line("Logging", 70, 750, 8));
  page.lines.push_back(Line("7", 308, 750, 8));
  page.lines.push_back(Line("3", 300, 780, 9));  // the page number, apart from them
  page.lines.push_back(Line("4", 570, 780, 9));  // and the facing page's (a spread)
  std::string body = BodyText(page, AnalyzeStyle({page}));
  for (const char* cell : {"2019", "2020", "41", "Mining", "12", "Logging", "7"})
    EXPECT_NE(body.find(cell), std::string::npos) << cell << " in\n" << body;
  EXPECT_EQ(body.find("3\n"), std::string::npos) << body;
  for (size_t i = 4; i < page.lines.size(); ++i) {
    const bool number = page.lines[i].text == "3" || page.lines[i].text == "4";
    EXPECT_EQ(IsPageNumber(page.lines[i], page), number) << page.lines[i].text;
  }
}

TEST(RunningTextTest, AReferenceLevelWithAChartsTickValuesAtThePagesTopStaysWhole) {
  // A chart at the top of the left column, its tick values 28 points apart (each passes for a page
  // number); level with two of them the first and last lines of the next column's reference, 12 points
  // apart: a paragraph's lines, no footer beside a page number.
  PageContent page = Page(1, {Line("40", 93, 60, 9), Line("20", 93, 84, 9), Line("0", 97.5, 108, 9),
                              Line("[4] K. Baker and K. Garcia. Field for shuffle", 316, 60, 9),
                              Line("comparison correlation over column mean.", 331, 72, 9),
                              Line("Proc. Reading Iteration, 2008.", 331, 84, 9)});
  std::string body = BodyText(page, AnalyzeStyle({page}));
  for (const char* text : {"[4] K. Baker", "comparison", "Proc. Reading"})
    EXPECT_NE(body.find(text), std::string::npos) << text << " in\n" << body;
  // A footer alone on the number's baseline still goes.
  PageContent footer =
      Page(1, {Line("12", 72, 770, 9), Line("Annual Report of the Tests Board", 300, 770, 9)});
  EXPECT_EQ(BodyText(footer, AnalyzeStyle({footer})).find("Annual Report"), std::string::npos);
}

TEST(RunningTextTest, AnEquationsNumberInTheBandIsNoPageNumber) {
  // A display equation near the foot of the page, numbered "(3)" at the right margin; the page's own
  // number "(7)" stands alone under it.
  PageContent page = Page(1, {Line("E = m c 2 + x", 250, 720), Line("(3)", 520, 720), Line("(7)", 295, 770)});
  std::string body = BodyText(page, AnalyzeStyle({page}));
  EXPECT_NE(body.find("E = m c 2 + x"), std::string::npos) << body;
  EXPECT_NE(body.find("(3)"), std::string::npos) << body;
  EXPECT_EQ(body.find("(7)"), std::string::npos) << body;
  // So too numbered at the left margin (amsart's), the formula on its right; a footer there is no formula.
  page = Page(1, {Line("(3)", 72, 720), Line("E = m c 2 + x", 250, 720), Line("(7)", 295, 770)});
  body = BodyText(page, AnalyzeStyle({page}));
  EXPECT_NE(body.find("(3)"), std::string::npos) << body;
  EXPECT_NE(body.find("E = m c 2 + x"), std::string::npos) << body;
  page = Page(1, {Line("(3)", 72, 770), Line("Annual Report of the Tests Board", 300, 770)});
  EXPECT_EQ(BodyText(page, AnalyzeStyle({page})).find("Annual Report"), std::string::npos);
}

TEST(RunningTextTest, EquationNumbersAtThePagesFootOnEveryPageAreNoRunningText) {
  // Each page ends with a numbered display equation: "(1)", "(2)", "(3)" repeat in the footer band.
  std::vector<PageContent> pages;
  for (int i = 0; i < 3; ++i)
    pages.push_back(
        Page(i, {Line("E = m c 2 + x", 250, 720), Line("(" + std::to_string(i + 1) + ")", 520, 720)}));
  const DocumentStyle style = AnalyzeStyle(pages);
  EXPECT_EQ(style.running_keys.count("B:(#)"), 0u);
  EXPECT_FALSE(IsRunningLine(pages[1].lines[5], pages[1], style.running_keys));
}

TEST(RunningTextTest, ALetterInAMathFontAtTheFootIsNoPageNumber) {
  // "x" alone at the foot is the page number x in a text font; in a math font it is a formula's piece
  // (the denominator of a display equation's fraction near the foot).
  PageContent page = Page(1, {Line("x", 295, 770)});
  EXPECT_TRUE(IsPageNumber(page.lines.back(), page));
  page.lines.back().font = "CMMI10";
  EXPECT_FALSE(IsPageNumber(page.lines.back(), page));
}

TEST(RunningTextTest, ALabelWithItsTextOnItsBaselineIsNoPageNumber) {
  // "[1]" before a reference and a section's "2" before its heading, in the top band: labels. A footer's
  // number three ems from the footer's text is a page number.
  PageContent page = Page(
      1, {Line("[1]", 72, 60), Line("Kwon, W. et al. Paged attention.", 97, 60), Line("2", 72, 90, 13),
          Line("Insurance today", 90, 90, 13), Line("12", 72, 770, 9), Line("Annual Report", 110, 770, 9)});
  for (size_t i = 4; i < page.lines.size(); ++i) {
    const bool number = page.lines[i].text == "12";
    EXPECT_EQ(IsPageNumber(page.lines[i], page), number) << page.lines[i].text;
  }
  // At one place on every page of references, "[n]" is a running key; it stays where it labels a
  // reference, and goes where it labels a running header.
  std::vector<PageContent> pages;
  const char* kReferences[] = {"Kwon, W. Paged attention.", "Yu, G. Orca.", "Lee, S. Chunked prefill."};
  for (int i = 0; i < 3; ++i) {
    pages.push_back(
        Page(i, {Line("[" + std::to_string(10 * i + 1) + "]", 72, 60), Line(kReferences[i], 97, 60),
                 Line("[" + std::to_string(10 * i + 2) + "]", 72, 74), Line("Next one.", 97, 74)}));
  }
  DocumentStyle style = AnalyzeStyle(pages);
  ASSERT_EQ(style.running_keys.count("T:[#]"), 1u);
  EXPECT_FALSE(IsRunningLine(pages[1].lines[4], pages[1], style.running_keys));
  EXPECT_NE(BodyText(pages[1], style).find("[11] Yu, G. Orca."), std::string::npos)
      << BodyText(pages[1], style);
  for (int i = 0; i < 3; ++i) {  // a running header set apart over the text, "[n]" its volume
    pages[i].lines[4] = Line("[" + std::to_string(10 * i + 1) + "]", 72, 30);
    pages[i].lines[5] = Line("Journal of Tests", 97, 30);
  }
  style = AnalyzeStyle(pages);
  EXPECT_TRUE(IsRunningLine(pages[1].lines[4], pages[1], style.running_keys));
}

TEST(RunningTextTest, ATablesHeaderOfYearsAtTheTopOfPagesIsNoRunningText) {
  // The same table continued at the top of each page: its header's years repeat at one place.
  std::vector<PageContent> pages;
  for (int i = 0; i < 3; ++i) {
    pages.push_back(Page(i, {Line("Service", 72, 76), Line("2023", 267, 76), Line("2024", 308, 76),
                             Line("2025", 349, 76), Line("Housing", 72, 92), Line("308.0", 267, 92),
                             Line("170.4", 308, 92), Line("412.9", 349, 92)}));
  }
  DocumentStyle style = AnalyzeStyle(pages);
  EXPECT_EQ(style.running_keys.count("T:#"), 0u);
  for (size_t k = 5; k <= 7; ++k)
    EXPECT_FALSE(IsRunningLine(pages[1].lines[k], pages[1], {{"T:#", {0.1, 10}}}));
}

TEST(RunningTextTest, ATablesHeaderRepeatedBetweenItsRulesOnEachPageIsNoRunningText) {
  // A long table's header row repeated at the top of each page, ruled above and below, or with a row of
  // cells right under it; a running header set apart, not ruled, goes.
  std::vector<PageContent> pages;
  for (int i = 0; i < 3; ++i) {
    PageContent page = Page(i, {Line("Recipient", 72, 76, 10, true), Line("Amount", 300, 76, 10, true),
                                Line("Annual Report", 400, 40)});
    page.rules = {{{70, 73.6, 360, 74.4}, true}, {{70, 87.6, 360, 88.4}, true}};
    pages.push_back(std::move(page));
  }
  DocumentStyle style = AnalyzeStyle(pages);
  EXPECT_FALSE(IsRunningLine(pages[1].lines[4], pages[1], style.running_keys));
  EXPECT_FALSE(IsRunningLine(pages[1].lines[5], pages[1], style.running_keys));
  EXPECT_TRUE(IsRunningLine(pages[1].lines[6], pages[1], style.running_keys));
  pages[1].rules.pop_back();  // no rule under it: the header runs
  EXPECT_TRUE(IsRunningLine(pages[1].lines[4], pages[1], style.running_keys));
  // No rules, but a row of cells right under it: the table's header still.
  pages[1].lines.push_back(Line("Harbour Care Home", 72, 90));
  pages[1].lines.push_back(Line("56,020", 300, 90));
  EXPECT_FALSE(IsRunningLine(pages[1].lines[4], pages[1], style.running_keys));
  EXPECT_TRUE(IsRunningLine(pages[1].lines[6], pages[1], style.running_keys));
}

TEST(RunningTextTest, AJournalLineOverASectionsNumberedHeadingRuns) {
  // LNCS: the journal's name and its DOI on every page, 9 pt; on some pages a section's heading right
  // under them, 12 pt bold, its number set apart from its title (two pieces on its baseline, as cells).
  std::vector<PageContent> pages;
  for (int i = 0; i < 3; ++i) {
    pages.push_back(
        Page(i, {Line("Journal of Tests, Vol. 26", 134, 85, 9), Line("doi:10.8797/18755", 402, 85, 9)}));
  }
  pages[1].lines.push_back(Line("2", 134, 100, 12, true));
  pages[1].lines.push_back(Line("Related Work", 160, 100, 12, true));
  DocumentStyle style = AnalyzeStyle(pages);
  EXPECT_TRUE(IsRunningLine(pages[1].lines[4], pages[1], style.running_keys));
  EXPECT_TRUE(IsRunningLine(pages[1].lines[5], pages[1], style.running_keys));
}

TEST(RunningTextTest, LineNumbersInTheMarginsAreLeftOut) {
  // Two columns, each line numbered in the margin beside it (the right column's in the right margin).
  PageContent page;
  page.page = {0, 0, 600, 800};
  for (int k = 0; k < 8; ++k) {
    const double y = 200 + 12 * k;
    page.lines.push_back(Line("Left column text of line " + std::to_string(k), 70, y));
    page.lines.push_back(Line(std::to_string(k + 1), 50, y, 7));
    page.lines.push_back(Line("Right column text line " + std::to_string(k), 320, y));
    page.lines.push_back(Line(std::to_string(k + 9), 560, y, 7));
  }
  std::vector<bool> numbers = FindLineNumbers(page, {});
  for (size_t i = 0; i < page.lines.size(); ++i) {
    const bool bare = page.lines[i].text.find(' ') == std::string::npos;
    EXPECT_EQ(numbers[i], bare) << page.lines[i].text;
  }
  std::string body = BodyText(page, AnalyzeStyle({page}));
  EXPECT_EQ(body.find("\n1"), std::string::npos) << body;
  EXPECT_NE(body.find("Left column text of line 7"), std::string::npos) << body;
}

TEST(RunningTextTest, TablesAndContentsAreNoLineNumbering) {
  // A table's rows numbered 1 to 6 at the body's left margin (the text above starts as far left), and a
  // last column of years counting up inside the text's width (the text above reaches past it).
  PageContent page =
      Page(1, {Line("A line of text as wide as the body, which reaches the right margin", 70, 380)});
  for (int k = 0; k < 6; ++k) {
    const double y = 400 + 12 * k;
    page.lines.push_back(Line(std::to_string(k + 1), 70, y));
    page.lines.push_back(Line("Item " + std::to_string(k), 100, y));
    page.lines.push_back(Line(std::to_string(2015 + k), 300, y));
  }
  // Page numbers of a table of contents, at the right of everything: they do not count up in one step.
  for (int k = 0; k < 6; ++k) {
    page.lines.push_back(Line("Chapter " + std::to_string(k + 1), 70, 500 + 12 * k));
    page.lines.push_back(Line(std::to_string(3 + k * k), 560, 500 + 12 * k));
  }
  std::vector<bool> numbers = FindLineNumbers(page, {});
  EXPECT_EQ(std::count(numbers.begin(), numbers.end(), true), 0);
  // The table's items in a monospaced face are code: its row numbers are a listing's (next test).
  for (TextLine& l : page.lines) l.monospace = l.text.starts_with("Item");
  numbers = FindLineNumbers(page, {});
  EXPECT_EQ(std::count(numbers.begin(), numbers.end(), true), 6);
}

// A listing's line numbers inside the text's width (the prose around it starts as far left), code after
// each on its baseline, indented or not, in a monospaced face (by the font the page's style measured as
// monospaced, or by the line's own flag); the numbers go up to five digits in a long program.
TEST(RunningTextTest, AListingsLineNumbersAreLeftOut) {
  PageContent page =
      Page(1, {Line("Prose over the listing, as wide as the body and starting as far left.", 70, 380)});
  for (int k = 0; k < 6; ++k) {
    const double y = 400 + 12 * k;
    page.lines.push_back(Line(std::to_string(14467 + k), 70, y, 7));
    TextLine code = Line(k % 2 ? "  \\fi" : "\\def\\x{%", k % 2 ? 130 : 100, y);
    code.font = "LMMono10";
    page.lines.push_back(code);
  }
  page.lines.push_back(Line("Prose under the listing, as wide as the body, starting as far left.", 70, 480));
  std::vector<bool> numbers = FindLineNumbers(page, {"LMMono10"});
  for (size_t i = 0; i < page.lines.size(); ++i) {
    EXPECT_EQ(numbers[i], page.lines[i].text.starts_with("144")) << page.lines[i].text;
  }
  // Character codes counting up in a table in a typewriter face: three cells after each, no listing.
  PageContent codes = page;
  for (size_t i = 0; i < page.lines.size(); ++i) {
    if (page.lines[i].font != "LMMono10") continue;
    for (double x : {250.0, 350.0}) {
      TextLine cell = Line("glyph", x, page.lines[i].box.y0);
      cell.font = "LMMono10";
      codes.lines.push_back(cell);
    }
  }
  numbers = FindLineNumbers(codes, {"LMMono10"});
  EXPECT_EQ(std::count(numbers.begin(), numbers.end(), true), 0);
  // Code in a proportional face: no listing, and no margin either.
  numbers = FindLineNumbers(page, {});
  EXPECT_EQ(std::count(numbers.begin(), numbers.end(), true), 0);
}

Block OcrBlock(BBox box, const std::string& text, BlockType type = BlockType::kText) {
  Block b;
  b.type = type;
  b.bbox = box;
  b.content = text;
  b.ocr = true;
  return b;
}

std::vector<std::string> Texts(const std::vector<Block>& blocks) {
  std::vector<std::string> out;
  for (const Block& b : blocks) out.push_back(b.type == BlockType::kImage ? "[image]" : b.content);
  return out;
}

// Pages read by OCR one after another: what an earlier page had in its header or footer band is running
// text, though recognition reads its punctuation differently; page numbers go on every page.
TEST(RunningTextTest, OcrdPagesDropWhatEarlierPagesHadInTheirBandsAndPageNumbers) {
  OcrRunningText running;
  std::vector<Block> first = {OcrBlock({80, 20, 300, 35}, "Journal of Tests, Vol. 40"),
                              OcrBlock({80, 150, 900, 800}, "A paragraph of the body."),
                              OcrBlock({480, 950, 520, 965}, "1")};
  running.Filter(first);
  EXPECT_EQ(Texts(first),
            (std::vector<std::string>{"Journal of Tests, Vol. 40", "A paragraph of the body."}));
  std::vector<Block> second = {OcrBlock({80, 22, 300, 36}, "Journal of Tests Vol, 41"),
                               OcrBlock({80, 150, 900, 200}, "Journal of Tests, Vol. 40"),
                               OcrBlock({80, 870, 900, 900}, "the last lines of a paragraph"),
                               OcrBlock({80, 905, 400, 940}, "", BlockType::kImage),
                               OcrBlock({480, 950, 520, 965}, "- 2 -")};
  running.Filter(second);
  EXPECT_EQ(Texts(second), (std::vector<std::string>{"Journal of Tests, Vol. 40",
                                                     "the last lines of a paragraph", "[image]"}));
  // A footer band's paragraph is no header: the same words in the bottom band stay.
  std::vector<Block> third = {OcrBlock({80, 880, 300, 900}, "Journal of Tests, Vol. 42")};
  running.Filter(third);
  EXPECT_EQ(third.size(), 1u);
}

}  // namespace
}  // namespace mineru::document
