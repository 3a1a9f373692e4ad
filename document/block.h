// The block model shared by both backends (text layer and VLM): a document is a list of pages, a page is
// a list of blocks in reading order. Every bbox is in the 0-1000 page frame MinerU's model uses
// (x to the right, y down, origin at the top-left of the page as displayed).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace mineru::document {

// The MinerU 2.0 block types.
enum class BlockType {
  kText,
  kTitle,
  kImage,
  kImageCaption,
  kImageFootnote,
  kTable,
  kTableCaption,
  kTableFootnote,
  kEquation,
  kList,
  kIndex,
};

// "text", "title", "image", "image_caption", ... as the model writes them.
std::string_view BlockTypeName(BlockType type);
std::optional<BlockType> ParseBlockType(std::string_view name);
// image, table and equation blocks get a JPEG crop in images/.
bool BlockTypeHasCrop(BlockType type);

// A box in the 0-1000 page frame; x0 <= x1 and y0 <= y1 once normalised.
struct BBox {
  int x0 = 0;
  int y0 = 0;
  int x1 = 0;
  int y1 = 0;
  int width() const { return x1 - x0; }
  int height() const { return y1 - y0; }
  bool empty() const { return x1 <= x0 || y1 <= y0; }
  friend bool operator==(const BBox&, const BBox&) = default;
};
// Swaps reversed corners and clamps to [0, 1000].
BBox NormalizeBBox(BBox box);
// A box of a page read turned `degrees` clockwise (0, 90, 180, 270), in the page's own frame.
BBox TurnBack(BBox box, int degrees);

struct Block {
  BlockType type = BlockType::kText;
  BBox bbox;
  // text, list, index, captions, footnotes: Markdown with inline math as `$...$`.
  // title: the heading text without '#'. equation: LaTeX without delimiters.
  // table: HTML (<table>...</table>), or the model's text when it was not OTSL. image: empty.
  std::string content;
  int title_level = 0;     // 1..4 for kTitle, 0 otherwise
  int parent = -1;         // captions and footnotes: index (in this page) of the image/table they belong to
  std::string image_path;  // "images/<sha256>.jpg" once cropped (image, table, equation); else empty
  bool ocr = false;        // read from the page's pixels by OCR (text backend), not from its text layer
};

enum class PageStatus {
  kOk,
  kNeedsOcr,  // no text layer and no model: "needs OCR or a model"
  kFailed,    // MuPDF failed on this page; `error` says why
};
std::string_view PageStatusName(PageStatus status);

struct PageResult {
  int page_idx = 0;
  double width_pt = 0;  // as displayed (after /Rotate)
  double height_pt = 0;
  PageStatus status = PageStatus::kOk;
  std::string error;
  std::vector<Block> blocks;
  std::vector<std::string> warnings;  // MuPDF warnings and parser warnings for this page
  std::string model_output;           // raw model text (VLM backend only)
};

struct ParsedDocument {
  std::string backend;  // "text" or "vlm"
  int num_pages = 0;    // pages in the file (pages.size() may be smaller when cancelled)
  std::vector<PageResult> pages;
  std::vector<std::string> warnings;  // document-level MuPDF warnings
  // JPEG crops keyed by their path ("images/<sha256>.jpg"), shared by every block that names them.
  std::map<std::string, std::vector<uint8_t>> images;
};

}  // namespace mineru::document
