// The MinerU 2.0 model-output parser: the VLM's text for one page -> blocks.
//
// Grammar (one block per line, reading order):
//   <|box_start|>x0 y0 x1 y1<|box_end|><|ref_start|>TYPE<|ref_end|><|md_start|>CONTENT<|md_end|>
// The last block may end with <|im_end|> (truncation). Text ending in <|txt_contd|> continues into the next
// text block; titles carry '#' x level (clamped 1..4); inline math \( \) becomes $ $; equations lose \[ \];
// OTSL tables become HTML; captions and footnotes are paired with the nearest image / table body.
// Garbage never crashes the parser: what can be recovered is returned, the rest is reported in warnings.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "document/block.h"
#include "document/rgb_image.h"

namespace mineru::document {

struct ParsedModelOutput {
  std::vector<Block> blocks;
  std::vector<std::string> warnings;
  bool truncated = false;  // the output ended without <|md_end|> / ended in <|im_end|>
};

ParsedModelOutput ParseModelOutput(std::string_view text);

// The VLM backend's page: parses `model_text`, keeps it as the page's raw model output, turns parser
// warnings into page warnings, and crops image / table / equation blocks from `page_render` (the 200-DPI
// render the model saw) into `doc.images`. `width_pt` / `height_pt` are the page size in points.
PageResult BuildVlmPage(int page_idx, double width_pt, double height_pt, std::string model_text,
                        const RgbImage& page_render, ParsedDocument& doc, int jpeg_quality = 90);

// OTSL (<fcel> <ecel> <lcel> <ucel> <xcel> <nl>) -> <table>...</table> with colspan / rowspan. Text with no
// <fcel> or <ecel> is returned unchanged.
std::string OtslToHtml(std::string_view otsl);

// Pairs every caption / footnote block with the nearest body of its kind (sets Block::parent); a body
// given two of one kind yields one to a body next to it in reading order that has none, and of two
// captions numbered apart ("Table 1", "Table 2") keeps the nearer.
void PairCaptions(std::vector<Block>& blocks);

}  // namespace mineru::document
