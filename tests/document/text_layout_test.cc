#include "document/text_layout.h"

#include <gtest/gtest.h>

#include "tests/document/line_builder.h"

namespace mineru::document {
namespace {

using testing::Line;

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

TEST(TextLayoutTest, ListMarkers) {
  bool numbered = false;
  EXPECT_EQ(ListMarkerLength("\xE2\x80\xA2 item", &numbered), 4u);  // "• "
  EXPECT_FALSE(numbered);
  EXPECT_EQ(ListMarkerLength("- item", &numbered), 2u);
  EXPECT_EQ(ListMarkerLength("12. item", &numbered), 4u);
  EXPECT_TRUE(numbered);
  EXPECT_EQ(ListMarkerLength("(3) item", &numbered), 4u);
  EXPECT_EQ(ListMarkerLength("b) item", &numbered), 3u);
  EXPECT_EQ(ListMarkerLength("5.1 Section", &numbered), 0u);
  EXPECT_EQ(ListMarkerLength("2024 was a year", &numbered), 0u);
  EXPECT_EQ(ListMarkerLength("-", &numbered), 0u);
  EXPECT_EQ(ListMarkerLength("Word. Next", &numbered), 0u);
}

TEST(TextLayoutTest, PageNumbers) {
  for (const char* s : {"7", "- 12 -", "Page 3", "3 of 10", "Page 2 of 9", "iv", "[4]"}) {
    EXPECT_TRUE(IsPageNumberText(s)) << s;
  }
  for (const char* s : {"Chapter 3", "Introduction", "3.5 Results", "1998-2004 survey"}) {
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

TEST(TextLayoutTest, TwoColumnsReadLeftThenRight) {
  std::vector<TextLine> lines = {Line("Big Title Across", 50, 50, 20, true)};
  // Left column x 50..250, right column x 320..520; lines at the same heights in both.
  for (int i = 0; i < 6; ++i) {
    double y = 100 + 12.0 * i;
    lines.push_back(Line("left column line number " + std::to_string(i), 50, y));
    lines.push_back(Line("right column line numbr " + std::to_string(i), 320, y));
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
  EXPECT_EQ(blocks[1].content.find("right"), std::string::npos);
  EXPECT_EQ(blocks[2].content.substr(0, 25), "right column line numbr 0");
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

}  // namespace
}  // namespace mineru::document
