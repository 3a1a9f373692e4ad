// Display equations of a text layer. A formula set apart from the text (TeX's \[ \] and equation
// environments, a word processor's display math) comes out of a PDF in pieces: its main line, limits
// stacked over and under big operators, a fraction's numerator and denominator, an equation number at the
// margin. Left to the layout they read as short paragraphs or as a table. FindDisplayEquations gathers the
// pieces of each formula among a page's lines and reads each with FormulaLatex (formula_latex.h).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "document/page_geometry.h"
#include "document/text_lines.h"

namespace mineru::document {

struct DisplayEquation {
  Rect box;                          // the formula's lines, its number's included
  std::vector<size_t> line_indices;  // into the lines searched
  std::string latex;                 // no delimiters; a number at the margin as "\tag{3}"
};

// The display equations among `lines` (those not `consumed`): lines set mostly in math fonts or math
// symbols (a word of prose or two at most, and fewer letters of prose than a third of the glyphs) with
// an operator, a relation, a fraction or a big operator among them, joined when they share a baseline
// (up to three ems apart) or stack (up to 0.6 em apart, overlapping across), with small pieces of no
// prose (a limit's "0", a numerator's "1") joining them; and an equation number ("(3)", "(2.1a)") on the
// formula's baseline at the margin. A formula stands apart: no other line on its baseline within three
// ems, none across it, none within 8 ems but a long line of another column; not inside `figures`.
// `bars`, the page's FormulaBars, give its fraction bars and radicals' vincula.
std::vector<DisplayEquation> FindDisplayEquations(const std::vector<TextLine>& lines,
                                                  const std::vector<bool>& consumed,
                                                  const std::vector<Rect>& bars,
                                                  const std::vector<Rect>& figures);

// "(3)", "(2.1a)", "(A.4)": a display equation's number (up to ten characters in parentheses, a digit
// among them, letters, digits, dots and hyphens only).
bool IsEquationNumber(std::string_view text);

}  // namespace mineru::document
