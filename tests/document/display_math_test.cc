#include "document/display_math.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "document/text_backend.h"
#include "tests/document/line_builder.h"
#include "tests/document/test_pdf.h"

namespace mineru::document {
namespace {

using testing::Glyph;
using testing::Glyphs;
using testing::Join;
using testing::Line;
using testing::LineOf;

TEST(DisplayEquationsTest, AFormulaBetweenParagraphsWithItsNumber) {
  std::vector<TextLine> lines = {
      Line("The loss of the model is the mean of its errors over the samples.", 72, 100),
      LineOf(Join({Glyphs("L=", 150, 140), Glyphs("1", 163, 134, 10, false)})),  // L = and the numerator
      LineOf(Glyphs("N", 163, 149)),                                             // the denominator
      Line("(1)", 400, 132),                                                     // its number at the margin
      Line("where the sum runs over every sample of the set, as written.", 72, 170)};
  const std::vector<Rect> drawings = {{162, 139.8, 169, 140.2}};
  std::vector<DisplayEquation> eq =
      FindDisplayEquations(lines, std::vector<bool>(lines.size(), false), drawings, {});
  ASSERT_EQ(eq.size(), 1U);
  EXPECT_EQ(eq[0].latex, "L = \\frac{1}{N} \\tag{1}");
  EXPECT_EQ(eq[0].line_indices, (std::vector<size_t>{1, 2, 3}));
}

TEST(DisplayEquationsTest, TheLineOverADisplayReachingDownToItsNumeratorIsNotBesideIt) {
  // A paragraph's last line ending 3.5 ems before "z = a / (y - u)", its descenders level with the top of
  // the numerator, its baseline well over the numerator's.
  std::vector<TextLine> lines = {LineOf(Glyphs("field affine.", 66, 184.5, 10, false)),
                                 LineOf(Glyphs("z=", 166, 196)), LineOf(Glyphs("a", 185, 189)),
                                 LineOf({Glyph('y', 176, 203), Glyph(U'−', 184, 203), Glyph('u', 192, 203)})};
  const std::vector<Rect> drawings = {{176, 193.4, 200, 193.8}};
  std::vector<DisplayEquation> eq =
      FindDisplayEquations(lines, std::vector<bool>(lines.size(), false), drawings, {});
  ASSERT_EQ(eq.size(), 1U);
  EXPECT_EQ(eq[0].latex, "z = \\frac{a}{y - u}");
  // A line on the formula's baseline there is beside it: no display.
  lines[0] = LineOf(Glyphs("field affine.", 66, 196, 10, false));
  EXPECT_TRUE(FindDisplayEquations(lines, std::vector<bool>(lines.size(), false), drawings, {}).empty());
}

TEST(DisplayEquationsTest, WordsOfAFormulaInATextFontJoinIt) {
  // "side =" in the text font before the formula on its baseline.
  std::vector<TextLine> lines = {Line("side =", 100, 196), LineOf(Glyphs("a+b=c+d", 140, 205))};
  std::vector<DisplayEquation> eq = FindDisplayEquations(lines, {false, false}, {}, {});
  ASSERT_EQ(eq.size(), 1U);
  EXPECT_TRUE(eq[0].latex.starts_with("\\text{side} = ")) << eq[0].latex;
  EXPECT_EQ(eq[0].line_indices, (std::vector<size_t>{0, 1}));
}

TEST(DisplayEquationsTest, ProseWithMathInItIsNoFormula) {
  // A line of prose around an inline formula, and a formula line level with it (a stacked fraction
  // inside the sentence).
  TextLine prose = Line("the value of", 72, 100);
  TextLine inline_math = LineOf(Glyphs("x+y", 140, 107));
  std::vector<TextLine> lines = {prose, inline_math, Line("is small.", 160, 100)};
  EXPECT_TRUE(FindDisplayEquations(lines, std::vector<bool>(lines.size(), false), {}, {}).empty());
  // A sentence cut into pieces by the formulas set in it (each piece holding a letter of math): "Then x
  // = y+1 and z < w fits x".
  auto mixed = [](const std::string& word, double x, const std::string& math) {
    std::vector<TextChar> g = Glyphs(word, x, 107.5, 10, false);
    for (TextChar c : Glyphs(math, x + 5 * (word.size() + 1), 107.5)) g.push_back(c);
    return LineOf(g);
  };
  std::vector<TextLine> sentence = {mixed("Then", 72, "x"), LineOf(Glyphs("=y+1", 104, 107.5)),
                                    mixed("and", 128, "z"), LineOf(Glyphs("<w", 152, 107.5)),
                                    mixed("fits", 166, "x")};
  EXPECT_TRUE(FindDisplayEquations(sentence, std::vector<bool>(sentence.size(), false), {}, {}).empty());
  // A manual's meta-variable in angle brackets after a listing's line number, "24 ⟨∗T1cmr⟩" (the
  // brackets and the star in a math font), is none either.
  std::vector<TextChar> meta = Glyphs("24", 88, 200, 10, false);
  meta.push_back(Glyph(U'⟨', 100, 200));
  meta.push_back(Glyph(U'∗', 104, 200));
  for (TextChar c : Glyphs("T1cmr", 109, 200, 10, false)) meta.push_back(c);
  meta.push_back(Glyph(U'⟩', 134, 200));
  std::vector<TextLine> guard = {LineOf(meta)};
  EXPECT_TRUE(FindDisplayEquations(guard, {false}, {}, {}).empty());
  // A line of code, "K = x + 1;" in a monospaced face, is none.
  TextLine code = LineOf(Glyphs("K=x+1;", 100, 300));
  code.monospace = true;
  EXPECT_TRUE(FindDisplayEquations({code}, {false}, {}, {}).empty());
  // A formula line alone but with too few glyphs and no operator ("x" of a figure's axis) is none.
  std::vector<TextLine> axis = {LineOf(Glyphs("x", 200, 300))};
  EXPECT_TRUE(FindDisplayEquations(axis, {false}, {}, {}).empty());
}

TEST(DisplayEquationsTest, AFormulaBesideOtherColumnsTextButNotBesideCells) {
  TextLine formula = LineOf(Glyphs("a=b+c", 120, 200));
  // A long line of the other column level with it: the formula stands.
  TextLine other = Line("a line of the other column of the page, long as any", 320, 192);
  std::vector<TextLine> two = {formula, other};
  EXPECT_EQ(FindDisplayEquations(two, {false, false}, {}, {}).size(), 1U);
  // A short cell level with it a few ems away: a row of a table, no display.
  std::vector<TextLine> row = {formula, Line("0.25", 200, 192)};
  EXPECT_TRUE(FindDisplayEquations(row, {false, false}, {}, {}).empty());
  // Inside a figure: its labels.
  EXPECT_TRUE(FindDisplayEquations({formula}, {false}, {}, {{100, 150, 300, 250}}).empty());
}

TEST(DisplayEquationsTest, AParagraphsLastLineOfMathIsNoDisplay) {
  // "... for all" over "x ∈ [0, 1).", flush with it at the lines' pitch, nothing under it: the end of a
  // sentence.
  std::vector<TextLine> lines = {
      Line("a long line of the paragraph that ends with a formula for all", 72, 100),
      LineOf(Join({Glyphs("x=[0,", 72, 120), Glyphs("1).", 97, 120, 10, false)}))};
  EXPECT_TRUE(FindDisplayEquations(lines, {false, false}, {}, {}).empty());
  // The same formula indented under the paragraph, as a display is set: a display.
  lines[1] = LineOf(Join({Glyphs("x=[0,", 120, 124), Glyphs("1).", 145, 124, 10, false)}));
  EXPECT_EQ(FindDisplayEquations(lines, {false, false}, {}, {}).size(), 1U);
}

TEST(DisplayEquationsTest, ALineOfARunOfLinesIsNoDisplay) {
  // A formula line at the lines' pitch among lines of a listing (or an index): one of them.
  TextLine formula = LineOf(Glyphs("a=b+c", 80, 129.5));
  std::vector<TextLine> listing = {Line("int main() {", 72, 110), formula, Line("return 0; }", 72, 134)};
  EXPECT_TRUE(FindDisplayEquations(listing, {false, false, false}, {}, {}).empty());
  // The same formula set apart from the text over and under it (a display's skips).
  std::vector<TextLine> display = {Line("so that we have", 72, 100), formula,
                                   Line("for all of them.", 72, 144)};
  EXPECT_EQ(FindDisplayEquations(display, {false, false, false}, {}, {}).size(), 1U);
  // A word processor's formula, set large in a paragraph of its own with no space around it: close to
  // the lines over and under it, but its baseline more than a line's pitch from theirs.
  std::vector<TextLine> paragraph = {Line("so that we have", 72, 100), LineOf(Glyphs("a=b+c", 80, 126, 16)),
                                     Line("for all of them.", 72, 133)};
  EXPECT_EQ(FindDisplayEquations(paragraph, {false, false, false}, {}, {}).size(), 1U);
}

// fixtures/equations.pdf, written by pdfLaTeX from fixtures/equations.tex: its display equations come out
// as equation blocks in the LaTeX they were written in (their big operators and delimiters set in the
// math extension font, which maps no glyph to Unicode), its inline formulas stay in their sentences as
// theirs (inline_math.h).
TEST(DisplayEquationsTest, ALatexArticlesDisplaysReadAsTheirLatex) {
  auto parsed = ParseWithTextLayer(testing::ReadFileBytes(MINERU_FIXTURES_DIR "/equations.pdf"), {}, {});
  ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
  std::vector<std::string> equations, text;
  for (const Block& b : parsed->pages.at(0).blocks) {
    (b.type == BlockType::kEquation ? equations : text).push_back(b.content);
  }
  EXPECT_EQ(equations, (std::vector<std::string>{
                           "L(\\theta) = \\frac{1}{N} \\sum_{i=1}^{N}(y_i - f(x_i; \\theta))^2 + "
                           "\\lambda \\int_0^1\\|\\nabla f\\|^2 dx \\tag{1}",
                           "\\eta_t = \\frac{\\eta_0}{\\sqrt{1 + t/T}} \\quad \\text{for} t \\geq 0,",
                           "\\hat{w} = \\arg \\min_{w} \\prod_{k=1}^{K} p_k \\leq \\bigcup_{n} A_n, \\tag{2}",
                           "f(x) = \\begin{cases} x^2 & x \\geq 0 \\\\ -x & x < 0 \\end{cases} \\qquad A = "
                           "\\begin{pmatrix} a & b \\\\ c & d \\end{pmatrix}",
                           "\\eta_t = \\frac{\\eta_0}{\\sqrt{1 + t}}"}));
  ASSERT_EQ(text.size(), 5U);
  EXPECT_EQ(text[1], "The step size decays with the iterations:");
  EXPECT_TRUE(
      text[4].starts_with("Inline formulas such as $\\sum_i x_i$ and $\\frac{a}{b}$ stay in their sentence."))
      << text[4];
}

// fixtures/equations-writer.pdf, converted by LibreOffice (soffice --headless --convert-to pdf) from
// fixtures/equations-writer.fodt: a word processor's formulas (letters in the text face, operators in
// OpenSymbol, each formula large in a paragraph of its own with no space around it) read as displays.
TEST(DisplayEquationsTest, AWordProcessorsFormulasReadAsTheirLatex) {
  auto parsed =
      ParseWithTextLayer(testing::ReadFileBytes(MINERU_FIXTURES_DIR "/equations-writer.pdf"), {}, {});
  ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
  std::vector<std::string> equations;
  size_t text = 0;
  for (const Block& b : parsed->pages.at(0).blocks) {
    if (b.type == BlockType::kEquation) equations.push_back(b.content);
    text += b.type == BlockType::kText ? 1 : 0;
  }
  EXPECT_EQ(equations,
            (std::vector<std::string>{"\\mu = \\frac{1}{n} \\sum_{i=1}^n x_i",
                                      "\\sigma^2 = \\frac{1}{n - 1} \\sum_{i=1}^{n}(x_i - \\mu)^2"}));
  EXPECT_EQ(text, 3U);
}

}  // namespace
}  // namespace mineru::document
