// Rows of a table drawn without a full grid of rules (aligned_table.h): text lines sharing a baseline,
// cut into cells at wide gaps, and the rows a wrapped cell left behind joined back to the row they belong
// to.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "document/page_geometry.h"
#include "document/text_lines.h"

namespace mineru::document {

// A cell's text as set on the page: a line, or a piece of one set apart from the rest by a wide gap.
struct RowPiece {
  size_t line = 0;
  double x0 = 0, x1 = 0;
  std::string text;
  int rowspan = 1;  // a header cell reaching down over header lines with nothing under it
  // x0..x1 is the extent of a rule drawn under this heading (a booktabs cmidrule): the columns it spans.
  bool over_rule = false;
  bool leader = false;  // the text ended in a dot leader, cut off ("Wages ........")
  bool bold = false;    // its line is set in a bold face
};

struct TextRow {
  std::vector<RowPiece> pieces;  // left to right
  Rect box;
  std::vector<size_t> joined_lines;  // lines of rows joined into this one (their text is in `pieces`)
};

// Rows: lines (not `used`) sharing a baseline band, top to bottom, each cut into pieces left to right,
// a piece's trailing dot leader cut off.
std::vector<TextRow> BuildRows(const std::vector<TextLine>& lines, const std::vector<bool>& used);

// The column (0 = first) of x between `gutters` (left to right): split at each gutter's middle.
size_t ColumnOf(const std::vector<std::pair<double, double>>& gutters, double x);

// "1,234", "-5.6", "12%", "$3", "(4)", "\u20ac7", "\u22123", "12.5p", "1,234*", "$2.7 billion", "45K",
// "0.81 \u00b1 0.02": digits with number punctuation (a plus-minus sign too), a currency sign before, a
// scale (a word or one capital) and a footnote mark after.
bool IsNumericCell(const std::string& text);

// "2019", "2019-20", "FY 2021": a year, which heads a column or dates a row rather than being a value.
bool IsYearLike(std::string_view text);

// Whether text `below` is the next line of text `above` (a cell wrapped onto it): it starts in lower case,
// or `above` ends open (a hyphen, a comma, "and", "of", ...); neither is a figure.
bool GoesOnFrom(const std::string& above, const std::string& below);

// A book's or report's index entry, or a line of one: page numbers after a comma ("\\printtime, 330",
// "MakeIndex, xxv, 312, 317\u2013321,"), or a wrapped entry's line of page numbers ("157, 190, 243,");
// each an Arabic or lower-case Roman number or a range of them, "12n" or "12f" a note or what follows.
// Not a lone figure, nor a European decimal ("0,8"): there is a comma before a space or at the end.
bool IsIndexEntry(std::string_view text);

// A cell that says it has no value: "-", an en or em dash, "..", "n/a", "NA", "(X)", "*".
bool IsPlaceholderCell(const std::string& text);

// A cell that is a mark: one symbol ("*", "x", a check mark, a ballot box, a bullet or shape, a glyph of
// a private-use area) or one glyph of a symbol font (`font`: Wingdings, Webdings, ZapfDingbats,
// Symbol), as a form or a matrix of options ticks its cells.
bool IsMarkCell(const std::string& text, const std::string& font);

// A heading of a header line: the columns it is over, first to last, and its centre as set.
struct HeadingAt {
  size_t first = 0, last = 0;
  double centre = 0;
};

// The columns each heading of an upper header line is over when the line is one of groups' names: a
// name over one column or a gutter's two (narrower than a column: "Men" centred over three) spans the
// widest run of columns centred on it (within a quarter of the run's width: figures set flush right in
// wide cells stand right of the cells' middles) that no other name of the line is over, each `headed`
// by a heading of its own on the next line; never the first column (the labels'). A line of two names
// or more (a heading over the labels is none) is one of groups' names when one of them is over several
// columns already, or when each of them has such a run (each in the middle of its group; one line of a
// heading wrapped in a column has columns that are no group's); else none (empty). `columns`: each
// column's x range (empty, x0 > x1, where unknown).
std::vector<std::pair<size_t, size_t>> GroupNameRuns(const std::vector<HeadingAt>& names,
                                                     const std::vector<std::pair<double, double>>& columns,
                                                     const std::vector<bool>& headed);

// A table whose rules are drawn between its rows (`rule_ys`: the rules' heights, top to bottom, four or
// more: a header and two rows at least), none down it: the lines between two rules are one row, their
// pieces joined column by column, when they are a row's wrapped cells (the first line has cells in two
// columns or more, each line under it fills fewer columns than the table has and no more than the first,
// and holds no number). Lines between rules that part groups of rows (full rows, figures) stay rows.
void JoinRowsBetweenRules(std::vector<TextRow>& rows, const std::vector<double>& rule_ys,
                          const std::vector<std::pair<double, double>>& gutters);

// Joins the lines of wrapped cells back into their rows, given the columns' `gutters` (left to right).
// A line holding only a label in the first column, or only text (no numbers) under text cells of the row
// above, continues that row when a cue says so: it starts with a lower-case letter, the text it
// continues ends open (a hyphen, a comma, "and", "of", ...), it sits clearly closer to that row than to
// the next, or (a label) it is indented under the label above while the next label is not. A label that
// ends open, or whose next row's label starts in lower case, goes on into the next row instead (labels
// set above their row's values), chains of such lines included. A label ending in ':', or with no cue,
// stays a row (a section's heading); where labels often start in lower case, that start is no cue.
// Header lines (above the first row with a number that is not a year, and above `header_bottom`, the
// height of a rule drawn under the header, figures or none): each heading is placed over the columns
// whose extent below it is centred on; lines with nothing across a gutter are one header row wrapped
// onto several lines (a heading over a rule of its own spans the columns centred under the rule); with
// a heading over several columns the header has levels, and a cell of the last header line with
// nothing above it spans them (rowspan).
void JoinWrappedRows(std::vector<TextRow>& rows, const std::vector<std::pair<double, double>>& gutters,
                     double header_bottom = 1e18);

}  // namespace mineru::document
