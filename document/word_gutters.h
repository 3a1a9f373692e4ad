// The columns of a table of text read from its words. A row's cells are first cut where a line has a
// gap of an em (SplitAtColumnGaps), which fails on text set in columns: justified cells stretch their
// spaces past an em ("Ministry      of Fi-"), and columns of text set an em apart or closer run into one
// piece ("Introduce a single applica- Ministry of Fi-"). Across many lines, though, only the gutters
// between columns are clear of words in every row: a cell's spaces fall at other places on every line.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "document/aligned_rows.h"
#include "document/text_lines.h"

namespace mineru::document {

inline constexpr double kWordGutterEm = 0.7;  // a gutter between columns of words is this wide, at least

// A word of a line: glyphs between spaces, or set apart from the glyph before by a gap of 0.3 em with no
// space between (`spaced` false then); a dot leader's dots, spaced or not, are one word.
struct LineWord {
  double x0 = 0, x1 = 0;
  std::string text;
  bool spaced = true;
};

// The words of `line` whose glyphs' middles lie within [x0, x1], in the line's order.
std::vector<LineWord> WordsOf(const TextLine& line, double x0, double x1);

// The gutters (x0, x1), left to right, between the columns of `rows`: x ranges at least kWordGutterEm
// of the rows' common size wide that no word of a counted row crosses (rows centred above
// `header_bottom` do not count, headings over several columns; where that leaves fewer than two, the
// first row does not; nor does a note set smaller under the rows, DropNoteUnder in the source), inside the
// rows' extent, each column between two of them holding words of two rows or more, none of them a justified
// line's stretched space (StretchedSpace in the source). Pieces read right to left, in a monospaced face
// (whose spaces are as wide as a gutter) or drawn over a rule of their own count whole.
std::vector<std::pair<double, double>> WordGutters(const std::vector<TextRow>& rows,
                                                   const std::vector<TextLine>& lines, double header_bottom);

// Cuts `rows`' pieces again at `gutters`: a piece across a gutter is cut at the space in it, and the
// pieces of text of a row within one column of text (no figure but years in it) at most three ems
// apart (a justified line cut at its stretched spaces, or one a line builder split) join into one.
// Figures, cells saying there is none ("\u2013") and dot leaders set apart stay pieces of their own
// (columns of figures may stand closer than a gutter of words), and so do the pieces of the rows
// WordGutters does not count (a header: headings over several columns keep their own extent).
void CutAtWordGutters(std::vector<TextRow>& rows, const std::vector<TextLine>& lines,
                      const std::vector<std::pair<double, double>>& gutters, double header_bottom);

// CutAtWordGutters at the rows' own WordGutters, their words read once.
void CutAtOwnWordGutters(std::vector<TextRow>& rows, const std::vector<TextLine>& lines,
                         double header_bottom);

}  // namespace mineru::document
