// Letters and digits of Unicode's Mathematical Alphanumeric Symbols (U+1D400 to U+1D7FF: bold, italic,
// script, fraktur, double-struck, sans-serif and monospace alphabets), which math fonts (a word
// processor's equations in Cambria Math, LaTeX's unicode-math) set for the letters of formulas. They read
// as the plain letters they style ("𝑥" is "x"), as Unicode's compatibility decomposition has them.
#pragma once

#include <string_view>

namespace mineru::document {

// The plain letter or digit `c` styles, or `c` itself when it is none of them.
char32_t PlainMathLetter(char32_t c);

// The character a glyph of TeX's math extension font (cmex and its kin, which carry no Unicode map in
// most PDFs) draws, by the glyph's name: "summationdisplay" and "summationtext" are U+2211, "parenleftbig"
// is "(", "radicalBig" U+221A; the top piece of a tall delimiter stands for the whole ("bracelefttp" is
// "{"). 0 for the other pieces of tall delimiters and radicals ("braceex", "parenleftbt",
// "radicalvertex"), for wide accents and for names outside that font.
char32_t TexExtensionGlyph(std::string_view name);

// Whether a glyph of that font is a piece of a tall delimiter or radical that stands for nothing by
// itself (its middle, its extension, its bottom: "braceex", "parenleftbt", "radicalvertex").
bool IsTexExtensionPiece(std::string_view name);

}  // namespace mineru::document
