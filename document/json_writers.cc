// NAME_content_list.json, NAME_middle.json and NAME_model_output.txt.
//
// content_list: a flat list in reading order, the items MinerU writes (text with text_level for titles,
// equation, image, table), each with page_idx and a 0-1000 bbox; list and index blocks are text items.
// Pages that need OCR or failed add a {"type":"page_note"} item so consumers see the gap.
// middle: one entry per page (page_idx, page_size in points, status, warnings) with para_blocks whose
// bboxes are in PDF points by MinerU's rule x = int(v * width / 1000). Blocks read by OCR carry "ocr": true
// in both.
#include <nlohmann/json.hpp>

#include "document/output_writer.h"

namespace mineru::document {
namespace {

using nlohmann::json;

json BBoxJson(const BBox& b) { return json::array({b.x0, b.y0, b.x1, b.y1}); }

json PointsJson(const BBox& b, const PageResult& page) {
  auto px = [&](int v) { return static_cast<int>(v * page.width_pt / 1000.0); };
  auto py = [&](int v) { return static_cast<int>(v * page.height_pt / 1000.0); };
  return json::array({px(b.x0), py(b.y0), px(b.x1), py(b.y1)});
}

json CaptionList(const PageResult& page, size_t body, BlockType kind) {
  json list = json::array();
  for (const Block& b : page.blocks) {
    if (b.type == kind && b.parent == static_cast<int>(body)) list.push_back(b.content);
  }
  return list;
}

bool IsPaired(const PageResult& page, const Block& b) {
  bool caption_kind = b.type == BlockType::kImageCaption || b.type == BlockType::kImageFootnote ||
                      b.type == BlockType::kTableCaption || b.type == BlockType::kTableFootnote;
  return caption_kind && b.parent >= 0 && static_cast<size_t>(b.parent) < page.blocks.size();
}

std::string Dump(const json& j) {
  // Invalid UTF-8 from a PDF is replaced, never a reason to fail.
  return j.dump(2, ' ', false, json::error_handler_t::replace) + "\n";
}

}  // namespace

std::string WriteContentList(const ParsedDocument& doc) {
  json items = json::array();
  for (const PageResult& page : doc.pages) {
    if (page.status != PageStatus::kOk) {
      items.push_back({{"type", "page_note"},
                       {"status", std::string(PageStatusName(page.status))},
                       {"text", page.error},
                       {"page_idx", page.page_idx}});
      continue;
    }
    for (size_t i = 0; i < page.blocks.size(); ++i) {
      const Block& b = page.blocks[i];
      if (IsPaired(page, b)) continue;
      json item;
      switch (b.type) {
        case BlockType::kImage:
          item = {{"type", "image"},
                  {"img_path", b.image_path},
                  {"img_caption", CaptionList(page, i, BlockType::kImageCaption)},
                  {"img_footnote", CaptionList(page, i, BlockType::kImageFootnote)}};
          break;
        case BlockType::kTable:
          item = {{"type", "table"},
                  {"img_path", b.image_path},
                  {"table_caption", CaptionList(page, i, BlockType::kTableCaption)},
                  {"table_footnote", CaptionList(page, i, BlockType::kTableFootnote)},
                  {"table_body", b.content}};
          break;
        case BlockType::kEquation:
          item = {{"type", "equation"}, {"text", "$$\n" + b.content + "\n$$"}, {"text_format", "latex"}};
          if (!b.image_path.empty()) item["img_path"] = b.image_path;
          break;
        case BlockType::kTitle:
          item = {{"type", "text"}, {"text", b.content}, {"text_level", b.title_level}};
          break;
        default:
          item = {{"type", "text"}, {"text", b.content}};
      }
      item["bbox"] = BBoxJson(b.bbox);
      item["page_idx"] = page.page_idx;
      if (b.ocr) item["ocr"] = true;
      items.push_back(std::move(item));
    }
  }
  return Dump(items);
}

std::string WriteMiddleJson(const ParsedDocument& doc) {
  json pdf_info = json::array();
  for (const PageResult& page : doc.pages) {
    json blocks = json::array();
    for (size_t i = 0; i < page.blocks.size(); ++i) {
      const Block& b = page.blocks[i];
      json span = {{"bbox", PointsJson(b.bbox, page)}, {"type", std::string(BlockTypeName(b.type))}};
      if (BlockTypeHasCrop(b.type) && !b.image_path.empty()) span["image_path"] = b.image_path;
      if (b.type == BlockType::kTable) span["html"] = b.content;
      if (b.type != BlockType::kImage && b.type != BlockType::kTable) span["content"] = b.content;
      json block = {
          {"type", std::string(BlockTypeName(b.type))},
          {"bbox", PointsJson(b.bbox, page)},
          {"bbox_1000", BBoxJson(b.bbox)},
          {"index", i},
          {"lines", json::array({{{"bbox", PointsJson(b.bbox, page)}, {"spans", json::array({span})}}})}};
      if (b.type == BlockType::kTitle) block["level"] = b.title_level;
      if (b.parent >= 0) block["parent_index"] = b.parent;
      if (b.ocr) block["ocr"] = true;
      blocks.push_back(std::move(block));
    }
    json entry = {{"page_idx", page.page_idx},
                  {"page_size", json::array({page.width_pt, page.height_pt})},
                  {"status", std::string(PageStatusName(page.status))},
                  {"para_blocks", std::move(blocks)},
                  {"discarded_blocks", json::array()},
                  {"warnings", page.warnings}};
    if (!page.error.empty()) entry["error"] = page.error;
    pdf_info.push_back(std::move(entry));
  }
  json root = {{"pdf_info", std::move(pdf_info)},
               {"_backend", doc.backend},
               {"_num_pages", doc.num_pages},
               {"_warnings", doc.warnings}};
  return Dump(root);
}

std::string WriteModelOutput(const ParsedDocument& doc) {
  std::string out;
  for (size_t i = 0; i < doc.pages.size(); ++i) {
    if (i > 0) out += "\n" + std::string(50, '-') + "\n";
    out += doc.pages[i].model_output;
  }
  return out;
}

}  // namespace mineru::document
