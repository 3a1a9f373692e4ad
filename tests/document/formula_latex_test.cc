#include "document/formula_latex.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "tests/document/line_builder.h"

namespace mineru::document {
namespace {

using testing::Glyph;
using testing::Glyphs;
using testing::Ink;
using testing::Join;

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
  // A prime, which TeX raises as a script, is written as one.
  std::vector<TextChar> prime = {Glyph('f', 100, 200), Glyph(U'′', 105, 196.3, 7),
                                 Glyph('(', 110, 200, 10, false), Glyph('x', 114, 200),
                                 Glyph(')', 119, 200, 10, false)};
  EXPECT_EQ(FormulaLatex(prime, {}), "f'(x)");
  // Three periods in a row, TeX's \ldots: "1, ..., N".
  std::vector<TextChar> dots = {Glyph('1', 100, 200, 10, false),
                                Glyph(',', 105, 200),
                                Glyph('.', 109, 200),
                                Glyph('.', 113, 200),
                                Glyph('.', 117, 200),
                                Glyph(',', 121, 200),
                                Glyph('N', 125, 200)};
  for (TextChar& c : dots) {
    if (c.rune == '.' || c.rune == ',') c.box.x1 = c.box.x0 + 2.5;  // (narrow glyphs)
  }
  EXPECT_EQ(FormulaLatex(dots, {}), "1, \\ldots, N");
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

TEST(FormulaLatexTest, ABarOverGlyphsWithNothingOverItIsAnOverline) {
  // x with a bar just over its top (inside its ascent), then x+y under a bar as wide.
  std::vector<TextChar> x = Glyphs("x", 100, 200);
  EXPECT_EQ(FormulaLatex(x, {{100, 193.5, 105, 193.9}}), "\\bar{x}");
  std::vector<TextChar> sum = Glyphs("x+y", 100, 200);
  EXPECT_EQ(FormulaLatex(sum, {{100, 193.5, 115, 193.9}}), "\\overline{x + y}");
  // A bar far over them is no overline (a rule of the page).
  EXPECT_EQ(FormulaLatex(x, {{100, 180, 105, 180.4}}), "x");
}

TEST(FormulaLatexTest, ALimitBetweenTwoOperatorsIsTheNearerOnes) {
  // A sum and a product close together, "i" under the sum, "k" under the product reaching back under
  // the sum's right side: "k" is the product's, whichever operator comes first.
  std::vector<TextChar> g = {Ink(U'∑', {100, 192, 112, 206}), Ink(U'∏', {113, 192, 125, 206}),
                             Glyph('i', 104, 214, 7), Glyph('k', 112.5, 214, 7), Glyph('x', 128, 200)};
  EXPECT_EQ(FormulaLatex(g, {}), "\\sum_{i} \\prod_{k} x");
  std::swap(g[0], g[1]);
  EXPECT_EQ(FormulaLatex(g, {}), "\\sum_{i} \\prod_{k} x");
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

TEST(FormulaLatexTest, AWordSetSmallOffTheBaselineIsAScript) {
  // d sub max, squared: "max" in roman, set small and low.
  std::vector<TextChar> g =
      Join({Glyphs("d", 100, 200), Glyphs("max", 105, 202, 7, false), Glyphs("2", 106, 196.5, 7, false)});
  EXPECT_EQ(FormulaLatex(g, {}), "d_\\max^2");
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
  // Its cells 0.7 em apart (two column spaces less a math italic letter's side bearings) after the
  // widest cell of the column, a relation's spaces in a cell 0.3 em.
  m = Join({{Ink('(', {100, 186, 105, 214})},
            Glyphs("a", 108, 196),
            Glyphs("b", 136, 196),
            Glyphs("x", 108, 210),
            Glyphs("=", 116, 210, 10, false),
            Glyphs("y", 124, 210),
            Glyphs("d", 136, 210),
            {Ink(')', {144, 186, 149, 214})}});
  EXPECT_EQ(FormulaLatex(m, {}), "\\begin{pmatrix} a & b \\\\ x = y & d \\end{pmatrix}");
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

TEST(FormulaLatexTest, ScriptsNestedThousandsDeepStopNestingPastADepth) {
  // Each glyph smaller than the one before and raised over it: x^{x^{x^{...}}}, 3000 deep.
  std::vector<TextChar> g;
  double size = 10, baseline = 200, x = 100;
  for (int i = 0; i < 3000; ++i) {
    g.push_back(Glyph('x', x, baseline, size));
    x += 0.5 * size;
    baseline -= 0.4 * size;
    size *= 0.8;
  }
  const std::string latex = FormulaLatex(g, {});
  EXPECT_EQ(std::count(latex.begin(), latex.end(), 'x'), 3000);  // every glyph kept
  int depth = 0, deepest = 0;
  for (char ch : latex) {
    depth += ch == '{' ? 1 : ch == '}' ? -1 : 0;
    deepest = std::max(deepest, depth);
  }
  EXPECT_GE(deepest, 8);   // read as scripts as far as it goes
  EXPECT_LE(deepest, 16);  // and no further
}

TEST(FormulaLatexTest, SymbolsAreCommands) {
  std::vector<TextChar> g = {Glyph(U'α', 100, 200), Glyph(U'≤', 107, 200), Glyph(U'∞', 116, 200),
                             Glyph(U'ŵ', 125, 200), Glyph('{', 131, 200, 10, false)};
  EXPECT_EQ(FormulaLatex(g, {}), "\\alpha \\leq \\infty \\hat{w}\\{");
}

}  // namespace
}  // namespace mineru::document
