// Tables drawn with ruling lines: horizontal and vertical segments that cross form a grid; a missing
// boundary between two grid cells merges them (colspan / rowspan). The text characters inside each cell
// become its content. Tables without vertical rules are left to the text layout.
#pragma once

#include <string>
#include <vector>

#include "document/text_lines.h"

namespace mineru::document {

struct RuledTable {
  Rect box;
  int num_rows = 0;
  int num_cols = 0;
  std::string html;                  // <table><tr><td ...>...</td></tr></table>
  std::vector<size_t> line_indices;  // lines of the page whose text went into the table
};

std::vector<RuledTable> FindRuledTables(const std::vector<RulingSegment>& rules,
                                        const std::vector<TextLine>& lines);

}  // namespace mineru::document
