#include "document/hyphen_join.h"

#include <gtest/gtest.h>

#include "document/output_writer.h"
#include "document/text_backend.h"
#include "tests/document/test_pdf.h"

namespace mineru::document {
namespace {

using testing::MakePdf;
using testing::TextAt;

Block Text(const std::string& s, BlockType type = BlockType::kText) {
  Block b;
  b.type = type;
  b.content = s;
  return b;
}

TEST(HyphenJoinTest, TheRestOfTheWordMovesBack) {
  Block a = Text("was well tolerated and its tolerabil-");
  Block b = Text("ity was good.");
  EXPECT_TRUE(JoinHyphenatedWord(a, b));
  EXPECT_EQ(a.content, "was well tolerated and its tolerability");
  EXPECT_EQ(b.content, "was good.");
}

TEST(HyphenJoinTest, OnlyAWordBrokenBeforeALowerCaseLetter) {
  for (auto [first, second] : std::vector<std::pair<std::string, std::string>>{
           {"see pages 3-", "5 of the report"},  // a range, not a word
           {"the well-", "Known results"},       // a capital: a new sentence or a name
           {"a list -", "item"},                 // a dash after a space
           {"the end.", "next paragraph"},       // no hyphen
       }) {
    Block a = Text(first), b = Text(second);
    EXPECT_FALSE(JoinHyphenatedWord(a, b)) << first;
    EXPECT_EQ(a.content, first);
    EXPECT_EQ(b.content, second);
  }
  Block title = Text("tolerabil-", BlockType::kTitle), b = Text("ity");
  EXPECT_FALSE(JoinHyphenatedWord(title, b));
}

TEST(HyphenJoinTest, AcrossAFigureWithinAPageAndAcrossAPage) {
  std::vector<Block> page = {Text("the drug's tolerabil-"), Text("", BlockType::kImage),
                             Text("Figure 1. Doses", BlockType::kImageCaption), Text("ity. Next, the pa-")};
  std::vector<Block> next = {Text("", BlockType::kTable), Text("tients were seen")};
  JoinHyphenatedWords(page);
  ASSERT_EQ(page.size(), 4u);
  EXPECT_EQ(page[0].content, "the drug's tolerability.");
  EXPECT_EQ(page[3].content, "Next, the pa-");
  JoinHyphenatedWordsAcrossPages(page, next);
  EXPECT_EQ(page[3].content, "Next, the patients");
  EXPECT_EQ(next[1].content, "were seen");
  // A block that was only the rest of the word is removed; a caption after it keeps its table.
  std::vector<Block> two = {Text("tolerabil-"), Text("ity"), Text("", BlockType::kTable),
                            Text("Table 1. Doses", BlockType::kTableCaption)};
  two[3].parent = 2;
  JoinHyphenatedWords(two);
  ASSERT_EQ(two.size(), 3u);
  EXPECT_EQ(two[0].content, "tolerability");
  EXPECT_EQ(two[2].parent, 1);
  // A title between the halves ends the paragraph.
  std::vector<Block> titled = {Text("tolerabil-"), Text("Methods", BlockType::kTitle), Text("ity")};
  JoinHyphenatedWords(titled);
  EXPECT_EQ(titled[0].content, "tolerabil-");
}

// Two columns on page 1, the right one going on to page 2: both breaks fall inside a hyphenated word.
TEST(HyphenJoinTest, ColumnAndPageBreaksInARealDocument) {
  std::string p1, p2;
  const char* left[] = {"The patients in this study were given", "the drug twice daily for a month and",
                        "its tolerabil-"};
  const char* right[] = {"ity was good in every group that we", "followed, with few side effects or pa-"};
  double y = 600;
  for (const char* l : left) {
    p1 += TextAt(72, y, 10, l);
    y -= 12;
  }
  y = 600;
  for (const char* l : right) {
    p1 += TextAt(320, y, 10, l);
    y -= 12;
  }
  p2 += TextAt(72, 600, 10, "tients leaving the study early.");
  p2 += TextAt(72, 588, 10, "The second paragraph follows here.");
  auto parsed = ParseWithTextLayer(MakePdf({{p1}, {p2}}), {}, {});
  ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
  std::string md = WriteMarkdown(*parsed);
  EXPECT_NE(md.find("its tolerability"), std::string::npos) << md;
  EXPECT_NE(md.find("side effects or patients"), std::string::npos) << md;
  EXPECT_EQ(md.find("tolerabil-"), std::string::npos) << md;
  EXPECT_NE(md.find("\nwas good in every group"), std::string::npos) << md;
  EXPECT_NE(md.find("leaving the study early."), std::string::npos) << md;
}

// A paragraph whose last line on page 1 fills its measure (the widest line) without ending a sentence,
// a footnote set smaller under it; page 2 goes on in lower case: one paragraph, on page 1, the note after
// it. Indented on page 2, or after a full stop on page 1, the text is two paragraphs.
TEST(HyphenJoinTest, AParagraphBrokenByAPageBreakIsOneParagraph) {
  for (const char* variant : {"joined", "indented", "sentence"}) {
    const std::string v = variant;
    std::string p1 = TextAt(72, 600, 10, "The patients in this study were given the drug");
    p1 += TextAt(72, 588, 10, "twice daily for a month, and the doses were raised");
    p1 += TextAt(72, 576, 10,
                 v == "sentence" ? "slowly while the side effects were noted and cured."
                                 : "slowly while the side effects were noted in the study of");
    p1 += TextAt(72, 90, 7, "1 The doses are listed in the appendix.");
    std::string p2 = TextAt(v == "indented" ? 92 : 72, 600, 10, "every patient who stayed to its end.");
    p2 += TextAt(72, 570, 10, "A second paragraph follows here.");
    auto parsed = ParseWithTextLayer(MakePdf({{p1}, {p2}}), {}, {});
    ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
    ASSERT_EQ(parsed->pages.size(), 2u);
    const std::string md = WriteMarkdown(*parsed);
    const bool joined = v == "joined";
    EXPECT_EQ(md.find("study of every patient") != std::string::npos, joined) << v << "\n" << md;
    EXPECT_EQ(parsed->pages[1].blocks.size(), joined ? 1u : 2u) << v;
    if (joined) {
      EXPECT_LT(md.find("every patient"), md.find("1 The doses")) << md;
    }
  }
}

}  // namespace
}  // namespace mineru::document
