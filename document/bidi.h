// Right-to-left text (Arabic, Hebrew) from a PDF's glyphs to logical order. A PDF holds glyphs where
// they are drawn, in whatever order its producer wrote them: runs in visual order, runs of a line in
// logical order, a closing full stop written last although it stands at the line's left end, combining
// marks before their letters. Only the geometry is trusted: the glyphs of a line are taken by x and read
// back with the result of the Unicode bidirectional algorithm for a right-to-left paragraph.
#pragma once

#include <vector>

#include "document/text_lines.h"

namespace mineru::document {

// True for characters of right-to-left scripts (Hebrew, Arabic, Syriac, Thaana, NKo, presentation forms).
bool IsRtlChar(char32_t c);

// True for letters of left-to-right scripts (Latin, Greek, Cyrillic, Indic, CJK, Hangul).
bool IsLtrStrong(char32_t c);

// The characters of one line (or one run) of a right-to-left script, in any order, in logical order:
// glyphs ordered by x and read from the right, runs of left-to-right letters and of numbers (European or
// Arabic-Indic digits, with the separators between them: "1403/09/19", "12.5") left to right. The letters
// a ligature glyph stands for (the ones after the first have no width: lam-alef) keep their order, and a
// combining mark follows the letter it is drawn on. A space goes where neighbouring glyphs stand more
// than `space_gap` apart and none is drawn, and between a Latin and an Arabic or Hebrew letter that touch.
// A line turned on its side (its glyphs further apart down the page than across) stays as written.
std::vector<TextChar> RightToLeftLogical(const std::vector<TextChar>& chars, double space_gap);

}  // namespace mineru::document
