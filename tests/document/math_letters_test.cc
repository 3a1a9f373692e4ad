#include "document/math_letters.h"

#include <gtest/gtest.h>

namespace mineru::document {
namespace {

TEST(MathLettersTest, MathAlphabetsReadAsThePlainLettersTheyStyle) {
  EXPECT_EQ(PlainMathLetter(U'\U0001D465'), U'x');       // italic small x
  EXPECT_EQ(PlainMathLetter(U'\U0001D400'), U'A');       // bold capital A
  EXPECT_EQ(PlainMathLetter(U'\U0001D6A3'), U'z');       // monospace small z, the last Latin letter
  EXPECT_EQ(PlainMathLetter(U'\U0001D53B'), U'D');       // double-struck capital D
  EXPECT_EQ(PlainMathLetter(U'\U0001D700'), U'\u03B5');  // italic epsilon symbol: epsilon
  EXPECT_EQ(PlainMathLetter(U'\U0001D6C1'), U'\u2207');  // bold nabla
  EXPECT_EQ(PlainMathLetter(U'\U0001D7C9'), U'\u03C0');  // the last Greek symbol, sans-serif bold italic pi
  EXPECT_EQ(PlainMathLetter(U'\U0001D7CE'), U'0');       // bold digit zero
  EXPECT_EQ(PlainMathLetter(U'\U0001D7FF'), U'9');       // monospace digit nine
  EXPECT_EQ(PlainMathLetter(U'x'), U'x');
  EXPECT_EQ(PlainMathLetter(U'\u03B1'), U'\u03B1');
}

TEST(MathLettersTest, ExtensionGlyphsReadByTheirNames) {
  EXPECT_EQ(TexExtensionGlyph("summationdisplay"), U'\u2211');
  EXPECT_EQ(TexExtensionGlyph("summationtext"), U'\u2211');
  EXPECT_EQ(TexExtensionGlyph("integraldisplay"), U'\u222B');
  EXPECT_EQ(TexExtensionGlyph("contintegraltext"), U'\u222E');
  EXPECT_EQ(TexExtensionGlyph("circleplusdisplay"), U'\u2A01');
  EXPECT_EQ(TexExtensionGlyph("parenleftbig"), U'(');
  EXPECT_EQ(TexExtensionGlyph("parenrightBigg"), U')');
  EXPECT_EQ(TexExtensionGlyph("bracketleftbigg"), U'[');
  EXPECT_EQ(TexExtensionGlyph("radicalBig"), U'\u221A');
  EXPECT_EQ(TexExtensionGlyph("radicalbt"), U'\u221A');  // a tall radical's hook
  EXPECT_EQ(TexExtensionGlyph("bracelefttp"), U'{');     // a tall brace's top stands for it
  // The other pieces of tall delimiters, wide accents and names of other fonts draw nothing by themselves.
  for (const char* piece : {"parenleftbt", "parenleftex", "braceex", "braceleftmid", "radicalvertex",
                            "radicaltp", "vextendsingle", "hatwide", "summation", "A", "", "big"})
    EXPECT_EQ(TexExtensionGlyph(piece), 0U) << piece;
}

TEST(MathLettersTest, PiecesOfTallDelimitersAreToldFromWholeGlyphs) {
  for (const char* piece :
       {"parenleftbt", "parenleftex", "braceex", "braceleftmid", "radicalvertex", "radicaltp"})
    EXPECT_TRUE(IsTexExtensionPiece(piece)) << piece;
  for (const char* whole : {"parenlefttp", "radicalbt", "summationdisplay", "hatwide", "A", "text"})
    EXPECT_FALSE(IsTexExtensionPiece(whole)) << whole;
}

TEST(MathLettersTest, LettersKeepTheirAlphabets) {
  // Code points: the block's bold, double-struck, script and Fraktur letters, the Letterlike Symbols'.
  EXPECT_EQ(AlphabetOfMathLetter(U'𝐱'), MathAlphabet::kBold);
  EXPECT_EQ(AlphabetOfMathLetter(U'𝑥'), MathAlphabet::kPlain);  // italic: a formula's plain letter
  EXPECT_EQ(AlphabetOfMathLetter(U'𝔸'), MathAlphabet::kBlackboard);
  EXPECT_EQ(AlphabetOfMathLetter(U'𝓛'), MathAlphabet::kCalligraphic);
  EXPECT_EQ(AlphabetOfMathLetter(U'𝔤'), MathAlphabet::kFraktur);
  EXPECT_EQ(AlphabetOfMathLetter(U'𝟙'), MathAlphabet::kBlackboard);
  EXPECT_EQ(AlphabetOfMathLetter(U'ℝ'), MathAlphabet::kBlackboard);
  EXPECT_EQ(AlphabetOfMathLetter(U'ℒ'), MathAlphabet::kCalligraphic);
  EXPECT_EQ(AlphabetOfMathLetter('R'), MathAlphabet::kPlain);
  EXPECT_EQ(PlainLetterlike(U'ℝ'), U'R');
  EXPECT_EQ(PlainLetterlike(U'ℭ'), U'C');
  EXPECT_EQ(PlainLetterlike('x'), U'x');
  // Fonts: TeX's blackboard bold, symbols (calligraphic capitals), Fraktur and script, a bold face.
  EXPECT_EQ(AlphabetOfFontLetter("MSBM10", false, 'R'), MathAlphabet::kBlackboard);
  EXPECT_EQ(AlphabetOfFontLetter("MSBM10", false, 'k'), MathAlphabet::kPlain);  // (a symbol's slot)
  EXPECT_EQ(AlphabetOfFontLetter("CMSY10", false, 'L'), MathAlphabet::kCalligraphic);
  EXPECT_EQ(AlphabetOfFontLetter("LMMathSymbols10", false, 'D'), MathAlphabet::kCalligraphic);
  EXPECT_EQ(AlphabetOfFontLetter("EUFM10", false, 'g'), MathAlphabet::kFraktur);
  EXPECT_EQ(AlphabetOfFontLetter("rsfs10", false, 'F'), MathAlphabet::kScript);
  EXPECT_EQ(AlphabetOfFontLetter("CMBX10", true, 'W'), MathAlphabet::kBold);
  EXPECT_EQ(AlphabetOfFontLetter("CMMI10", false, 'x'), MathAlphabet::kPlain);
  EXPECT_EQ(AlphabetOfFontLetter("CMBX10", true, '2'), MathAlphabet::kPlain);
  EXPECT_EQ(InAlphabet(MathAlphabet::kBlackboard, "R"), "\\mathbb{R}");
  EXPECT_EQ(InAlphabet(MathAlphabet::kScript, "F"), "\\mathscr{F}");
  EXPECT_EQ(InAlphabet(MathAlphabet::kPlain, "x"), "x");
  EXPECT_TRUE(FamilyStartsWith("rsfs10", "RSFS"));
  EXPECT_FALSE(FamilyStartsWith("RS", "RSFS"));
}

}  // namespace
}  // namespace mineru::document
