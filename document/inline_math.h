// Inline formulas of a text layer: mathematics set inside a sentence ("where x_i ∈ S is the"), which
// MinerU writes between "$" signs ("where $x_i \in S$ is the"). A formula's letters are set in a math
// font (TeX's math italic, a word processor's Cambria Math); its digits, parentheses and relations often
// are not, nor is the prose around it.
#pragma once

#include <string>
#include <vector>

#include "document/text_lines.h"

namespace mineru::document {

// A run of a line's characters, [begin, end), that sets a formula.
struct InlineFormula {
  size_t begin = 0;
  size_t end = 0;
};

// The inline formulas of a line of prose (none in a monospaced, sideways or right-to-left line): runs
// around a glyph of a math font (TextChar::math) of what a formula is made of besides: digits, operators,
// relations and delimiters of any font, Greek letters standing alone, operator names ("log") and scripts
// in a text font. Within a word they run on as far as such glyphs do; across a space (an em at most) only
// over a relation, an operator or an operator name, or from a math glyph to a math glyph ("∀ x ∈ S").
// A text font's punctuation and words end them ("$x$, $y$ and $z$."), and a formula wrapped in a text
// font's parentheses leaves them out ("($L$)"). A mark standing alone (a bullet, "∗", "†" after a name)
// is none.
std::vector<InlineFormula> FindInlineFormulas(const TextLine& line);

// The line's text (as TextLine::text reads) with each inline formula written "$latex$" (FormulaLatex,
// with the page's formula `bars` (FormulaBars) that stand in the formula's box: a fraction "a/b" set small).
// `goes_on`: the line before ended inside a formula (EndsInOpenFormula), so what the line starts with
// of a formula is one even with no glyph of a math font ("2" after "$x =$").
std::string TextWithInlineMath(const TextLine& line, const std::vector<Rect>& bars = {},
                               bool goes_on = false);

// Whether text ends in an inline formula ending in a relation or an operator ("... so $a +$"), which the
// next line goes on with.
bool EndsInOpenFormula(const std::string& text);

// Pieces of inline formulas that the text layer gives as lines of their own: a fraction's numerator and
// denominator set small over and under the line they stand in, with the big operator beside them ("1"
// over "N", then "∑" in "the loss L = 1/N ∑ ..."). A line of at most six glyphs, each of a math font, a
// digit or an operator, a math font's among them or a bar among the page's formula `bars` right over or
// under it ("1" over "2" in roman), whose glyphs stand within an em over or half an em under the
// baseline of a line of eight glyphs or more, at most half an em before or after its glyphs and across
// none of them, joins that line (its characters, by where they stand, as a formula's; its box) and is
// marked in `consumed`.
void MergeInlinePieces(std::vector<TextLine>& lines, std::vector<bool>& consumed,
                       const std::vector<Rect>& bars);

// Appends the next line of a paragraph (JoinLine), joining a formula broken at the line's end with its
// rest on the next line ("$a +$" and "$b$" make "$a + b$") when a relation or an operator stands at the
// break.
void JoinLineWithMath(std::string& paragraph, const std::string& next_line);

}  // namespace mineru::document
