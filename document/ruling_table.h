// Tables drawn with ruling lines: horizontal and vertical segments that cross form a grid; a missing
// boundary between two grid cells merges them (colspan / rowspan). The words inside each cell become its
// content (a word across a rule goes whole to the cell holding most of it). The edges of shaded cells
// count as rules; rules that run past the outermost crossing rule (a table without its outer frame) add
// the outermost columns; columns the grid draws no rule between are its cells' whitespace gutters (a
// frame with rules between its rows only). Tables without vertical rules, and frames whose rows are not
// ruled either, are left to the text layout.
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

// The edges of shaded table cells as rules: filled rectangles that tile with at least one other (share an
// edge, or leave a gap of a hairline), each smaller than 90% of the page's width and half its height (a
// page or column background is not a cell). A shaded box alone, or bars apart from each other, add
// nothing. The result goes with the drawn rules into FindRuledTables. Groups of tiles as wide as each
// other and at most three rows apart, with no line between them set at their sides (rows shaded in
// turn, cell by cell) are stripes of one table: the cell sides they share are columns across the
// unshaded rows between them, and under the last one down to a drawn rule across the table (`rules`:
// its frame) within three rows. A group alone whose table goes on in unshaded rows under it (the line
// right under it holds cells under its bottom cells: a shaded header) gives its rows' edges only; the
// columns are then the whitespace's to find.
std::vector<RulingSegment> CellFillEdges(const std::vector<Rect>& fills,
                                         const std::vector<RulingSegment>& rules,
                                         const std::vector<TextLine>& lines, const Rect& page);
// The top and bottom edges of shaded rows as horizontal rules: filled rectangles at least 15% of the
// page's width (as a rule must be), a shaded header row at most kMaxShadedRowHeight high, zebra stripes
// (rows shaded in turn: two or more of one extent, a row or two apart) at most kMaxStripeHeight. Under a
// zebra run's last stripe, the bottom of the table's last row when it is unshaded, told by `lines`: a
// line as far under the stripe as the run's unshaded rows start under theirs, with cells in two
// columns, and the lines close under it. The edges bound bands for FindRuleBandTables (aligned_table.h)
// as drawn rules do.
inline constexpr double kMaxShadedRowHeight = 40;  // points: three lines of a table's text
inline constexpr double kMaxStripeHeight = 100;    // points: eight lines of a table's text
std::vector<RulingSegment> ShadedRowEdges(const std::vector<Rect>& fills, const std::vector<TextLine>& lines,
                                          const Rect& page);

std::vector<RuledTable> FindRuledTables(const std::vector<RulingSegment>& rules,
                                        const std::vector<TextLine>& lines);

}  // namespace mineru::document
