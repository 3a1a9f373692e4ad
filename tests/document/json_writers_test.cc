#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "document/output_writer.h"

namespace mineru::document {
namespace {

using nlohmann::json;

ParsedDocument Sample() {
  ParsedDocument doc;
  doc.backend = "vlm";
  doc.num_pages = 2;
  PageResult p;
  p.page_idx = 0;
  p.width_pt = 600;
  p.height_pt = 800;
  p.model_output = "<|box_start|>1 2 3 4<|box_end|>...";
  Block title{BlockType::kTitle, {10, 20, 990, 60}, "Heading", 2, -1, ""};
  Block text{BlockType::kText, {10, 70, 990, 200}, "Body.", 0, -1, ""};
  Block eq{BlockType::kEquation, {10, 210, 990, 260}, "a=b", 0, -1, "images/eq.jpg"};
  Block image{BlockType::kImage, {100, 300, 501, 600}, "", 0, -1, "images/im.jpg"};
  Block cap{BlockType::kImageCaption, {100, 610, 500, 630}, "Figure 1", 0, 3, ""};
  Block table{BlockType::kTable, {100, 650, 900, 900}, "<table><tr><td>x</td></tr></table>", 0, -1,
              "images/tb.jpg"};
  Block tcap{BlockType::kTableCaption, {100, 640, 900, 649}, "Table 1", 0, 5, ""};
  Block tnote{BlockType::kTableFootnote, {100, 905, 900, 920}, "note", 0, 5, ""};
  Block list{BlockType::kList, {10, 930, 990, 990}, "- a", 0, -1, ""};
  p.blocks = {title, text, eq, image, cap, table, tcap, tnote, list};
  PageResult q;
  q.page_idx = 1;
  q.status = PageStatus::kNeedsOcr;
  q.error = "needs OCR or a model: the page has no text layer";
  q.model_output = "second";
  doc.pages = {p, q};
  return doc;
}

TEST(JsonWritersTest, ContentListItems) {
  json items = json::parse(WriteContentList(Sample()));
  ASSERT_TRUE(items.is_array());
  ASSERT_EQ(items.size(), 7u);  // captions and footnotes live inside their bodies
  EXPECT_EQ(
      items[0],
      json::parse(R"({"type":"text","text":"Heading","text_level":2,"bbox":[10,20,990,60],"page_idx":0})"));
  EXPECT_EQ(items[1], json::parse(R"({"type":"text","text":"Body.","bbox":[10,70,990,200],"page_idx":0})"));
  EXPECT_EQ(items[2], json::parse(R"({"type":"equation","text":"$$\na=b\n$$","text_format":"latex",
                                      "img_path":"images/eq.jpg","bbox":[10,210,990,260],"page_idx":0})"));
  EXPECT_EQ(items[3], json::parse(R"({"type":"image","img_path":"images/im.jpg","img_caption":["Figure 1"],
                                      "img_footnote":[],"bbox":[100,300,501,600],"page_idx":0})"));
  EXPECT_EQ(items[4], json::parse(R"({"type":"table","img_path":"images/tb.jpg","table_caption":["Table 1"],
                                      "table_footnote":["note"],"table_body":"<table><tr><td>x</td></tr></table>",
                                      "bbox":[100,650,900,900],"page_idx":0})"));
  EXPECT_EQ(items[5]["type"], "text");
  EXPECT_EQ(items[6], json::parse(R"({"type":"page_note","status":"needs_ocr","page_idx":1,
                                      "text":"needs OCR or a model: the page has no text layer"})"));
}

TEST(JsonWritersTest, MiddleJsonUsesPointsByMinerURule) {
  json mid = json::parse(WriteMiddleJson(Sample()));
  EXPECT_EQ(mid["_backend"], "vlm");
  ASSERT_EQ(mid["pdf_info"].size(), 2u);
  const json& page = mid["pdf_info"][0];
  EXPECT_EQ(page["page_size"], json::parse("[600.0, 800.0]"));
  EXPECT_EQ(page["status"], "ok");
  ASSERT_EQ(page["para_blocks"].size(), 9u);
  // Image bbox 100 300 501 600 on 600 x 800 pt: x = int(v * 600 / 1000), y = int(v * 800 / 1000).
  EXPECT_EQ(page["para_blocks"][3]["bbox"], json::parse("[60, 240, 300, 480]"));
  EXPECT_EQ(page["para_blocks"][3]["lines"][0]["spans"][0]["image_path"], "images/im.jpg");
  EXPECT_EQ(page["para_blocks"][0]["level"], 2);
  EXPECT_EQ(page["para_blocks"][4]["parent_index"], 3);
  EXPECT_EQ(page["para_blocks"][5]["lines"][0]["spans"][0]["html"], "<table><tr><td>x</td></tr></table>");
  EXPECT_EQ(mid["pdf_info"][1]["status"], "needs_ocr");
}

TEST(JsonWritersTest, ModelOutputPagesJoinedByFiftyDashes) {
  EXPECT_EQ(WriteModelOutput(Sample()),
            "<|box_start|>1 2 3 4<|box_end|>...\n--------------------------------------------------\nsecond");
}

TEST(JsonWritersTest, InvalidUtf8IsReplacedNotFatal) {
  ParsedDocument doc = Sample();
  doc.pages[0].blocks[1].content = "bad \xff\xfe bytes";
  json items = json::parse(WriteContentList(doc));
  EXPECT_EQ(items[1]["text"], "bad \xEF\xBF\xBD\xEF\xBF\xBD bytes");
}

}  // namespace
}  // namespace mineru::document
