// A formula read into LaTeX from where its glyphs stand (a text layer's display equation: see
// display_math.h), and the classes of characters a formula is made of.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "document/page_geometry.h"
#include "document/text_lines.h"

namespace mineru::document {

// The LaTeX of a formula set in `glyphs` (each with its box, size and baseline; spaces are ignored) and
// horizontal `bars`: fractions (a bar with glyphs over and under it), radicals (a bar from a radical
// sign's top over its radicand), overlines (a bar right over glyphs, nothing over it), big operators and
// operator names ("lim", "min") with limits stacked over and under them, rows between tall delimiters
// (matrices, cases), superscripts and subscripts (set smaller, off the baseline of what they follow), rows
// stacked without a bar between them (aligned equations, joined by "\\"); Greek letters and symbols as LaTeX
// commands, words in roman as operator names ("\log") or \text.
std::string FormulaLatex(const std::vector<TextChar>& glyphs, const std::vector<Rect>& bars);

// The drawings of a page that are horizontal bars a formula may be drawn with (a fraction's, a radical's
// vinculum, an overline): at most 1.5 points thick, four times as long at least. Filtered once per page
// for the readers of formulas (display_math.h, inline_math.h).
std::vector<Rect> FormulaBars(const std::vector<Rect>& drawings);

// Where a glyph stands: from its baseline, 0.7 of its size up and 0.2 down (a text layer's boxes reach as
// far as their fonts' ascents and descents, which differ from font to font); a named glyph's ink
// (TextChar::ink); its box when its size is unknown.
Rect GlyphCore(const TextChar& c);

// A glyph a formula is made of: not a space, nor one the text layer could not map (U+FFFD).
bool IsFormulaGlyph(const TextChar& c);

// The baseline of most of a line's glyphs (the median of their baselines; its box's bottom when no
// glyph's size is known).
double LineBaseline(const TextLine& line);

// Operator names TeX sets in roman ("log", "max", "argmin").
bool IsOperatorName(std::string_view word);

// Sums, products, integrals, big unions and the like.
bool IsBigOperator(char32_t c);

// Relations ("=", "≤", "∈", arrows) and binary operators ("+", "−", "×", "∪").
bool IsMathRelation(char32_t c);
bool IsMathBinaryOperator(char32_t c);

// Whether a token of LaTeX ("\\leq", "=", "+") writes a relation or a binary operator.
bool IsOperatorLatex(std::string_view token);

// Mathematical operators and symbols, Greek letters, angle brackets, floors and ceilings.
bool IsMathSymbol(char32_t c);

// Parentheses, brackets, braces, bars and angle brackets.
bool IsMathDelimiter(char32_t c);

// Latin letters (ASCII, Latin-1 and Latin Extended-A and -B).
bool IsRomanLetter(char32_t c);

}  // namespace mineru::document
