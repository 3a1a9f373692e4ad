#include "document/display_math.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <string_view>

#include "document/formula_latex.h"

namespace mineru::document {
namespace {

constexpr double kRowReachEms = 3;          // pieces of one formula on a baseline, farthest apart
constexpr double kStackReachEms = 0.6;      // pieces stacked over one another, farthest apart
constexpr double kClearEms = 8;             // around a formula, only a long line of another column
constexpr double kLongLineEms = 10;         // such a line, shortest
constexpr size_t kMaxPieceGlyphs = 5;       // a limit's or a numerator's line, joined by stacking alone
constexpr size_t kMaxWordsGlyphs = 24;      // a line of words in a formula ("for t ≥ 0")
constexpr size_t kMaxFormulaWords = 3;      // words of prose in one formula ("if", "otherwise", "for")
constexpr size_t kMaxFormulaGlyphs = 2000;  // in one display; more is a page of symbols, no formula
constexpr double kRunGapEms = 0.5;          // lines of a run (a listing, an index), farthest apart
constexpr double kRunPitchEms = 1.5;        // and their baselines, farthest apart

double Em(const TextLine& line) { return std::max(1.0, line.font_size); }

// What a line is made of, for telling a formula's lines from prose.
struct LineMakeup {
  size_t glyphs = 0;
  size_t math = 0;           // glyphs in a math font, or math symbols
  size_t prose_words = 0;    // words of two letters or more in a text font, not operator names
  size_t prose_letters = 0;  // their letters
  bool operators = false;    // a relation, an operator, a big operator or a radical
};

LineMakeup MakeupOf(const TextLine& line) {
  LineMakeup m;
  std::string word;
  bool in_angles = false;  // between "⟨" and "⟩" (or CJK's "〈" and "〉", which some fonts set for them)
  size_t meta = 0;         // letters and digits of a text font there, in a row
  auto end_word = [&] {
    if (word.size() >= 2 && !IsOperatorName(word)) {
      ++m.prose_words;
      m.prose_letters += word.size();
    }
    word.clear();
  };
  // A name in angle brackets ("⟨dimension⟩", "⟨*driver⟩") is a manual's meta-variable, prose however
  // short: two words' worth.
  auto end_meta = [&] {
    if (meta >= 2) m.prose_words += 2;
    meta = 0;
  };
  for (const TextChar& c : line.chars) {
    if (!IsFormulaGlyph(c)) {
      end_word();
      end_meta();
      continue;
    }
    ++m.glyphs;
    // (Delimiters make no formula by themselves.)
    if ((c.math || IsMathSymbol(c.rune)) && !IsMathDelimiter(c.rune)) ++m.math;
    m.operators = m.operators || IsMathRelation(c.rune) || IsMathBinaryOperator(c.rune) ||
                  IsBigOperator(c.rune) || c.rune == U'√';
    if (!c.math && IsRomanLetter(c.rune)) {
      word.push_back(c.rune < 0x80 ? static_cast<char>(c.rune) : 'x');
    } else {
      end_word();
    }
    if (c.rune == U'⟨' || c.rune == U'⟩' || c.rune == U'〈' || c.rune == U'〉') {
      end_meta();
      in_angles = c.rune == U'⟨' || c.rune == U'〈';
    } else if (in_angles && !c.math && (IsRomanLetter(c.rune) || (c.rune >= '0' && c.rune <= '9'))) {
      ++meta;
    } else {
      end_meta();
    }
  }
  end_word();
  end_meta();
  return m;
}

// Words set in a formula ("for t ≥ 0", "if x < 0", "side² ="), joined to a formula beside them, never
// one alone.
bool IsWordsInFormula(const LineMakeup& m) {
  return (m.math >= 1 || m.operators) && m.prose_words <= 2 && m.glyphs <= kMaxWordsGlyphs;
}

bool IsFormulaLine(const LineMakeup& m) {
  return m.math >= 1 && m.prose_words <= 1 && m.prose_letters * 3 <= m.glyphs;
}

// A small piece of a formula that is no formula by itself: a limit's "0", a numerator's "1", "n = 1".
bool IsPiece(const LineMakeup& m) { return m.glyphs <= kMaxPieceGlyphs && m.prose_words == 0; }

// A line's glyphs where they stand (GlyphCore): lines set a line's pitch apart stand 0.3 em apart or
// so, a display's lines an em or more from the text over and under them.
Rect CoreBox(const TextLine& line) {
  Rect core;
  bool any = false;
  for (const TextChar& c : line.chars) {
    // (Nor a radical sign of a text font: TeX's hangs from its baseline.)
    if (!IsFormulaGlyph(c) || (c.rune == U'√' && !c.ink)) continue;
    const Rect b = GlyphCore(c);
    core = any ? core.Union(b) : b;
    any = true;
  }
  return any ? core : line.box;
}

size_t Find(std::vector<size_t>& parent, size_t i) {
  while (parent[i] != i) i = parent[i] = parent[parent[i]];
  return i;
}

bool HorizontallyOverlap(const Rect& a, const Rect& b, double slack) {
  return a.x0 < b.x1 + slack && b.x0 < a.x1 + slack;
}

double HorizontalGap(const Rect& a, const Rect& b) { return std::max(a.x0 - b.x1, b.x0 - a.x1); }

double VerticalGap(const Rect& a, const Rect& b) { return std::max(a.y0 - b.y1, b.y0 - a.y1); }

// A page's lines as FindDisplayEquations reads them: what each is made of, its core box (CoreBox), and
// the groups of lines that set one formula.
struct PageLines {
  PageLines(const std::vector<TextLine>& l, const std::vector<bool>& c) : lines(l), consumed(c) {}

  const std::vector<TextLine>& lines;
  const std::vector<bool>& consumed;
  std::vector<Rect> bars;  // thin horizontal drawings: fraction bars, radicals' vincula
  std::vector<LineMakeup> makeup;
  std::vector<Rect> core;
  std::vector<double> baseline;  // LineBaseline() of each line
  std::vector<bool> formula, piece, words;

  bool member(size_t i) const { return formula[i] || piece[i] || words[i]; }

  void Classify(const std::vector<Rect>& figures) {
    const size_t n = lines.size();
    makeup.assign(n, {});
    core.resize(n);
    baseline.resize(n);
    formula.assign(n, false);
    piece.assign(n, false);
    words.assign(n, false);
    for (size_t i = 0; i < n; ++i) {
      core[i] = CoreBox(lines[i]);
      baseline[i] = LineBaseline(lines[i]);
      // (Code is no display, whatever operators it holds.)
      if (consumed[i] || lines[i].sideways || lines[i].monospace) continue;
      if (std::any_of(figures.begin(), figures.end(),
                      [&](const Rect& f) { return f.ContainsCenterOf(lines[i].box); }))
        continue;
      makeup[i] = MakeupOf(lines[i]);
      formula[i] = IsFormulaLine(makeup[i]);
      piece[i] = !formula[i] && IsPiece(makeup[i]) && !IsEquationNumber(lines[i].text);
      words[i] = !formula[i] && !piece[i] && IsWordsInFormula(makeup[i]);
    }
  }

  // Whether a bar parts two stacked lines: glyphs of the upper one over it, of the lower one under it.
  bool BarBetween(size_t upper, size_t lower) const {
    if (core[upper].y0 > core[lower].y0) std::swap(upper, lower);
    auto over = [&](const Rect& bar, size_t i, bool above) {
      return std::any_of(lines[i].chars.begin(), lines[i].chars.end(), [&](const TextChar& c) {
        if (!IsFormulaGlyph(c) || c.box.cx() < bar.x0 || c.box.cx() > bar.x1) return false;
        const double base = c.size > 0 ? c.baseline : c.box.y1;
        return above ? base <= bar.cy() : base - 0.6 * std::max(1.0f, c.size) >= bar.cy() - 1;
      });
    };
    return std::any_of(bars.begin(), bars.end(),
                       [&](const Rect& bar) { return over(bar, upper, true) && over(bar, lower, false); });
  }

  // Formula lines joined: on a baseline up to kRowReachEms apart, or stacked (a piece, or a bar between).
  std::vector<std::vector<size_t>> Groups() {
    std::vector<size_t> parent(lines.size());
    std::iota(parent.begin(), parent.end(), 0);
    for (size_t i = 0; i < lines.size(); ++i) {
      if (!member(i)) continue;
      for (size_t j = i + 1; j < lines.size(); ++j) {
        if (!member(j)) continue;
        const Rect& a = core[i];
        const Rect& b = core[j];
        const double em = std::max(Em(lines[i]), Em(lines[j]));
        const bool row = VerticalOverlap(a, b) >= 0.3 && HorizontalGap(a, b) <= kRowReachEms * em;
        // (Two full lines of a formula stacked are two rows, each one formula, unless a bar parts them.)
        const bool small = makeup[i].glyphs <= kMaxPieceGlyphs || makeup[j].glyphs <= kMaxPieceGlyphs;
        const bool stack = !words[i] && !words[j] && HorizontallyOverlap(a, b, 0.5 * em) &&
                           VerticalGap(a, b) <= kStackReachEms * em && (small || BarBetween(i, j));
        if (row || stack) parent[Find(parent, i)] = Find(parent, j);
      }
    }
    // Groups level with each other join too: two formulas of one display line (a matrix beside cases,
    // a \qquad apart) whose lines, rows of arrays, pair with none of the other's.
    for (bool joined = true; joined;) {
      joined = false;
      std::vector<Rect> box(lines.size());
      std::vector<bool> any(lines.size(), false);
      for (size_t i = 0; i < lines.size(); ++i) {
        if (!member(i)) continue;
        const size_t r = Find(parent, i);
        box[r] = any[r] ? box[r].Union(core[i]) : core[i];
        any[r] = true;
      }
      for (size_t a = 0; a < lines.size(); ++a) {
        for (size_t b = a + 1; b < lines.size() && any[a]; ++b) {
          const double em = std::max(Em(lines[a]), Em(lines[b]));
          if (any[b] && Find(parent, a) != Find(parent, b) && VerticalOverlap(box[a], box[b]) >= 0.5 &&
              HorizontalGap(box[a], box[b]) <= kRowReachEms * em) {
            parent[Find(parent, a)] = Find(parent, b);
            joined = true;
          }
        }
      }
    }
    std::vector<std::vector<size_t>> groups(lines.size());
    for (size_t i = 0; i < lines.size(); ++i) {
      if (member(i)) groups[Find(parent, i)].push_back(i);
    }
    groups.erase(std::remove_if(groups.begin(), groups.end(), [](const auto& g) { return g.empty(); }),
                 groups.end());
    return groups;
  }

  // Whether line k stands in another column than a formula whose core is `formula`: a long line (or one
  // with a long line of its column within three ems over or under it) that keeps clear of it.
  bool InAnotherColumn(size_t k, const Rect& formula) const {
    auto long_clear = [&](size_t i) {
      return !member(i) && core[i].width() >= kLongLineEms * Em(lines[i]) &&
             !HorizontallyOverlap(core[i], formula, 0);
    };
    if (long_clear(k)) return true;
    for (size_t i = 0; i < lines.size(); ++i) {
      if (i != k && !consumed[i] && long_clear(i) && HorizontallyOverlap(core[i], core[k], 0) &&
          VerticalGap(core[i], core[k]) <= 3 * Em(lines[k]))
        return true;
    }
    return false;
  }

  // Whether the formula set in `group` (its core `box`) stands apart: on its baseline only its number
  // beside it (set in *number; none when rows stand numbered each) and what stands in another column or
  // kClearEms away. A line stands on its baseline when it overlaps it and its baseline is within 0.3 em
  // of the baselines of the formula's lines (the line of text over a display reaches down to the
  // numerator of a fraction, not to its baseline).
  bool StandsApart(const std::vector<size_t>& group, const Rect& box, size_t* number) const {
    double em = 1;
    double low = baseline[group.front()], high = low;
    for (size_t i : group) {
      em = std::max(em, Em(lines[i]));
      low = std::min(low, baseline[i]);
      high = std::max(high, baseline[i]);
    }
    std::vector<bool> in(lines.size(), false);
    for (size_t i : group) in[i] = true;
    auto beside = [&](size_t k) {
      return VerticalOverlap(box, core[k]) >= 0.3 && baseline[k] >= low - 0.3 * em &&
             baseline[k] <= high + 0.3 * em;
    };
    std::vector<size_t> numbers;
    for (size_t k = 0; k < lines.size(); ++k) {
      const Rect& b = core[k];
      if (in[k] || consumed[k] || !beside(k)) continue;
      const double gap = HorizontalGap(box, b);
      if (IsEquationNumber(lines[k].text) && gap >= 0.5 * em) {
        numbers.push_back(k);
        continue;
      }
      if (gap < kClearEms * em && !(gap >= em && InAnotherColumn(k, box))) return false;
    }
    // The nearest number is the formula's, unless another stands under or over it (aligned rows, each
    // numbered: their numbers stay text) or a line of another column stands between them.
    *number = lines.size();
    if (numbers.empty()) return true;
    auto gap_of = [&](size_t k) { return HorizontalGap(box, core[k]); };
    const size_t nearest = *std::min_element(numbers.begin(), numbers.end(),
                                             [&](size_t a, size_t b) { return gap_of(a) < gap_of(b); });
    for (size_t k : numbers) {
      if (k != nearest && HorizontallyOverlap(core[k], core[nearest], 0)) return true;
    }
    const Rect& n = core[nearest];
    for (size_t k = 0; k < lines.size(); ++k) {
      const Rect& b = core[k];
      if (in[k] || k == nearest || !beside(k)) continue;
      if ((b.x0 >= box.x1 && b.x1 <= n.x0) || (b.x1 <= box.x0 && b.x0 >= n.x1)) return true;
    }
    *number = nearest;
    return true;
  }

  // Whether the formula set in `group` is a paragraph's last line (a sentence ending in an inline formula
  // that fills its last line: "... for all $x \in [0, 1)$."): one line, right under a long line of
  // text at the lines' pitch (kRunPitchEms of their size at most) and flush with its left edge (a display
  // is centred or indented).
  bool EndsAParagraph(const std::vector<size_t>& group) const {
    if (group.size() != 1) return false;
    const size_t f = group.front();
    const double em = Em(lines[f]);
    for (size_t k = 0; k < lines.size(); ++k) {
      if (k == f || consumed[k] || member(k) || core[k].width() < kLongLineEms * Em(lines[k])) continue;
      const double pitch = baseline[f] - baseline[k];
      if (pitch > 0 && pitch <= kRunPitchEms * Em(lines[k]) && std::fabs(core[k].x0 - core[f].x0) <= 0.3 * em)
        return true;
    }
    return false;
  }

  // Whether the formula set in `group` is one line of a run of lines set at their pitch (a listing's,
  // an index's): lines of a formula stacked on it, and on those, reach lines of text less than
  // kRunGapEms over them and under them, whose baselines stand a line's pitch (1.5 of their size at
  // most) from the formula line's they stand by (its main line's past a piece) (a display's skips part it
  // from the text on one side at least; a word processor's formula, set large in a paragraph of its own,
  // stands further from its neighbours).
  bool InRunOfLines(const std::vector<size_t>& group) const {
    size_t main = group.front();
    for (size_t i : group) {
      if (makeup[i].glyphs > makeup[main].glyphs) main = i;
    }
    const double main_base = baseline[main];
    std::vector<bool> seen(lines.size(), false);
    std::vector<size_t> todo = group;
    for (size_t i : group) seen[i] = true;
    bool over = false, under = false;
    while (!todo.empty()) {
      const size_t i = todo.back();
      todo.pop_back();
      const double em = Em(lines[i]);
      for (size_t k = 0; k < lines.size(); ++k) {
        if (seen[k] || consumed[k] || !HorizontallyOverlap(core[i], core[k], 0) ||
            VerticalOverlap(core[i], core[k]) >= 0.3 || VerticalGap(core[i], core[k]) >= kRunGapEms * em)
          continue;
        if (!member(k)) {
          // (From the formula line it stands by; from the main line past a piece, a limit over it.)
          const double from = formula[i] ? baseline[i] : main_base;
          if (std::fabs(baseline[k] - from) <= kRunPitchEms * Em(lines[k]))
            (core[k].y0 < core[i].y0 ? over : under) = true;
          continue;
        }
        seen[k] = true;
        todo.push_back(k);
      }
    }
    return over && under;
  }
};

}  // namespace

bool IsEquationNumber(std::string_view text) {
  if (text.size() < 3 || text.size() > 10 || text.front() != '(' || text.back() != ')') return false;
  bool digit = false;
  for (size_t i = 1; i + 1 < text.size(); ++i) {
    const char c = text[i];
    if (c >= '0' && c <= '9') {
      digit = true;
    } else if (!(c == '.' || c == '-' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'))) {
      return false;
    }
  }
  return digit;
}

std::vector<DisplayEquation> FindDisplayEquations(const std::vector<TextLine>& lines,
                                                  const std::vector<bool>& consumed,
                                                  const std::vector<Rect>& bars,
                                                  const std::vector<Rect>& figures) {
  PageLines page(lines, consumed);
  page.bars = bars;
  page.Classify(figures);
  std::vector<DisplayEquation> out;
  std::vector<size_t> numbers;      // each equation's number line, lines.size() for none
  std::vector<double> number_gaps;  // and how far from it
  for (const std::vector<size_t>& g : page.Groups()) {
    Rect core = page.core[g.front()];
    LineMakeup all;
    bool any_formula = false;
    for (size_t i : g) {
      core = core.Union(page.core[i]);
      all.glyphs += page.makeup[i].glyphs;
      all.math += page.makeup[i].math;
      all.prose_words += page.makeup[i].prose_words;
      all.prose_letters += page.makeup[i].prose_letters;
      all.operators = all.operators || page.makeup[i].operators;
      any_formula = any_formula || page.formula[i];
    }
    const bool barred = std::any_of(page.bars.begin(), page.bars.end(),
                                    [&](const Rect& b) { return core.ContainsCenterOf(b, 1); });
    // (A sentence cut into pieces by the formulas set in it is no display: its words are many.)
    const bool prose = all.prose_words > kMaxFormulaWords || all.prose_letters * 3 > all.glyphs;
    if (!any_formula || prose || all.glyphs < 3 || all.glyphs > kMaxFormulaGlyphs ||
        !(all.operators || barred))
      continue;
    size_t number = lines.size();
    if (!page.StandsApart(g, core, &number) || page.InRunOfLines(g) || page.EndsAParagraph(g)) continue;
    std::vector<TextChar> glyph_chars;
    Rect box = lines[g.front()].box;
    for (size_t i : g) {
      glyph_chars.insert(glyph_chars.end(), lines[i].chars.begin(), lines[i].chars.end());
      box = box.Union(lines[i].box);
    }
    for (const TextChar& ch : glyph_chars) {
      if (IsFormulaGlyph(ch)) box = box.Union(ch.box);  // (a big delimiter's ink may reach past its advance)
    }
    std::vector<Rect> own_bars;
    for (const Rect& b : page.bars) {
      if (box.ContainsCenterOf(b, 1)) own_bars.push_back(b);
    }
    DisplayEquation eq;
    eq.latex = FormulaLatex(glyph_chars, own_bars);
    eq.box = box;
    eq.line_indices = g;
    out.push_back(std::move(eq));
    numbers.push_back(number);
    number_gaps.push_back(number < lines.size() ? HorizontalGap(core, page.core[number]) : 0);
  }
  // A number two formulas claim (one on each side of it, in two columns) is the nearer one's.
  for (size_t e = 0; e < out.size(); ++e) {
    const size_t n = numbers[e];
    if (n == lines.size()) continue;
    bool nearest = true;
    for (size_t o = 0; o < out.size(); ++o) {
      nearest =
          nearest && !(o != e && numbers[o] == n &&
                       (number_gaps[o] < number_gaps[e] || (number_gaps[o] == number_gaps[e] && o < e)));
    }
    if (!nearest) continue;
    const std::string& t = lines[n].text;
    out[e].latex += " \\tag{" + t.substr(1, t.size() - 2) + "}";
    out[e].box = out[e].box.Union(lines[n].box);
    out[e].line_indices.push_back(n);
    std::sort(out[e].line_indices.begin(), out[e].line_indices.end());
  }
  return out;
}

}  // namespace mineru::document
