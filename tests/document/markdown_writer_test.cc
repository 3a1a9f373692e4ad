#include <gtest/gtest.h>

#include "document/output_writer.h"

namespace mineru::document {
namespace {

Block Make(BlockType type, std::string content, int parent = -1) {
  Block b;
  b.type = type;
  b.bbox = {100, 100, 900, 200};
  b.content = std::move(content);
  b.parent = parent;
  return b;
}

// One document with every block type, written by hand the way MinerU lays it out.
ParsedDocument EveryType() {
  ParsedDocument doc;
  doc.backend = "vlm";
  doc.num_pages = 3;
  PageResult p0;
  p0.page_idx = 0;
  p0.width_pt = 612;
  p0.height_pt = 792;
  Block title = Make(BlockType::kTitle, "Main title");
  title.title_level = 1;
  Block sub = Make(BlockType::kTitle, "Section");
  sub.title_level = 2;
  p0.blocks = {title, sub, Make(BlockType::kText, "Inline $x^2$ math."),
               Make(BlockType::kEquation, "E = mc^2")};
  Block image = Make(BlockType::kImage, "");
  image.image_path = "images/aa.jpg";
  p0.blocks.push_back(image);                                               // 4
  p0.blocks.push_back(Make(BlockType::kImageCaption, "Figure 1: cap", 4));  // 5
  p0.blocks.push_back(Make(BlockType::kImageFootnote, "Image note", 4));    // 6
  p0.blocks.push_back(Make(BlockType::kTableFootnote, "Table note", 9));    // 7: written after its table
  p0.blocks.push_back(Make(BlockType::kTableCaption, "Table 1: cap", 9));   // 8
  Block table = Make(BlockType::kTable, "<table><tr><td>1</td></tr></table>");
  table.image_path = "images/bb.jpg";
  p0.blocks.push_back(table);  // 9
  p0.blocks.push_back(Make(BlockType::kList, "- a\n- b"));
  p0.blocks.push_back(Make(BlockType::kIndex, "Alpha, 3"));
  p0.blocks.push_back(Make(BlockType::kImageCaption, "Orphan caption"));
  PageResult p1;
  p1.page_idx = 1;
  p1.status = PageStatus::kNeedsOcr;
  p1.error = "needs OCR or a model: the page has no text layer";
  PageResult p2;
  p2.page_idx = 2;
  Block t2 = Make(BlockType::kTable, "a | b");  // a table the model did not write as OTSL
  t2.image_path = "images/cc.jpg";
  p2.blocks = {t2, Make(BlockType::kText, "Last.")};
  doc.pages = {p0, p1, p2};
  return doc;
}

TEST(MarkdownWriterTest, EveryBlockType) {
  const char* expected =
      "# Main title\n\n"
      "## Section\n\n"
      "Inline $x^2$ math.\n\n"
      "$$\nE = mc^2\n$$\n\n"
      "![](images/aa.jpg)\n\n"
      "Figure 1: cap\n\n"
      "Image note\n\n"
      "Table 1: cap\n\n"
      "<table><tr><td>1</td></tr></table>\n\n"
      "Table note\n\n"
      "- a\n- b\n\n"
      "Alpha, 3\n\n"
      "Orphan caption\n\n"
      "<!-- page 2: needs OCR or a model: the page has no text layer -->\n\n"
      "![](images/cc.jpg)\n\n"
      "Last.\n";
  EXPECT_EQ(WriteMarkdown(EveryType()), expected);
}

TEST(MarkdownWriterTest, EmptyDocumentIsEmpty) {
  ParsedDocument doc;
  EXPECT_EQ(WriteMarkdown(doc), "");
}

TEST(MarkdownWriterTest, ImageWithoutCropWritesOnlyCaptions) {
  ParsedDocument doc;
  PageResult p;
  p.blocks = {Make(BlockType::kImage, ""), Make(BlockType::kImageCaption, "cap", 0)};
  doc.pages = {p};
  EXPECT_EQ(WriteMarkdown(doc), "cap\n");
}

}  // namespace
}  // namespace mineru::document
