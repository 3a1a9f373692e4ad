#include "document/inline_math.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <string_view>

#include "document/formula_latex.h"
#include "document/text_layout.h"

namespace mineru::document {
namespace {

constexpr double kMaxSpaceEms = 1;         // a space a formula runs on across, widest
constexpr double kScriptRatio = 0.85;      // a script's size to the line's, largest
constexpr double kRaisedEms = 0.2;         // a raised mark's baseline over the line's, least
constexpr size_t kMaxFormulaGlyphs = 400;  // in one inline formula; more is written as text

// What a character is to a formula.
enum class Part {
  kProse,    // a word of a text font, its punctuation; a bullet or a note's mark; a dot leader
  kNeutral,  // a digit, a relation, an operator or a delimiter of a text font, a Greek letter alone,
             // an operator name or a script in a text font: in a formula when it stands by one
  kMath,     // a glyph of a math font
};

bool IsSpace(char32_t c) { return c == ' ' || c == '\t' || c == 0xA0 || c == '\r' || c == '\n'; }

bool IsGreek(char32_t c) { return c >= 0x0391 && c <= 0x03F6; }

bool IsLetterOfText(const TextChar& c) {
  return !c.math && (IsRomanLetter(c.rune) || IsGreek(c.rune) || IsCjkChar(c.rune) || c.rune >= 0x0400);
}

// Marks set before an item or after a name, in math fonts as often as not (LaTeX's itemize bullets and
// \thanks marks are TeX's math symbols).
bool IsMark(char32_t c) {
  return c == U'•' || c == U'◦' || c == U'∗' || c == U'⋆' || c == U'†' || c == U'‡' || c == U'§' ||
         c == U'¶' || c == U'·' || c == U'∙' || c == U'⋅' || c == U'○' || c == U'★' || c == U'☆' ||
         c == U'■' || c == U'□' || c == U'▪' || c == U'►' || c == U'▶' || c == U'✓' || c == U'*';
}

bool IsOperatorLike(char32_t c) { return IsMathRelation(c) || IsMathBinaryOperator(c); }

bool IsDot(char32_t c) { return c == '.' || c == U'·' || c == U'⋅' || c == U'…' || c == U'⋯'; }

// What a formula needs one of at least: a letter, a digit, a symbol; not punctuation, a delimiter, a
// relation, an operator or a mark.
bool IsOperand(char32_t c) {
  return !(IsDot(c) || c == ',' || c == ';' || c == ':' || IsOperatorLike(c) || IsMathDelimiter(c) ||
           IsMark(c));
}

constexpr size_t kLeaderDots = 4;  // dots in a row (spaces between them aside) that lead to a page number

bool IsOpening(char32_t c) { return c == '(' || c == '[' || c == '{' || c == U'⟨'; }
bool IsClosing(char32_t c) { return c == ')' || c == ']' || c == '}' || c == U'⟩'; }

class LineParts {
 public:
  LineParts(const TextLine& line, bool goes_on, const std::vector<Rect>& bars)
      : line_(line), parts_(line.chars.size(), Part::kProse) {
    base_ = LineBaseline(line);
    Classify();
    MarkStacked(bars);
    if (goes_on) MarkGoingOn();
  }

  std::vector<InlineFormula> Formulas() const;

 private:
  bool IsScript(const TextChar& c) const {
    return c.size > 0 && c.size <= kScriptRatio * line_.font_size &&
           std::abs(c.baseline - base_) >= 0.1 * line_.font_size;
  }
  bool IsRaised(const TextChar& c) const {
    return c.size > 0 && c.size <= kScriptRatio * line_.font_size &&
           c.baseline <= base_ - kRaisedEms * line_.font_size;
  }
  void Classify();
  std::vector<bool> Leaders() const;
  void MarkGoingOn();
  void MarkStacked(const std::vector<Rect>& bars);
  void ClassifyWord(size_t begin, size_t end);
  bool Bridges(size_t left, size_t right) const;
  bool Trim(InlineFormula& f) const;

  const TextLine& line_;
  std::vector<Part> parts_;
  std::vector<bool> operator_name_;  // letters of an operator name ("log")
  double base_ = 0;
};

void LineParts::Classify() {
  const std::vector<TextChar>& chars = line_.chars;
  operator_name_.assign(chars.size(), false);
  const std::vector<bool> leader = Leaders();
  bool first_glyph = true;
  for (size_t i = 0; i < chars.size(); ++i) {
    const TextChar& c = chars[i];
    if (IsSpace(c.rune)) continue;
    if ((IsMark(c.rune) && (first_glyph || IsRaised(c))) || leader[i]) {
      parts_[i] = Part::kProse;
    } else if (!IsFormulaGlyph(c)) {
      parts_[i] = Part::kNeutral;
    } else if (c.math) {
      parts_[i] = Part::kMath;
    } else if (IsLetterOfText(c)) {
      size_t end = i;
      while (end < chars.size() && IsLetterOfText(chars[end])) ++end;
      ClassifyWord(i, end);
      i = end - 1;
    } else if ((c.rune >= '0' && c.rune <= '9') || IsOperatorLike(c.rune) || IsMathDelimiter(c.rune) ||
               IsMathSymbol(c.rune)) {
      parts_[i] = Part::kNeutral;
    }
    first_glyph = false;
  }
}

// Dots of a leader: kLeaderDots or more in a row, spaces between them aside (an index's, a table of
// contents'; set in a math font as often as not).
std::vector<bool> LineParts::Leaders() const {
  const std::vector<TextChar>& chars = line_.chars;
  std::vector<bool> leader(chars.size(), false);
  for (size_t i = 0; i < chars.size();) {
    if (!IsDot(chars[i].rune)) {
      ++i;
      continue;
    }
    size_t end = i, dots = 0;
    while (end < chars.size() && (IsDot(chars[end].rune) || IsSpace(chars[end].rune))) {
      dots += IsDot(chars[end].rune) ? 1 : 0;
      ++end;
    }
    for (size_t k = i; k < end && dots >= kLeaderDots; ++k) leader[k] = true;
    i = end;
  }
  return leader;
}

// Digits and operators set over and under a bar (a fraction "1/2" set small in the line) are a
// formula's whatever their font; a bar with nothing under it (an underline) makes none.
void LineParts::MarkStacked(const std::vector<Rect>& bars) {
  const std::vector<TextChar>& chars = line_.chars;
  const double em = std::max(1.0, line_.font_size);
  for (const Rect& bar : bars) {
    std::vector<size_t> over, under;
    for (size_t i = 0; i < chars.size(); ++i) {
      if (parts_[i] == Part::kProse || !IsFormulaGlyph(chars[i])) continue;
      const Rect core = GlyphCore(chars[i]);
      if (core.cx() < bar.x0 || core.cx() > bar.x1) continue;
      if (bar.y0 - core.y1 >= -0.1 && bar.y0 - core.y1 <= 0.3 * em) over.push_back(i);
      if (core.y0 - bar.y1 >= -0.1 && core.y0 - bar.y1 <= 0.3 * em) under.push_back(i);
    }
    if (over.empty() || under.empty()) continue;
    for (size_t i : over) parts_[i] = Part::kMath;
    for (size_t i : under) parts_[i] = Part::kMath;
  }
}

// The line goes on with a formula the line before left open: its first glyphs that a formula is made of,
// up to the first space that does not bridge, are the formula's however they are set.
void LineParts::MarkGoingOn() {
  const std::vector<TextChar>& chars = line_.chars;
  size_t last = chars.size();
  for (size_t i = 0; i < chars.size(); ++i) {
    if (IsSpace(chars[i].rune)) continue;
    if (parts_[i] == Part::kProse || (last != chars.size() && i > last + 1 && !Bridges(last, i))) break;
    if (parts_[i] == Part::kNeutral) parts_[i] = Part::kMath;
    last = i;
  }
}

// Letters of a text font in a row: an operator name, a Greek letter alone or a script stand by a
// formula; any other word is prose.
void LineParts::ClassifyWord(size_t begin, size_t end) {
  const std::vector<TextChar>& chars = line_.chars;
  std::string ascii;
  bool scripts = true;
  for (size_t k = begin; k < end; ++k) {
    ascii.push_back(chars[k].rune < 0x80 ? static_cast<char>(chars[k].rune) : '?');
    scripts = scripts && IsScript(chars[k]);
  }
  const bool name = IsOperatorName(ascii);
  const bool greek = end - begin == 1 && IsGreek(chars[begin].rune);
  // (A letter alone in a word with a glyph of a math font in it: the base of its scripts, a bold "x" of
  // \mathbf{x}_i, an argument, "W" of "L(W)".)
  bool with_math = false;
  for (size_t k = begin; k > 0 && !IsSpace(chars[k - 1].rune) && !with_math; --k)
    with_math = chars[k - 1].math && IsFormulaGlyph(chars[k - 1]);
  for (size_t k = end; k < chars.size() && !IsSpace(chars[k].rune) && !with_math; ++k)
    with_math = chars[k].math && IsFormulaGlyph(chars[k]);
  const bool alone = end - begin == 1 && with_math;
  if (!name && !greek && !scripts && !alone) return;
  for (size_t k = begin; k < end; ++k) {
    parts_[k] = Part::kNeutral;
    operator_name_[k] = name;
  }
}

// Whether a formula runs on across the space between glyphs `left` and `right`.
bool LineParts::Bridges(size_t left, size_t right) const {
  if (parts_[left] == Part::kProse || parts_[right] == Part::kProse) return false;
  const TextChar& a = line_.chars[left];
  const TextChar& b = line_.chars[right];
  if (b.box.x0 - a.box.x1 > kMaxSpaceEms * std::max(1.0, line_.font_size)) return false;
  // (A comma of a math font separates a formula's items: "[0, 1)".)
  const bool separator = parts_[left] == Part::kMath && (a.rune == ',' || a.rune == ';');
  return IsOperatorLike(a.rune) || IsOperatorLike(b.rune) || operator_name_[left] || operator_name_[right] ||
         separator || (parts_[left] == Part::kMath && parts_[right] == Part::kMath);
}

// Leaves out of a formula what stands at its ends but belongs to the text around it: a text font's
// delimiters wrapping it, delimiters left unmatched in it, and a text font's glyphs that are not
// digits, letters or operators. False when nothing of a math font is left.
bool LineParts::Trim(InlineFormula& f) const {
  const std::vector<TextChar>& chars = line_.chars;
  auto glyph = [&](size_t i) { return IsFormulaGlyph(chars[i]) && !IsSpace(chars[i].rune); };
  auto text_font = [&](size_t i) { return parts_[i] != Part::kMath; };
  // The index of the delimiter matching the one at `i` within the formula, or npos.
  auto partner = [&](size_t i) {
    const bool opening = IsOpening(chars[i].rune);
    int depth = 0;
    for (size_t k = i; k >= f.begin && k < f.end; opening ? ++k : --k) {
      if (IsOpening(chars[k].rune)) depth += opening ? 1 : -1;
      if (IsClosing(chars[k].rune)) depth += opening ? -1 : 1;
      if (depth == 0) return k;
      if (k == 0 && !opening) break;
    }
    return std::string::npos;
  };
  for (bool changed = true; changed && f.begin < f.end;) {
    changed = false;
    while (f.begin < f.end && !glyph(f.begin)) ++f.begin;
    while (f.end > f.begin && !glyph(f.end - 1)) --f.end;
    if (f.begin == f.end) break;
    const size_t first = f.begin, last = f.end - 1;
    const char32_t a = chars[first].rune;
    // (A delimiter left unmatched in it, of any font: "⟨15" of "⟨15-bit number⟩".)
    auto loose_end = [&](size_t i) {
      const char32_t c = chars[i].rune;
      if (IsMathDelimiter(c)) return partner(i) == std::string::npos;
      return text_font(i) && !(c >= '0' && c <= '9') && !IsOperatorLike(c) && !IsLetterOfText(chars[i]);
    };
    if (text_font(first) && text_font(last) && IsOpening(a) && partner(first) == last) {
      ++f.begin;
      --f.end;
      changed = true;
    } else if (loose_end(first) || a == ',' || a == ';') {  // (no formula starts with a comma)
      ++f.begin;
      changed = true;
    } else if (first != last && loose_end(last)) {
      --f.end;
      changed = true;
    }
  }
  // (Punctuation, delimiters and operators with no operand are none: a math font's comma, "⟨" and "⟩"
  // around a manual's meta-variable, "≪" and "≫" for quotation marks, "−" for a dash, a "}" of the
  // symbols font that LaTeX sets for "\}" in text.)
  size_t glyphs = 0;
  bool math = false, content = false;
  char32_t only = 0;
  for (size_t k = f.begin; k < f.end; ++k) {
    if (!glyph(k)) continue;
    ++glyphs;
    only = chars[k].rune;
    math = math || parts_[k] == Part::kMath;
    content = content || IsOperand(only);
  }
  return math && content && glyphs <= kMaxFormulaGlyphs && !(glyphs == 1 && IsMark(only));
}

std::vector<InlineFormula> LineParts::Formulas() const {
  const std::vector<TextChar>& chars = line_.chars;
  std::vector<InlineFormula> out;
  size_t i = 0;
  while (i < chars.size()) {
    if (IsSpace(chars[i].rune) || parts_[i] == Part::kProse) {
      ++i;
      continue;
    }
    // A run of glyphs that are not prose, on across the spaces a formula runs on across.
    InlineFormula f{i, i + 1};
    size_t last = i;  // the run's last glyph
    size_t k = i + 1;
    while (k < chars.size()) {
      if (IsSpace(chars[k].rune)) {
        size_t next = k;
        while (next < chars.size() && IsSpace(chars[next].rune)) ++next;
        if (next == chars.size() || !Bridges(last, next)) break;
        k = next;
      }
      if (parts_[k] == Part::kProse) break;
      last = k++;
    }
    f.end = last + 1;
    i = k;
    if (Trim(f)) out.push_back(f);
  }
  return out;
}

// The last (or first) token of LaTeX: a command ("\\leq") or a character.
std::string_view EdgeToken(std::string_view latex, bool last) {
  auto letter = [](char c) { return std::isalpha(static_cast<unsigned char>(c)) != 0; };
  while (!latex.empty() && latex.back() == ' ') latex.remove_suffix(1);
  while (!latex.empty() && latex.front() == ' ') latex.remove_prefix(1);
  if (latex.empty()) return latex;
  if (last) {
    size_t k = latex.size();
    while (k > 0 && letter(latex[k - 1])) --k;
    if (k > 0 && k < latex.size() && latex[k - 1] == '\\') return latex.substr(k - 1);
    size_t start = latex.size() - 1;  // the last character's first byte
    while (start > 0 && (static_cast<unsigned char>(latex[start]) & 0xC0) == 0x80) --start;
    return latex.substr(start);
  }
  size_t end = 1;
  if (latex[0] == '\\') {
    while (end < latex.size() && letter(latex[end])) ++end;
  } else {
    while (end < latex.size() && (static_cast<unsigned char>(latex[end]) & 0xC0) == 0x80) ++end;
  }
  return latex.substr(0, end);
}

// The `bars` within a formula's glyphs across and the line's height.
std::vector<Rect> BarsIn(const std::vector<TextChar>& glyphs, const TextLine& line,
                         const std::vector<Rect>& bars) {
  double x0 = line.box.x1, x1 = line.box.x0;
  for (const TextChar& c : glyphs) {
    if (!IsFormulaGlyph(c)) continue;
    x0 = std::min(x0, c.box.x0);
    x1 = std::max(x1, c.box.x1);
  }
  std::vector<Rect> in;
  for (const Rect& d : bars) {
    if (d.x0 >= x0 - 1 && d.x1 <= x1 + 1 && d.y0 >= line.box.y0 && d.y1 <= line.box.y1) in.push_back(d);
  }
  return in;
}

// `bars`: the formula bars drawn in the line.
std::vector<InlineFormula> FindFormulas(const TextLine& line, bool goes_on, const std::vector<Rect>& bars) {
  if (line.monospace || line.sideways || line.rtl || line.chars.empty()) return {};
  bool any = goes_on || !bars.empty();
  for (const TextChar& c : line.chars) any = any || (c.math && IsFormulaGlyph(c));
  if (!any) return {};
  return LineParts(line, goes_on, bars).Formulas();
}

}  // namespace

std::vector<InlineFormula> FindInlineFormulas(const TextLine& line) { return FindFormulas(line, false, {}); }

bool EndsInOpenFormula(const std::string& text) {
  if (text.size() < 2 || text.back() != '$') return false;
  const size_t open = text.rfind('$', text.size() - 2);
  return open != std::string::npos &&
         IsOperatorLatex(EdgeToken(std::string_view(text).substr(open + 1, text.size() - open - 2), true));
}

std::string TextWithInlineMath(const TextLine& line, const std::vector<Rect>& bars, bool goes_on) {
  const std::vector<InlineFormula> formulas = FindFormulas(line, goes_on, BarsIn(line.chars, line, bars));
  if (formulas.empty()) return line.text;
  std::string text;
  bool pending_space = false;
  size_t next = 0;
  for (size_t i = 0; i < line.chars.size();) {
    if (next < formulas.size() && i == formulas[next].begin) {
      const InlineFormula& f = formulas[next++];
      const std::vector<TextChar> glyphs(line.chars.begin() + f.begin, line.chars.begin() + f.end);
      std::string latex = FormulaLatex(glyphs, BarsIn(glyphs, line, bars));
      // (Scripts with nothing before them: a name's marks, "Silva$^{1,2}$".)
      if (latex.starts_with("{}")) latex.erase(0, 2);
      if (!latex.empty()) {
        if (pending_space && !text.empty()) text.push_back(' ');
        pending_space = false;
        text += "$" + latex + "$";
      }
      i = f.end;
      continue;
    }
    AppendLineChar(text, pending_space, line.chars[i++].rune);
  }
  return text;
}

namespace {

constexpr size_t kMaxPieceGlyphs = 6;
constexpr size_t kMinHostGlyphs = 8;
constexpr double kPieceReachEms = 0.5;  // from the line's glyphs, farthest

// Whether a line is a piece of an inline formula by what it holds (MergeInlinePieces): glyphs of a math
// font, or digits and operators over or under a fraction's bar (`bars`).
bool IsPieceLine(const TextLine& line, const std::vector<Rect>& bars) {
  if (line.monospace || line.sideways || line.rtl) return false;
  size_t glyphs = 0;
  bool math = false;
  for (const TextChar& c : line.chars) {
    if (!IsFormulaGlyph(c)) continue;
    const bool digit = c.rune >= '0' && c.rune <= '9';
    if (!(c.math || c.ink || digit || IsOperatorLike(c.rune))) return false;
    ++glyphs;
    math = math || c.math || c.ink;
  }
  if (glyphs == 0 || glyphs > kMaxPieceGlyphs) return false;
  const double em = std::max(1.0, line.font_size);
  return math || std::any_of(bars.begin(), bars.end(), [&](const Rect& bar) {
           return bar.x0 <= line.box.x0 + 1 && bar.x1 >= line.box.x1 - 1 &&
                  std::min(std::abs(bar.y0 - line.box.y1), std::abs(line.box.y0 - bar.y1)) <= 0.5 * em;
         });
}

size_t GlyphCount(const TextLine& line) {
  return static_cast<size_t>(std::count_if(line.chars.begin(), line.chars.end(), IsFormulaGlyph));
}

// How well a piece (its glyphs' `core`) fits in `host`'s line: the distance of its middle from the
// host's baseline, or a negative value when it does not fit.
double FitInLine(const Rect& core, const TextLine& host) {
  const double em = std::max(1.0, host.font_size);
  const double base = LineBaseline(host);
  const double middle = 0.5 * (core.y0 + core.y1);
  if (middle < base - em || middle > base + 0.5 * em) return -1;
  if (core.x1 < host.box.x0 - kPieceReachEms * em || core.x0 > host.box.x1 + kPieceReachEms * em) return -1;
  double nearest = 1e9;
  for (const TextChar& c : host.chars) {
    if (!IsFormulaGlyph(c)) continue;
    const Rect g = GlyphCore(c);
    // (Across a glyph of the line: a line over or under the piece's, not its own. A numerator over its
    // denominator, both pieces, is no glyph in the way.)
    if (g.x0 < core.x1 - 0.1 && core.x0 < g.x1 - 0.1 && g.y0 < core.y1 - 0.1 && core.y0 < g.y1 - 0.1)
      return -1;
    nearest = std::min(nearest, std::max(g.x0 - core.x1, core.x0 - g.x1));
  }
  return nearest <= kPieceReachEms * em ? std::abs(middle - base) : -1;
}

// (A piece's glyphs are a formula's whatever their font: a fraction's "1" over "2" set in roman.)
void MergeInto(TextLine& host, const TextLine& piece) {
  for (TextChar c : piece.chars) {
    if (!IsFormulaGlyph(c)) continue;
    c.math = true;
    auto at = std::find_if(host.chars.begin(), host.chars.end(),
                           [&](const TextChar& h) { return h.box.x0 > c.box.x0; });
    host.chars.insert(at, c);
  }
  host.box = host.box.Union(piece.box);
  host.text.clear();
  bool pending_space = false;
  for (const TextChar& c : host.chars) AppendLineChar(host.text, pending_space, c.rune);
}

}  // namespace

void MergeInlinePieces(std::vector<TextLine>& lines, std::vector<bool>& consumed,
                       const std::vector<Rect>& bars) {
  for (size_t p = 0; p < lines.size(); ++p) {
    if (consumed[p] || !IsPieceLine(lines[p], bars)) continue;
    Rect core;
    bool any = false;
    for (const TextChar& c : lines[p].chars) {
      if (!IsFormulaGlyph(c)) continue;
      core = any ? core.Union(GlyphCore(c)) : GlyphCore(c);
      any = true;
    }
    size_t best = lines.size();
    double best_fit = 0;
    const double middle = 0.5 * (core.y0 + core.y1);
    for (size_t h = 0; h < lines.size(); ++h) {
      const TextLine& host = lines[h];
      const double em = std::max(1.0, host.font_size);
      // (Lines far from the piece are passed over before their glyphs are looked at.)
      if (h == p || consumed[h] || middle < host.box.y0 - em || middle > host.box.y1 + em ||
          core.x1 < host.box.x0 - em || core.x0 > host.box.x1 + em || host.monospace || host.sideways ||
          host.rtl || host.font_size < lines[p].font_size || GlyphCount(host) < kMinHostGlyphs)
        continue;
      const double fit = FitInLine(core, lines[h]);
      if (fit >= 0 && (best == lines.size() || fit < best_fit)) {
        best = h;
        best_fit = fit;
      }
    }
    if (best == lines.size()) continue;
    MergeInto(lines[best], lines[p]);
    consumed[p] = true;
  }
}

void JoinLineWithMath(std::string& paragraph, const std::string& next_line) {
  if (paragraph.size() >= 2 && paragraph.back() == '$' && next_line.size() >= 2 && next_line.front() == '$') {
    const size_t close = next_line.find('$', 1);
    if (close != std::string::npos &&
        (EndsInOpenFormula(paragraph) ||
         IsOperatorLatex(EdgeToken(std::string_view(next_line).substr(1, close - 1), /*last=*/false)))) {
      paragraph.pop_back();
      paragraph += " " + next_line.substr(1);
      return;
    }
  }
  JoinLine(paragraph, next_line);
}

}  // namespace mineru::document
