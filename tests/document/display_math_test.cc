#include "document/display_math.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "document/text_backend.h"
#include "tests/document/line_builder.h"
#include "tests/document/test_pdf.h"

namespace mineru::document {
namespace {

using testing::Line;

// A glyph as a text layer gives it: `size` points, its origin at (x, baseline), its box the font's
// ascent (0.75 em) and descent (0.25 em), half an em wide.
TextChar Glyph(char32_t rune, double x, double baseline, double size = 10, bool math = true) {
  TextChar c;
  c.rune = rune;
  c.box = {x, baseline - 0.75 * size, x + 0.5 * size, baseline + 0.25 * size};
  c.size = static_cast<float>(size);
  c.baseline = static_cast<float>(baseline);
  c.math = math;
  return c;
}

// A glyph of the extension font, its box its ink (a big operator, a tall delimiter).
TextChar Ink(char32_t rune, Rect box, double size = 10) {
  TextChar c;
  c.rune = rune;
  c.box = box;
  c.size = static_cast<float>(size);
  c.baseline = static_cast<float>(box.y0);
  c.math = true;
  c.ink = true;
  return c;
}

// Glyphs of `text` (ASCII) side by side from x, half their size apart.
std::vector<TextChar> Glyphs(const std::string& text, double x, double baseline, double size = 10,
                             bool math = true) {
  std::vector<TextChar> out;
  for (char ch : text) {
    out.push_back(Glyph(static_cast<char32_t>(ch), x, baseline, size, math));
    x += 0.5 * size;
  }
  return out;
}

std::vector<TextChar> Join(std::initializer_list<std::vector<TextChar>> parts) {
  std::vector<TextChar> out;
  for (const auto& p : parts) out.insert(out.end(), p.begin(), p.end());
  return out;
}

// A line of a page made of glyphs (its text their characters).
TextLine LineOf(const std::vector<TextChar>& glyphs) {
  TextLine line;
  line.chars = glyphs;
  line.box = glyphs.front().box;
  for (const TextChar& c : glyphs) {
    line.box = line.box.Union(c.box);
    AppendUtf8(line.text, c.rune);
  }
  line.font_size = glyphs.front().size;
  line.font = glyphs.front().math ? "CMMI10" : "CMR10";
  return line;
}

TEST(FormulaLatexTest, ScriptsAreSmallerGlyphsOffTheBaseline) {
  // x squared, y sub i, z with both.
  std::vector<TextChar> g = {
      Glyph('x', 100, 200), Glyph('2', 105, 196.5, 7, false), Glyph('+', 112, 200, 10, false),
      Glyph('y', 120, 200), Glyph('i', 125, 202, 7),          Glyph('=', 132, 200, 10, false),
      Glyph('z', 140, 200), Glyph('j', 145, 202, 7),          Glyph('2', 145.5, 196.5, 7, false)};
  EXPECT_EQ(FormulaLatex(g, {}), "x^2 + y_i = z_j^2");
  // A script of two glyphs is braced; a script of a script nests.
  std::vector<TextChar> h = {Glyph('e', 100, 200), Glyph('-', 105, 196.5, 7), Glyph('x', 108.5, 196.5, 7),
                             Glyph('2', 112, 194, 5, false)};
  EXPECT_EQ(FormulaLatex(h, {}), "e^{-x^2}");
}

TEST(FormulaLatexTest, BarsMakeFractionsAndRadicals) {
  // 1 over N, the bar between them.
  std::vector<TextChar> g = {Glyph('1', 101, 195, 10, false), Glyph('N', 101, 209)};
  EXPECT_EQ(FormulaLatex(g, {{100, 197.8, 107, 198.2}}), "\\frac{1}{N}");
  // A radical sign whose top meets the bar: its radicand is under the bar.
  std::vector<TextChar> r = Join({{Ink(U'√', {100, 188, 108, 203})}, Glyphs("1+t", 109, 200)});
  EXPECT_EQ(FormulaLatex(r, {{108, 188, 125, 188.4}}), "\\sqrt{1 + t}");
  // The radical over the denominator of a fraction: the narrower bar first.
  std::vector<TextChar> f =
      Join({Glyphs("a", 110, 190), {Ink(U'√', {100, 196, 108, 211})}, Glyphs("b", 109, 208)});
  EXPECT_EQ(FormulaLatex(f, {{108, 196, 115, 196.4}, {99, 193, 116, 193.4}}), "\\frac{a}{\\sqrt{b}}");
}

TEST(FormulaLatexTest, BigOperatorsTakeTheLimitsStackedOnThem) {
  // A display sum (its ink 14 points tall) with "i=1" under it and "N" over it, then x sub i.
  std::vector<TextChar> g = Join({{Ink(U'∑', {100, 192, 113, 206})},
                                  Glyphs("i=1", 100, 214, 7),
                                  Glyphs("N", 104, 189, 7),
                                  {Glyph('x', 116, 200), Glyph('i', 121, 202, 7)}});
  EXPECT_EQ(FormulaLatex(g, {}), "\\sum_{i=1}^{N} x_i");
  // An integral with its limits beside it: scripts.
  std::vector<TextChar> h = Join({{Ink(U'∫', {100, 190, 106, 212})},
                                  {Glyph('0', 106, 211, 7, false), Glyph('1', 108, 192, 7, false)},
                                  Glyphs("f", 114, 200)});
  EXPECT_EQ(FormulaLatex(h, {}), "\\int_0^1 f");
}

TEST(FormulaLatexTest, RomanWordsAreOperatorNamesOrText) {
  // "log x", "min" over the limit "w", "if" set in roman.
  std::vector<TextChar> g =
      Join({Glyphs("log", 100, 200, 10, false), Glyphs("x", 117, 200), Glyphs("min", 130, 200, 10, false),
            Glyphs("w", 135, 207, 7), Glyphs("y", 147, 200), Glyphs("if", 162, 200, 10, false)});
  EXPECT_EQ(FormulaLatex(g, {}), "\\log x \\min_{w} y \\quad \\text{if}");
}

TEST(FormulaLatexTest, RowsBetweenTallDelimitersAreMatricesOrCases) {
  // ( a b / c d ): a matrix of two rows and two columns.
  std::vector<TextChar> m = Join({{Ink('(', {100, 186, 105, 214})},
                                  Glyphs("a", 108, 196),
                                  Glyphs("b", 125, 196),
                                  Glyphs("c", 108, 210),
                                  Glyphs("d", 125, 210),
                                  {Ink(')', {132, 186, 137, 214})}});
  EXPECT_EQ(FormulaLatex(m, {}), "\\begin{pmatrix} a & b \\\\ c & d \\end{pmatrix}");
  // A brace alone: cases, as far as a wide gap.
  std::vector<TextChar> c = Join({Glyphs("f=", 87, 203),
                                  {Ink('{', {100, 186, 105, 214})},
                                  Glyphs("1", 108, 196, 10, false),
                                  Glyphs("x>0", 122, 196),
                                  Glyphs("0", 108, 210, 10, false),
                                  Glyphs("x<0", 122, 210),
                                  Glyphs("g", 160, 203)});
  EXPECT_EQ(FormulaLatex(c, {}), "f = \\begin{cases} 1 & x > 0 \\\\ 0 & x < 0 \\end{cases} \\qquad g");
}

TEST(FormulaLatexTest, RowsStackedWithoutABarAreLinesOfOneFormula) {
  std::vector<TextChar> g = Join({Glyphs("a=b", 100, 200), Glyphs("=c", 105, 215)});
  EXPECT_EQ(FormulaLatex(g, {}), "a = b \\\\ = c");
}

TEST(FormulaLatexTest, SymbolsAreCommands) {
  std::vector<TextChar> g = {Glyph(U'α', 100, 200), Glyph(U'≤', 107, 200), Glyph(U'∞', 116, 200),
                             Glyph(U'ŵ', 125, 200), Glyph('{', 131, 200, 10, false)};
  EXPECT_EQ(FormulaLatex(g, {}), "\\alpha \\leq \\infty \\hat{w}\\{");
}

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

TEST(DisplayEquationsTest, ProseWithMathInItIsNoFormula) {
  // A line of prose around an inline formula, and a formula line level with it (a stacked fraction
  // inside the sentence).
  TextLine prose = Line("the value of", 72, 100);
  TextLine inline_math = LineOf(Glyphs("x+y", 140, 107));
  std::vector<TextLine> lines = {prose, inline_math, Line("is small.", 160, 100)};
  EXPECT_TRUE(FindDisplayEquations(lines, std::vector<bool>(lines.size(), false), {}, {}).empty());
  // A manual's meta-variable in angle brackets after a listing's line number, "24 ⟨∗T1cmr⟩" (the
  // brackets and the star in a math font), is none either.
  std::vector<TextChar> meta = Glyphs("24", 88, 200, 10, false);
  meta.push_back(Glyph(U'⟨', 100, 200));
  meta.push_back(Glyph(U'∗', 104, 200));
  for (TextChar c : Glyphs("T1cmr", 109, 200, 10, false)) meta.push_back(c);
  meta.push_back(Glyph(U'⟩', 134, 200));
  std::vector<TextLine> guard = {LineOf(meta)};
  EXPECT_TRUE(FindDisplayEquations(guard, {false}, {}, {}).empty());
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

TEST(DisplayEquationsTest, ALineOfARunOfLinesIsNoDisplay) {
  // A formula line at the lines' pitch among lines of a listing (or an index): one of them.
  TextLine formula = LineOf(Glyphs("a=b+c", 80, 129.5));
  std::vector<TextLine> listing = {Line("int main() {", 72, 110), formula, Line("return 0; }", 72, 134)};
  EXPECT_TRUE(FindDisplayEquations(listing, {false, false, false}, {}, {}).empty());
  // The same formula set apart from the text over and under it (a display's skips).
  std::vector<TextLine> display = {Line("so that we have", 72, 100), formula,
                                   Line("for all of them.", 72, 144)};
  EXPECT_EQ(FindDisplayEquations(display, {false, false, false}, {}, {}).size(), 1U);
}

// fixtures/equations.pdf, written by pdfLaTeX from fixtures/equations.tex: its display equations come out
// as equation blocks in the LaTeX they were written in (their big operators and delimiters set in the
// math extension font, which maps no glyph to Unicode), its inline formulas stay in their sentences.
TEST(DisplayEquationsTest, ALatexArticlesDisplaysReadAsTheirLatex) {
  auto parsed = ParseWithTextLayer(testing::ReadFileBytes(MINERU_FIXTURES_DIR "/equations.pdf"), {}, {});
  ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
  std::vector<std::string> equations, text;
  for (const Block& b : parsed->pages.at(0).blocks) {
    (b.type == BlockType::kEquation ? equations : text).push_back(b.content);
  }
  EXPECT_EQ(equations, (std::vector<std::string>{
                           "L(\\theta) = \\frac{1}{N} \\sum_{i=1}^{N}(y_i - f(x_i;\\theta))^2 + "
                           "\\lambda \\int_0^1\\|\\nabla f\\|^2 dx \\tag{1}",
                           "\\eta_t = \\frac{\\eta_0}{\\sqrt{1 + t/T}} \\quad \\text{for} t \\geq 0,",
                           "\\hat{w} = \\arg \\min_{w} \\prod_{k=1}^{K} p_k \\leq \\bigcup_{n} A_n, \\tag{2}",
                           "f(x) = \\begin{cases} x^2 & x \\geq 0 \\\\ -x & x < 0 \\end{cases} \\qquad A = "
                           "\\begin{pmatrix} a & b \\\\ c & d \\end{pmatrix}"}));
  ASSERT_EQ(text.size(), 5U);
  EXPECT_EQ(text[1], "The step size decays with the iterations:");
  EXPECT_TRUE(text[4].starts_with("Inline formulas such as")) << text[4];
}

}  // namespace
}  // namespace mineru::document
