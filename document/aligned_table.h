// Tables drawn without ruling lines (spreadsheets, plain layouts): three or more consecutive rows of two
// or more short text lines on one baseline whose x ranges fall into the same columns (the gaps of the
// union of their x ranges). Long lines (running text, two-column prose) never form such a table.
#pragma once

#include <vector>

#include "document/ruling_table.h"
#include "document/text_lines.h"

namespace mineru::document {

// Tables among `lines` that are not already `used` (e.g. taken by a ruled table); `page` bounds the
// lengths that count as short.
std::vector<RuledTable> FindAlignedTables(const std::vector<TextLine>& lines, const std::vector<bool>& used,
                                          const Rect& page);

}  // namespace mineru::document
