#include "document/inline_math.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "document/text_backend.h"
#include "tests/document/line_builder.h"
#include "tests/document/test_pdf.h"

namespace mineru::document {
namespace {

// A run of a sentence: its characters, whether they are set in a math font, their size and how far their
// baseline stands under the line's (negative: raised). A run starting with a space has a space before it.
struct Run {
  std::u32string text;
  bool math = false;
  double size = 10;
  double drop = 0;
};

// A line of prose at baseline 200 made of `runs`, each glyph half its size wide, spaces 3.3 points.
TextLine Sentence(const std::vector<Run>& runs) {
  std::vector<TextChar> chars;
  double x = 100;
  for (const Run& run : runs) {
    for (char32_t c : run.text) {
      if (c == U' ') {
        TextChar space = testing::Glyph(U' ', x, 200, 10, false);
        space.box.x1 = x + 3.3;
        chars.push_back(space);
        x += 3.3;
        continue;
      }
      chars.push_back(testing::Glyph(c, x, 200 + run.drop, run.size, run.math));
      x += 0.5 * run.size;
    }
  }
  TextLine line = testing::LineOf(chars);
  line.font_size = 10;
  line.font = "CMR10";
  return line;
}

Run Text(std::u32string t) { return {std::move(t)}; }
Run Math(std::u32string t) { return {std::move(t), true}; }
Run Sub(std::u32string t, bool math = true) { return {std::move(t), math, 7, 2}; }
Run Sup(std::u32string t, bool math = false) { return {std::move(t), math, 7, -3.5}; }

TEST(InlineMathTest, GlyphsOfAMathFontAndWhatStandsWithThemAreAFormula) {
  // "where x_i is the": the letter and its script in math italic.
  EXPECT_EQ(TextWithInlineMath(Sentence({Text(U"where "), Math(U"x"), Sub(U"i"), Text(U" is the")})),
            "where $x_i$ is the");
  // A text font's parentheses, relation and digits inside the formula, its comma after it.
  EXPECT_EQ(
      TextWithInlineMath(Sentence({Text(U"and "), Math(U"f"), Text(U"("), Math(U"x"), Text(U") = 2, so")})),
      "and $f(x) = 2$, so");
  // A square in the text font's digits.
  EXPECT_EQ(TextWithInlineMath(Sentence({Text(U"of "), Math(U"y"), Sup(U"2"), Text(U".")})), "of $y^2$.");
}

TEST(InlineMathTest, LettersKeepTheAlphabetsTheyAreDrawnIn) {
  // "x ∈ R^d" with R of the blackboard bold font, "L" of the symbols font (calligraphic), and a bold x of
  // a text font (\mathbf) as the base of a script in math italic.
  TextLine line = Sentence({Text(U"let "), Math(U"x ∈ R"), Sup(U"d", true), Text(U" and "), Math(U"L"),
                            Text(U" with x"), Sub(U"i"), Text(U" here")});
  TextChar* last_x = nullptr;
  for (TextChar& c : line.chars) {
    if (c.rune == 'R') c.alphabet = MathAlphabet::kBlackboard;
    if (c.rune == 'L') c.alphabet = MathAlphabet::kCalligraphic;
    if (c.rune == 'x') last_x = &c;
  }
  last_x->alphabet = MathAlphabet::kBold;
  EXPECT_EQ(TextWithInlineMath(line),
            "let $x \\in \\mathbb{R}^d$ and $\\mathcal{L}$ with $\\mathbf{x}_i$ here");
  // A letter of a text font alone in a word with a math glyph: an argument.
  EXPECT_EQ(TextWithInlineMath(Sentence({Text(U"loss "), Math(U"L"), Text(U"(W) is")})), "loss $L(W)$ is");
  // A letter of the Letterlike Symbols: "ℝ" is \mathbb{R}.
  EXPECT_EQ(TextWithInlineMath(Sentence({Text(U"in "), Math(U"ℝ"), Text(U".")})), "in $\\mathbb{R}$.");
}

TEST(InlineMathTest, ProseAroundFormulasStaysText) {
  // Words of the text font end a formula; so does its punctuation.
  EXPECT_EQ(TextWithInlineMath(Sentence(
                {Math(U"x"), Text(U", "), Math(U"y"), Text(U" and "), Math(U"z"), Text(U" are given.")})),
            "$x$, $y$ and $z$ are given.");
  // A word hyphenated to a formula's letter: "x-axis".
  EXPECT_EQ(TextWithInlineMath(Sentence({Text(U"the "), Math(U"x"), Text(U"-axis")})), "the $x$-axis");
  // A text font's parentheses around a formula are the sentence's.
  EXPECT_EQ(TextWithInlineMath(Sentence({Text(U"loss ("), Math(U"L"), Text(U") is")})), "loss ($L$) is");
  // No glyph of a math font: nothing changes, relations and numbers of prose included.
  TextLine plain = Sentence({Text(U"with p = 0.05 in 2019")});
  EXPECT_EQ(TextWithInlineMath(plain), plain.text);
  EXPECT_TRUE(FindInlineFormulas(plain).empty());
}

TEST(InlineMathTest, AFormulaRunsOnAcrossSpacesOnlyAtRelationsOperatorsAndNames) {
  // A comma of the math font between a formula's items.
  EXPECT_EQ(TextWithInlineMath(Sentence({Text(U"for "), Math(U"x ∈ [0,"), Text(U" 1) only")})),
            "for $x \\in [0, 1)$ only");
  // Spaces around a relation and an operator, around symbols of the math font.
  EXPECT_EQ(
      TextWithInlineMath(Sentence({Text(U"if "), Math(U"a"), Text(U" + 1 = "), Math(U"b"), Text(U" then")})),
      "if $a + 1 = b$ then");
  EXPECT_EQ(TextWithInlineMath(Sentence({Text(U"for "), Math(U"∀ x ∈ S"), Text(U" holds")})),
            "for $\\forall x \\in S$ holds");
  // An operator name in the text font before its argument.
  EXPECT_EQ(TextWithInlineMath(Sentence({Text(U"take log "), Math(U"x"), Text(U" here")})),
            "take $\\log x$ here");
  // A number beside a formula with no operator between them is the sentence's.
  EXPECT_EQ(TextWithInlineMath(Sentence({Text(U"in 2 "), Math(U"x"), Text(U" steps")})), "in 2 $x$ steps");
}

TEST(InlineMathTest, MarksOfAMathFontAreNoFormulas) {
  // LaTeX's bullet is a glyph of the math symbols font; an item's text after it.
  TextLine item = Sentence({Math(U"•"), Text(U" the value "), Math(U"x")});
  EXPECT_EQ(TextWithInlineMath(item), "• the value $x$");
  // A note's mark raised after a name.
  TextLine name = Sentence({Text(U"Marco Silva"), Sup(U"∗", true), Text(U" and Lena Weber")});
  EXPECT_EQ(TextWithInlineMath(name), name.text);
  // Nor are delimiters and relations with nothing between them: a manual's meta-variable in angle
  // brackets, "≪" and "≫" for quotation marks.
  TextLine meta = Sentence({Text(U"the file "), Math(U"⟨"), Text(U"name"), Math(U"⟩"), Text(U" and "),
                            Math(U"≪"), Text(U"greek"), Math(U"≫")});
  EXPECT_EQ(TextWithInlineMath(meta), meta.text);
  // A comma of the math font starts no formula (code set in math italic: "blacker, 0").
  EXPECT_EQ(TextWithInlineMath(Sentence({Text(U"param(blacker"), Math(U",0"), Text(U");")})),
            "param(blacker,$0$);");
  // Nor is an index's dot leader, its dots in a math font.
  TextLine entry = Sentence({Text(U"magnification "), Math(U". . . . . . ."), Text(U" 26, 27")});
  EXPECT_EQ(TextWithInlineMath(entry), entry.text);
  // Code is no formula.
  TextLine code = Sentence({Text(U"let "), Math(U"x"), Text(U" = 1;")});
  code.monospace = true;
  EXPECT_EQ(TextWithInlineMath(code), code.text);
}

TEST(InlineMathTest, AFractionsPiecesJoinTheLineTheyStandIn) {
  // "1" over "N" (a bar between them) set small before "x for all the samples", between the line over
  // it and the line under it, which run across it.
  std::vector<TextLine> lines = {
      testing::LineOf(testing::Glyphs("the loss over all of the data is", 72, 168, 10, false)),
      testing::LineOf(testing::Glyphs("1", 74, 175, 7, false)),
      testing::LineOf(testing::Glyphs("N", 74, 185, 7)),
      testing::LineOf(testing::Join(
          {testing::Glyphs("x", 80, 180), testing::Glyphs(" for all the samples", 85, 180, 10, false)})),
      testing::LineOf(testing::Glyphs("and so on for every one of it", 72, 192, 10, false))};
  const std::vector<Rect> drawings = {{73.5, 178, 78.5, 178.4}};
  std::vector<bool> consumed(lines.size(), false);
  MergeInlinePieces(lines, consumed, drawings);
  EXPECT_EQ(consumed, (std::vector<bool>{false, true, true, false, false}));
  EXPECT_EQ(TextWithInlineMath(lines[3], drawings), "$\\frac{1}{N} x$ for all the samples");
  // "1" over "2" in roman in a line of its own words, a bar between them: a fraction.
  std::vector<TextChar> half = testing::Glyphs("half is ", 72, 180, 10, false);
  half.push_back(testing::Glyph('1', 112, 176, 7, false));
  half.push_back(testing::Glyph('2', 112, 185, 7, false));
  for (TextChar c : testing::Glyphs(" of it", 116, 180, 10, false)) half.push_back(c);
  EXPECT_EQ(TextWithInlineMath(testing::LineOf(half), {{111.5, 178.5, 116, 178.9}}),
            "half is $\\frac{1}{2}$ of it");
  EXPECT_EQ(TextWithInlineMath(testing::LineOf(half)), "half is 12 of it");
  // A bar under figures with nothing under it is an underline: "2019" of a link.
  TextLine link = testing::LineOf(testing::Glyphs("see 2019 here", 72, 180, 10, false));
  EXPECT_EQ(TextWithInlineMath(link, {{92, 182.5, 112, 183}}), "see 2019 here");
  // A number alone beside a line with no bar over or under it is no piece ("12" of a cell, a note).
  std::vector<TextLine> cell = {testing::LineOf(testing::Glyphs("12", 74, 180, 7, false)), lines[3]};
  std::vector<bool> none(2, false);
  MergeInlinePieces(cell, none, {});
  EXPECT_EQ(none, (std::vector<bool>{false, false}));
}

TEST(InlineMathTest, AFormulaBrokenAtALineEndJoinsItsRest) {
  std::string paragraph = "so $a +$";
  JoinLineWithMath(paragraph, "$b$ is");
  EXPECT_EQ(paragraph, "so $a + b$ is");
  paragraph = "so $a$";
  JoinLineWithMath(paragraph, "$\\leq b$ is");
  EXPECT_EQ(paragraph, "so $a \\leq b$ is");
  // Two formulas with no operator at the break stay two.
  paragraph = "of $a$";
  JoinLineWithMath(paragraph, "$b$ is");
  EXPECT_EQ(paragraph, "of $a$ $b$ is");
  // A line going on with a formula the line before left open: its number is the formula's.
  paragraph = "so $x =$";
  ASSERT_TRUE(EndsInOpenFormula(paragraph));
  JoinLineWithMath(paragraph,
                   TextWithInlineMath(Sentence({Text(U"2 for all")}), {}, EndsInOpenFormula(paragraph)));
  EXPECT_EQ(paragraph, "so $x = 2$ for all");
  EXPECT_FALSE(EndsInOpenFormula("so $x$"));
  EXPECT_EQ(TextWithInlineMath(Sentence({Text(U"2 for all")})), "2 for all");
  // Otherwise lines join as prose does: a hyphenated word.
  paragraph = "tolerabil-";
  JoinLineWithMath(paragraph, "ity of $x$");
  EXPECT_EQ(paragraph, "tolerability of $x$");
}

// fixtures/inline-math.pdf, written by pdfLaTeX from fixtures/inline-math.tex: a paragraph of a two-column
// page with formulas in its sentences (a fraction ending a line, its denominator in the block of the lines
// after it; named alphabets; a fraction and a sum in a sentence; an exponent reaching up to the line over
// it; the paragraph's last line a formula) is one paragraph with its formulas as their LaTeX.
TEST(InlineMathTest, ALatexParagraphsFormulasReadAsTheirLatex) {
  auto parsed = ParseWithTextLayer(testing::ReadFileBytes(MINERU_FIXTURES_DIR "/inline-math.pdf"), {}, {});
  ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
  const std::vector<Block>& blocks = parsed->pages.at(0).blocks;
  ASSERT_EQ(blocks.size(), 1U);
  EXPECT_EQ(blocks[0].type, BlockType::kText);
  EXPECT_EQ(
      blocks[0].content,
      "General solution new only quantity recent local constraint from we than $\\frac{x}{2}$ more into "
      "workflow structure hypothesis feature of projection and nonlinear learning. Let "
      "$\\mathbf{x}_i \\in \\mathbb{R}^d$ be an input, $\\mathcal{L}(\\theta) = \\frac{1}{N} \\sum_i "
      "\\ell_i$ the loss and $e^{-x^2}$ its weight, for all $i = 1, \\ldots, N$ and $x \\in [0, 1)$.");
}

}  // namespace
}  // namespace mineru::document
