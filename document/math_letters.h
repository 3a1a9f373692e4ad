// Letters and digits of Unicode's Mathematical Alphanumeric Symbols (U+1D400 to U+1D7FF: bold, italic,
// script, fraktur, double-struck, sans-serif and monospace alphabets), which math fonts (a word
// processor's equations in Cambria Math, LaTeX's unicode-math) set for the letters of formulas. They read
// as the plain letters they style ("𝑥" is "x"), as Unicode's compatibility decomposition has them.
#pragma once

#include <string>
#include <string_view>

namespace mineru::document {

// The plain letter or digit `c` styles, or `c` itself when it is none of them.
char32_t PlainMathLetter(char32_t c);

// The alphabets of a formula's letters that LaTeX names: \mathbf, \mathbb, \mathcal, \mathfrak,
// \mathscr.
enum class MathAlphabet : unsigned char { kPlain, kBold, kBlackboard, kCalligraphic, kFraktur, kScript };

// The alphabet a letter or digit of the Mathematical Alphanumeric Symbols or of the Letterlike Symbols
// is drawn in ("𝐱" bold, "𝔸" and "ℝ" blackboard bold, "𝓛" and "ℒ" calligraphic: unicode-math sets
// \mathcal in the script alphabet, "𝔤" and "ℭ" Fraktur); kPlain for any other character.
MathAlphabet AlphabetOfMathLetter(char32_t c);

// The plain letter a letter of the Letterlike Symbols styles ("ℝ" is "R", "ℒ" "L"), or `c` itself.
char32_t PlainLetterlike(char32_t c);

// Whether a font's family starts with `prefix`, ASCII letters compared in either case ("rsfs10" and
// "RSFS").
bool FamilyStartsWith(std::string_view family, std::string_view prefix);

// The alphabet TeX's fonts draw a Latin letter `c` in, by their family (TextLine::font): MSBM's capitals
// blackboard bold, the math symbols fonts' capitals (CMSY, CMBSY, Latin Modern's) and Euler script's
// (EUSM, EUSB) calligraphic, EUFM's and EUFB's letters Fraktur, RSFS's capitals script; a bold face's
// letters bold; kPlain otherwise.
MathAlphabet AlphabetOfFontLetter(std::string_view family, bool bold, char32_t c);

// `tex` (a letter or a digit) in its alphabet's command: "\mathbb{R}"; `tex` itself in kPlain.
std::string InAlphabet(MathAlphabet alphabet, const std::string& tex);

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
