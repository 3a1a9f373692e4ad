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

namespace mineru::document {

struct ParsedModelOutput {
  std::vector<Block> blocks;
  std::vector<std::string> warnings;
  bool truncated = false;  // the output ended without <|md_end|> / ended in <|im_end|>
};

ParsedModelOutput ParseModelOutput(std::string_view text);

// OTSL (<fcel> <ecel> <lcel> <ucel> <xcel> <nl>) -> <table>...</table> with colspan / rowspan. Text with no
// <fcel> or <ecel> is returned unchanged.
std::string OtslToHtml(std::string_view otsl);

// Pairs every caption / footnote block with the nearest body of its kind (sets Block::parent).
void PairCaptions(std::vector<Block>& blocks);

}  // namespace mineru::document
