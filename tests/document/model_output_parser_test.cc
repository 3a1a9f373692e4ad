#include "document/model_output_parser.h"

#include <gtest/gtest.h>

#include <random>

namespace mineru::document {
namespace {

std::string B(const std::string& box, const std::string& type, const std::string& content,
              const std::string& end = "<|md_end|>") {
  return "<|box_start|>" + box + "<|box_end|><|ref_start|>" + type + "<|ref_end|><|md_start|>" + content +
         end;
}

TEST(ModelOutputParserTest, EveryTypeOnOnePage) {
  std::string text =
      B("100 050 900 080", "title", "# Results and \\(x\\)") + "\n" +
      B("100 100 900 200", "text", "We measure \\(a+b\\) per page.") + "\n" +
      B("100 220 500 500", "image", "") + "\n" + B("100 505 500 530", "image_caption", "Figure 1: a plot") +
      "\n" + B("100 532 500 545", "image_footnote", "Source: us") + "\n" +
      B("520 220 900 250", "table_caption", "Table 1: numbers") + "\n" +
      B("520 255 900 450", "table", "<fcel>a<fcel>b<nl><fcel>1<fcel>2<nl>") + "\n" +
      B("520 455 900 470", "table_footnote", "* estimated") + "\n" +
      B("100 600 900 650", "equation", "\\[ E = mc^2 \\]") + "\n" +
      B("100 660 900 720", "list", "- one\n- two") + "\n" + B("100 730 900 800", "index", "Alpha, 3") + "\n";
  ParsedModelOutput out = ParseModelOutput(text);
  EXPECT_TRUE(out.warnings.empty()) << out.warnings.front();
  EXPECT_FALSE(out.truncated);
  ASSERT_EQ(out.blocks.size(), 11u);
  const auto& b = out.blocks;
  EXPECT_EQ(b[0].type, BlockType::kTitle);
  EXPECT_EQ(b[0].title_level, 1);
  EXPECT_EQ(b[0].content, "Results and $x$");
  EXPECT_EQ(b[0].bbox, (BBox{100, 50, 900, 80}));
  EXPECT_EQ(b[1].content, "We measure $a+b$ per page.");
  EXPECT_EQ(b[2].type, BlockType::kImage);
  EXPECT_EQ(b[2].content, "");
  EXPECT_EQ(b[3].type, BlockType::kImageCaption);
  EXPECT_EQ(b[3].parent, 2);
  EXPECT_EQ(b[4].type, BlockType::kImageFootnote);
  EXPECT_EQ(b[4].parent, 2);
  EXPECT_EQ(b[5].type, BlockType::kTableCaption);
  EXPECT_EQ(b[5].parent, 6);
  EXPECT_EQ(b[6].content, "<table><tr><td>a</td><td>b</td></tr><tr><td>1</td><td>2</td></tr></table>");
  EXPECT_EQ(b[7].parent, 6);
  EXPECT_EQ(b[8].type, BlockType::kEquation);
  EXPECT_EQ(b[8].content, "E = mc^2");
  EXPECT_EQ(b[9].type, BlockType::kList);
  EXPECT_EQ(b[9].content, "- one\n- two");
  EXPECT_EQ(b[10].type, BlockType::kIndex);
  for (size_t i = 0; i < b.size(); ++i) {
    if (i != 3 && i != 4 && i != 5 && i != 7) {
      EXPECT_EQ(b[i].parent, -1) << i;
    }
  }
}

TEST(ModelOutputParserTest, TitleLevelsAreClamped) {
  auto out = ParseModelOutput(B("0 0 10 10", "title", "### Third") + B("0 0 10 10", "title", "###### Deep") +
                              B("0 0 10 10", "title", "Plain"));
  ASSERT_EQ(out.blocks.size(), 3u);
  EXPECT_EQ(out.blocks[0].title_level, 3);
  EXPECT_EQ(out.blocks[0].content, "Third");
  EXPECT_EQ(out.blocks[1].title_level, 4);
  EXPECT_EQ(out.blocks[2].title_level, 1);
  EXPECT_EQ(out.blocks[2].content, "Plain");
}

TEST(ModelOutputParserTest, ContinuedTextIsMerged) {
  auto out =
      ParseModelOutput(B("100 800 900 950", "text", "The first half of a sen-<|txt_contd|>") + "\n" +
                       B("100 050 900 100", "text", "tence and the rest<|txt_contd|>") + "\n" +
                       B("100 100 900 150", "text", "of it.") + "\n" + B("100 160 900 200", "text", "Next."));
  ASSERT_EQ(out.blocks.size(), 2u);
  EXPECT_EQ(out.blocks[0].content, "The first half of a sentence and the rest of it.");
  EXPECT_EQ(out.blocks[0].bbox, (BBox{100, 800, 900, 950}));
  EXPECT_EQ(out.blocks[1].content, "Next.");
}

TEST(ModelOutputParserTest, ContinuedTextJoinsAsLinesOfAParagraphDo) {
  // Chinese text goes on with no space; a hyphen before a capital is kept ("well-" + "Known" is no word
  // broken in two).
  auto out = ParseModelOutput(B("0 0 10 10", "text", "\u8425\u4e1a\u6536\u5165<|txt_contd|>") +
                              B("0 20 10 30", "text", "\u540c\u6bd4\u589e\u957f") +
                              B("0 40 10 50", "text", "the well-<|txt_contd|>") +
                              B("0 60 10 70", "text", "Known case"));
  ASSERT_EQ(out.blocks.size(), 2u);
  EXPECT_EQ(out.blocks[0].content, "\u8425\u4e1a\u6536\u5165\u540c\u6bd4\u589e\u957f");  // 营业收入同比增长
  EXPECT_EQ(out.blocks[1].content, "the well- Known case");
}

TEST(ModelOutputParserTest, ContinuationDoesNotCrossOtherTypes) {
  auto out = ParseModelOutput(B("0 0 10 10", "text", "Before<|txt_contd|>") +
                              B("0 20 10 30", "title", "# H") + B("0 40 10 50", "text", "after"));
  ASSERT_EQ(out.blocks.size(), 3u);
  EXPECT_EQ(out.blocks[0].content, "Before");
  EXPECT_EQ(out.blocks[2].content, "after");
}

TEST(ModelOutputParserTest, TruncatedLastBlockEndsInImEnd) {
  auto out = ParseModelOutput(B("10 10 990 100", "text", "Complete.") + "\n" +
                              B("10 120 990 300", "text", "Cut off in the mid", "<|im_end|>"));
  EXPECT_TRUE(out.truncated);
  ASSERT_EQ(out.blocks.size(), 2u);
  EXPECT_EQ(out.blocks[1].content, "Cut off in the mid");
  EXPECT_TRUE(out.warnings.empty());
}

TEST(ModelOutputParserTest, OutputEndingMidContentIsTruncated) {
  auto out = ParseModelOutput(B("10 10 990 100", "text", "Complete.") +
                              "<|box_start|>10 120 990 300<|box_end|>"
                              "<|ref_start|>text<|ref_end|><|md_start|>no end at all");
  EXPECT_TRUE(out.truncated);
  ASSERT_EQ(out.blocks.size(), 2u);
  EXPECT_EQ(out.blocks[1].content, "no end at all");
}

TEST(ModelOutputParserTest, InlineAndDisplayMathInText) {
  auto out = ParseModelOutput(B("0 0 10 10", "text", "Let \\( x \\) be \\[ y^2 \\] and \\( z"));
  ASSERT_EQ(out.blocks.size(), 1u);
  EXPECT_EQ(out.blocks[0].content, "Let $x$ be $$y^2$$ and \\( z");
}

TEST(ModelOutputParserTest, ReversedBoxIsSwapped) {
  auto out = ParseModelOutput(B("900 800 100 050", "text", "x"));
  ASSERT_EQ(out.blocks.size(), 1u);
  EXPECT_EQ(out.blocks[0].bbox, (BBox{100, 50, 900, 800}));
}

TEST(ModelOutputParserTest, BrokenBoxKeepsContentWithWarning) {
  auto out = ParseModelOutput(B("12 x 4", "text", "still here") + B("1 2 3", "text", "and here"));
  ASSERT_EQ(out.blocks.size(), 2u);
  EXPECT_EQ(out.blocks[0].content, "still here");
  EXPECT_TRUE(out.blocks[0].bbox.empty());
  EXPECT_EQ(out.warnings.size(), 2u);
}

TEST(ModelOutputParserTest, UnknownTypeIsKeptAsTextWithWarning) {
  auto out = ParseModelOutput(B("0 0 10 10", "sidebar", "content"));
  ASSERT_EQ(out.blocks.size(), 1u);
  EXPECT_EQ(out.blocks[0].type, BlockType::kText);
  ASSERT_EQ(out.warnings.size(), 1u);
  EXPECT_NE(out.warnings[0].find("sidebar"), std::string::npos);
}

TEST(ModelOutputParserTest, UnbalancedTagsAndStrayTokens) {
  std::string text =
      "junk before<|box_start|>0 0 10 10<|box_end|><|ref_start|>text<|ref_end|><|md_start|>"
      "a <|ref_start|>b" +  // no md_end, another block follows
      B("0 20 10 30", "text", "c") +
      "<|md_end|><|md_end|>";
  auto out = ParseModelOutput(text);
  ASSERT_EQ(out.blocks.size(), 2u);
  EXPECT_EQ(out.blocks[0].content, "a b");
  EXPECT_EQ(out.blocks[1].content, "c");
  EXPECT_GE(out.warnings.size(), 3u);  // leading junk, missing md_end, stray token, trailing junk
}

TEST(ModelOutputParserTest, NoBlocksAtAll) {
  auto out = ParseModelOutput("the model said something else entirely");
  EXPECT_TRUE(out.blocks.empty());
  EXPECT_FALSE(out.warnings.empty());
  EXPECT_TRUE(ParseModelOutput("").blocks.empty());
  EXPECT_TRUE(ParseModelOutput("").warnings.empty());
}

TEST(ModelOutputParserTest, CaptionPairsWithNearestBody) {
  auto out = ParseModelOutput(B("0 0 400 300", "image", "") + B("600 0 1000 300", "image", "") +
                              B("600 310 1000 330", "image_caption", "right one") +
                              B("0 310 400 330", "image_caption", "left one") +
                              B("0 900 100 950", "table_caption", "no table anywhere"));
  ASSERT_EQ(out.blocks.size(), 5u);
  EXPECT_EQ(out.blocks[2].parent, 1);
  EXPECT_EQ(out.blocks[3].parent, 0);
  EXPECT_EQ(out.blocks[4].parent, -1);
}

TEST(ModelOutputParserTest, ACaptionAtAColumnsFootGoesWithTheTableAtTheNextOnesHead) {
  // Table II's caption ends the left column, its table heads the right one; table III, with its own
  // caption, ends the right column level with table II's caption.
  auto out = ParseModelOutput(B("0 880 480 920", "table_caption", "TABLE II") +
                              B("520 0 1000 150", "table", "") + B("520 160 1000 780", "text", "prose") +
                              B("520 800 1000 820", "table_caption", "TABLE III") +
                              B("520 830 1000 950", "table", ""));
  ASSERT_EQ(out.blocks.size(), 5u);
  EXPECT_EQ(out.blocks[0].parent, 1);
  EXPECT_EQ(out.blocks[3].parent, 4);
}

TEST(ModelOutputParserTest, ACaptionNumberedApartFromItsNearestTablesOwnIsNotItsCaption) {
  // Table 1 under its caption; at the page's foot the caption of table 2, whose table is on the next page.
  auto out = ParseModelOutput(B("0 100 480 120", "table_caption", "Table 1: Results.") +
                              B("0 130 480 300", "table", "") + B("0 310 1000 900", "text", "prose") +
                              B("0 950 1000 970", "table_caption", "Table 2: Timings."));
  ASSERT_EQ(out.blocks.size(), 4u);
  EXPECT_EQ(out.blocks[0].parent, 1);
  EXPECT_EQ(out.blocks[3].parent, -1);
  // A caption of two blocks (its label's number on the first only) stays the table's.
  auto two = ParseModelOutput(B("0 100 480 120", "table_caption", "Table 1: Results.") +
                              B("0 125 480 135", "table_caption", "(in millions)") +
                              B("0 140 480 300", "table", ""));
  ASSERT_EQ(two.blocks.size(), 3u);
  EXPECT_EQ(two.blocks[0].parent, 2);
  EXPECT_EQ(two.blocks[1].parent, 2);
}

TEST(ModelOutputParserTest, BuildVlmPageCropsAndKeepsTheRawText) {
  RgbImage render;
  render.width = 170;
  render.height = 220;
  render.pixels.assign(170 * 220 * 3, 200);
  std::string text = B("100 100 500 400", "image", "") + "\n" + B("100 410 500 430", "image_caption", "Fig") +
                     "\n" + B("100 500 900 600", "text", "cut", "<|im_end|>");
  ParsedDocument doc;
  doc.backend = "vlm";
  PageResult page = BuildVlmPage(3, 612, 792, text, render, doc);
  EXPECT_EQ(page.page_idx, 3);
  EXPECT_EQ(page.model_output, text);
  ASSERT_EQ(page.blocks.size(), 3u);
  EXPECT_FALSE(page.blocks[0].image_path.empty());
  EXPECT_EQ(doc.images.count(page.blocks[0].image_path), 1u);
  EXPECT_EQ(page.blocks[1].parent, 0);
  ASSERT_EQ(page.warnings.size(), 1u);
  EXPECT_NE(page.warnings[0].find("truncated"), std::string::npos);
}

// Random garbage and random edits of a valid output: never a crash, every box inside the frame.
TEST(ModelOutputParserTest, GarbageNeverCrashes) {
  std::string valid = B("100 050 900 080", "title", "# T") +
                      B("100 100 900 200", "table", "<fcel>a<lcel><nl><ucel><xcel><nl>") +
                      B("1 2 3 4", "text", "x<|txt_contd|>") + B("5 6 7 8", "text", "y");
  const std::string pieces[] = {"<|box_start|>",
                                "<|box_end|>",
                                "<|ref_start|>",
                                "<|ref_end|>",
                                "<|md_start|>",
                                "<|md_end|>",
                                "<|im_end|>",
                                "<|txt_contd|>",
                                "<fcel>",
                                "<lcel>",
                                "<ucel>",
                                "<xcel>",
                                "<nl>",
                                "999",
                                "-1",
                                "\\(",
                                "\\]",
                                "#",
                                "\n",
                                "\xff\xfe"};
  std::mt19937 rng(1234);
  for (int round = 0; round < 3000; ++round) {
    std::string s = valid;
    int edits = 1 + static_cast<int>(rng() % 8);
    for (int e = 0; e < edits; ++e) {
      size_t pos = s.empty() ? 0 : rng() % s.size();
      switch (rng() % 3) {
        case 0:
          s.insert(pos, pieces[rng() % std::size(pieces)]);
          break;
        case 1:
          s.erase(pos, rng() % 12);
          break;
        default:
          if (!s.empty()) s[pos] = static_cast<char>(rng() % 256);
      }
    }
    ParsedModelOutput out = ParseModelOutput(s);
    EXPECT_LE(out.warnings.size(), 51u);
    for (const Block& b : out.blocks) {
      ASSERT_GE(b.bbox.x0, 0);
      ASSERT_LE(b.bbox.x1, 1000);
      ASSERT_LE(b.bbox.x0, b.bbox.x1);
      ASSERT_LE(b.bbox.y0, b.bbox.y1);
      if (b.type == BlockType::kTitle) {
        ASSERT_GE(b.title_level, 1);
        ASSERT_LE(b.title_level, 4);
      }
      ASSERT_LT(b.parent, static_cast<int>(out.blocks.size()));
    }
  }
}

}  // namespace
}  // namespace mineru::document
