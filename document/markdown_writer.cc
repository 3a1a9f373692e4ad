// NAME.md: blocks joined by a blank line, in reading order, page after page. Titles '#' x level, display
// math between "$$" lines, tables as HTML with their caption above and footnotes below, images as
// ![](images/<hash>.jpg) followed by their captions and footnotes. Captions and footnotes paired with a
// body are written with it; unpaired ones as plain text. Pages that need OCR or failed leave an HTML
// comment so the gap is visible.
#include <string>

#include "document/output_writer.h"

namespace mineru::document {
namespace {

void AddPart(std::string& md, const std::string& part) {
  if (part.empty()) return;
  if (!md.empty()) md += "\n\n";
  md += part;
}

std::string Captions(const PageResult& page, size_t body, BlockType kind) {
  std::string out;
  for (const Block& b : page.blocks) {
    if (b.type == kind && b.parent == static_cast<int>(body) && !b.content.empty()) {
      if (!out.empty()) out += "\n\n";
      out += b.content;
    }
  }
  return out;
}

bool IsPairedCaption(const PageResult& page, const Block& b) {
  bool caption_kind = b.type == BlockType::kImageCaption || b.type == BlockType::kImageFootnote ||
                      b.type == BlockType::kTableCaption || b.type == BlockType::kTableFootnote;
  return caption_kind && b.parent >= 0 && static_cast<size_t>(b.parent) < page.blocks.size();
}

}  // namespace

std::string WriteMarkdown(const ParsedDocument& doc) {
  std::string md;
  for (const PageResult& page : doc.pages) {
    if (page.status != PageStatus::kOk) {
      std::string why = page.error.empty() ? std::string(PageStatusName(page.status)) : page.error;
      AddPart(md, "<!-- page " + std::to_string(page.page_idx + 1) + ": " + why + " -->");
      continue;
    }
    for (size_t i = 0; i < page.blocks.size(); ++i) {
      const Block& b = page.blocks[i];
      if (IsPairedCaption(page, b)) continue;
      switch (b.type) {
        case BlockType::kTitle:
          if (!b.content.empty())
            AddPart(md, std::string(static_cast<size_t>(std::max(1, b.title_level)), '#') + " " + b.content);
          break;
        case BlockType::kEquation:
          if (!b.content.empty()) AddPart(md, "$$\n" + b.content + "\n$$");
          break;
        case BlockType::kImage:
          if (!b.image_path.empty()) AddPart(md, "![](" + b.image_path + ")");
          AddPart(md, Captions(page, i, BlockType::kImageCaption));
          AddPart(md, Captions(page, i, BlockType::kImageFootnote));
          break;
        case BlockType::kTable:
          AddPart(md, Captions(page, i, BlockType::kTableCaption));
          if (b.content.starts_with("<table")) {
            AddPart(md, b.content);
          } else if (!b.image_path.empty()) {
            AddPart(md, "![](" + b.image_path + ")");
          } else {
            AddPart(md, b.content);
          }
          AddPart(md, Captions(page, i, BlockType::kTableFootnote));
          break;
        default:
          AddPart(md, b.content);
      }
    }
  }
  if (!md.empty()) md += "\n";
  return md;
}

}  // namespace mineru::document
