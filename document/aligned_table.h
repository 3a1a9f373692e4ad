// Tables drawn without ruling lines (spreadsheets, plain layouts): three or more consecutive rows of two
// or more short cells on one baseline whose x ranges fall into the same columns. A cell is a text line,
// or a piece of one set apart by a gap of at least its size (columns set apart by spaces in one line).
// Columns are split by gutters: x ranges that no cell covers in at least three quarters of the rows (four
// or more rows; all of them for three), each column holding cells of its own; a cell across a gutter is
// a header over those columns (colspan). Long lines (running text, two-column prose) never form such a
// table, and some column must be mostly numbers, or else the rows are a table of text told by a bold
// header over every column and flush-left columns (IsTextTable in the source).
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "document/ruling_table.h"
#include "document/text_lines.h"

namespace mineru::document {

inline constexpr size_t kMinRows = 3;        // rows of a table without rules, at least
inline constexpr size_t kMaxCellChars = 40;  // characters of one of its cells (a row's label excepted)

// A line's cells: pieces split at gaps of at least the line's size (the whole line when there is none),
// left to right. A right-to-left line is cut where its glyphs, taken by x, stand apart, each piece with
// the characters that stand in it in logical order.
struct AlignedPiece {
  double x0 = 0, x1 = 0;
  std::string text;
};
std::vector<AlignedPiece> SplitAtColumnGaps(const TextLine& line);

// The column gutters (x0, x1) of rows of cells (only x0 and x1 are read), left to right.
std::vector<std::pair<double, double>> FindColumnGutters(const std::vector<std::vector<AlignedPiece>>& rows);

// Tables among `lines` that are not already `used` (e.g. taken by a ruled table); `page` bounds the
// lengths that count as short.
std::vector<RuledTable> FindAlignedTables(const std::vector<TextLine>& lines, const std::vector<bool>& used,
                                          const Rect& page);

// Tables drawn with horizontal rules only (a top rule, a rule under the header, a bottom rule): rules of
// the same extent stacked; the bands between consecutive ones whose lines are all short cells (at most
// 80 characters, half the rows of two cells or more) form one table, its columns from the gutters of all
// its rows (FindColumnGutters; no numeric column needed: the rules say it is a table), a cell across a
// gutter spanning those columns, and a row that leaves the first column empty and fills at most half as
// many columns as the row above continuing that row's cells (text wrapped inside its cells). Rules with
// vertical rules between them are a grid (FindRuledTables; a frame's sides are none), and text over one
// of the `images` is its labels: neither is read here.
std::vector<RuledTable> FindRuleBandTables(const std::vector<RulingSegment>& rules,
                                           const std::vector<TextLine>& lines, const std::vector<bool>& used,
                                           const std::vector<Rect>& images, const Rect& page);

}  // namespace mineru::document
