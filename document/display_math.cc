#include "document/display_math.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <string_view>

#include "document/accents.h"

namespace mineru::document {
namespace {

constexpr double kRowReachEms = 3;        // pieces of one formula on a baseline, farthest apart
constexpr double kStackReachEms = 0.6;    // pieces stacked over one another, farthest apart
constexpr double kLimitReachEms = 0.8;    // a numerator or a limit from its bar or operator, farthest
constexpr double kClearEms = 8;           // around a formula, only a long line of another column
constexpr double kLongLineEms = 10;       // such a line, shortest
constexpr size_t kMaxPieceGlyphs = 5;     // a limit's or a numerator's line, joined by stacking alone
constexpr size_t kMaxWordsGlyphs = 24;    // a line of words in a formula ("for t ≥ 0")
constexpr double kScriptSize = 0.85;      // a script's size to its base's, largest
constexpr double kMaxBarThickness = 1.5;  // points
constexpr double kRunGapEms = 0.5;        // lines of a run (a listing, an index), farthest apart

struct CharLatex {
  char32_t rune;
  std::string_view latex;
};

// Characters that LaTeX writes as commands.
constexpr CharLatex kCharLatex[] = {
    {U'α', "\\alpha"},
    {U'β', "\\beta"},
    {U'γ', "\\gamma"},
    {U'δ', "\\delta"},
    {U'ε', "\\varepsilon"},
    {U'ϵ', "\\epsilon"},
    {U'ζ', "\\zeta"},
    {U'η', "\\eta"},
    {U'θ', "\\theta"},
    {U'ϑ', "\\vartheta"},
    {U'ι', "\\iota"},
    {U'κ', "\\kappa"},
    {U'λ', "\\lambda"},
    {U'μ', "\\mu"},
    {U'ν', "\\nu"},
    {U'ξ', "\\xi"},
    {U'π', "\\pi"},
    {U'ϖ', "\\varpi"},
    {U'ρ', "\\rho"},
    {U'ϱ', "\\varrho"},
    {U'σ', "\\sigma"},
    {U'ς', "\\varsigma"},
    {U'τ', "\\tau"},
    {U'υ', "\\upsilon"},
    {U'ϕ', "\\phi"},
    {U'φ', "\\varphi"},
    {U'χ', "\\chi"},
    {U'ψ', "\\psi"},
    {U'ω', "\\omega"},
    {U'Γ', "\\Gamma"},
    {U'Δ', "\\Delta"},
    {U'Θ', "\\Theta"},
    {U'Λ', "\\Lambda"},
    {U'Ξ', "\\Xi"},
    {U'Π', "\\Pi"},
    {U'Σ', "\\Sigma"},
    {U'Υ', "\\Upsilon"},
    {U'Φ', "\\Phi"},
    {U'Ψ', "\\Psi"},
    {U'Ω', "\\Omega"},
    {U'∑', "\\sum"},
    {U'∏', "\\prod"},
    {U'∐', "\\coprod"},
    {U'∫', "\\int"},
    {U'∬', "\\iint"},
    {U'∭', "\\iiint"},
    {U'∮', "\\oint"},
    {U'⋃', "\\bigcup"},
    {U'⋂', "\\bigcap"},
    {U'⨁', "\\bigoplus"},
    {U'⨂', "\\bigotimes"},
    {U'⨀', "\\bigodot"},
    {U'⋀', "\\bigwedge"},
    {U'⋁', "\\bigvee"},
    {U'⨆', "\\bigsqcup"},
    {U'⨄', "\\biguplus"},
    {U'≤', "\\leq"},
    {U'≥', "\\geq"},
    {U'≠', "\\neq"},
    {U'≈', "\\approx"},
    {U'≡', "\\equiv"},
    {U'∼', "\\sim"},
    {U'≃', "\\simeq"},
    {U'≅', "\\cong"},
    {U'∝', "\\propto"},
    {U'∈', "\\in"},
    {U'∉', "\\notin"},
    {U'∋', "\\ni"},
    {U'⊂', "\\subset"},
    {U'⊃', "\\supset"},
    {U'⊆', "\\subseteq"},
    {U'⊇', "\\supseteq"},
    {U'≪', "\\ll"},
    {U'≫', "\\gg"},
    {U'≺', "\\prec"},
    {U'≻', "\\succ"},
    {U'→', "\\to"},
    {U'←', "\\leftarrow"},
    {U'↔', "\\leftrightarrow"},
    {U'⇒', "\\Rightarrow"},
    {U'⇐', "\\Leftarrow"},
    {U'⇔', "\\Leftrightarrow"},
    {U'↦', "\\mapsto"},
    {U'∣', "\\mid"},
    {U'±', "\\pm"},
    {U'∓', "\\mp"},
    {U'×', "\\times"},
    {U'÷', "\\div"},
    {U'·', "\\cdot"},
    {U'⋅', "\\cdot"},
    {U'∘', "\\circ"},
    {U'⊕', "\\oplus"},
    {U'⊗', "\\otimes"},
    {U'⊙', "\\odot"},
    {U'∗', "\\ast"},
    {U'∪', "\\cup"},
    {U'∩', "\\cap"},
    {U'∧', "\\wedge"},
    {U'∨', "\\vee"},
    {U'∖', "\\setminus"},
    {U'⋆', "\\star"},
    {U'†', "\\dagger"},
    {U'∀', "\\forall"},
    {U'∃', "\\exists"},
    {U'∅', "\\emptyset"},
    {U'∞', "\\infty"},
    {U'∂', "\\partial"},
    {U'∇', "\\nabla"},
    {U'¬', "\\neg"},
    {U'ℓ', "\\ell"},
    {U'ℏ', "\\hbar"},
    {U'⊤', "\\top"},
    {U'⊥', "\\perp"},
    {U'∠', "\\angle"},
    {U'…', "\\ldots"},
    {U'⋯', "\\cdots"},
    {U'⟨', "\\langle"},
    {U'⟩', "\\rangle"},
    {U'⌊', "\\lfloor"},
    {U'⌋', "\\rfloor"},
    {U'⌈', "\\lceil"},
    {U'⌉', "\\rceil"},
    {U'∥', "\\|"},
    {U'‖', "\\|"},
    {U'√', "\\surd"},
    {U'−', "-"},
    {U'′', "'"},
    {U'″', "''"},
    {U'{', "\\{"},
    {U'}', "\\}"},
    {U'%', "\\%"},
    {U'#', "\\#"},
    {U'&', "\\&"},
    {U'_', "\\_"},
    {U'$', "\\$"},
    {U'\\', "\\backslash"},
    {U'\u0338', "\\not"},
    {U'µ', "\\mu"},
    {U'ℕ', "\\mathbb{N}"},
    {U'ℤ', "\\mathbb{Z}"},
    {U'ℚ', "\\mathbb{Q}"},
    {U'ℝ', "\\mathbb{R}"},
    {U'ℂ', "\\mathbb{C}"},
};

// Operator names TeX sets in roman ("\log x").
constexpr std::string_view kOperatorNames[] = {
    "arccos", "arcsin", "arctan", "arg", "cos",  "cosh", "cot", "coth", "csc", "deg",    "det",
    "dim",    "exp",    "gcd",    "hom", "inf",  "ker",  "lg",  "lim",  "ln",  "log",    "max",
    "min",    "Pr",     "sec",    "sin", "sinh", "sup",  "tan", "tanh", "mod", "argmin", "argmax"};

bool IsOperatorName(std::string_view word) {
  return std::find(std::begin(kOperatorNames), std::end(kOperatorNames), word) != std::end(kOperatorNames);
}

bool IsBigOperator(char32_t c) {
  return (c >= U'∏' && c <= U'∑') || (c >= U'∫' && c <= U'∮') || (c >= U'⋀' && c <= U'⋃') ||
         (c >= U'⨀' && c <= U'⨆');
}

bool IsRelation(char32_t c) {
  return c == '=' || c == '<' || c == '>' || (c >= U'≈' && c <= U'≋') || (c >= U'≠' && c <= U'≫') ||
         (c >= U'∈' && c <= U'∌') || (c >= U'⊂' && c <= U'⊋') || (c >= U'←' && c <= U'⇿') || c == U'∼' ||
         c == U'∝' || c == U'≃' || c == U'≅' || c == U'≺' || c == U'≻' || c == U'∣';
}

bool IsBinaryOperator(char32_t c) {
  return c == '+' || c == U'−' || c == U'±' || c == U'∓' || c == U'×' || c == U'÷' || c == U'·' ||
         c == U'⋅' || c == U'∘' || (c >= U'⊕' && c <= U'⊙') || c == U'∗' || c == U'∪' || c == U'∩' ||
         c == U'∧' || c == U'∨' || c == U'∖' || c == U'⋆';
}

bool IsMathSymbol(char32_t c) {
  return (c >= 0x2200 && c <= 0x22FF) || (c >= 0x2A00 && c <= 0x2AFF) || (c >= 0x27E8 && c <= 0x27EB) ||
         (c >= 0x2308 && c <= 0x230B) || (c >= 0x0391 && c <= 0x03F6);
}

bool IsDelimiter(char32_t c) {
  return c == '(' || c == ')' || c == '[' || c == ']' || c == '{' || c == '}' || c == '|' || c == U'⟨' ||
         c == U'⟩' || c == U'‖' || c == U'∥';
}

bool IsLetter(char32_t c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= 0xC0 && c <= 0x24F);
}

bool IsGlyph(const TextChar& c) { return c.rune > ' ' && c.rune != 0xFFFD && c.rune != 0xA0; }

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
  bool in_angles = false;  // between "⟨" and "⟩"
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
    if (!IsGlyph(c)) {
      end_word();
      end_meta();
      continue;
    }
    ++m.glyphs;
    // (Delimiters make no formula by themselves.)
    if ((c.math || IsMathSymbol(c.rune)) && !IsDelimiter(c.rune)) ++m.math;
    m.operators = m.operators || IsRelation(c.rune) || IsBinaryOperator(c.rune) || IsBigOperator(c.rune) ||
                  c.rune == U'√';
    if (!c.math && IsLetter(c.rune)) {
      word.push_back(c.rune < 0x80 ? static_cast<char>(c.rune) : 'x');
    } else {
      end_word();
    }
    if (c.rune == U'⟨' || c.rune == U'⟩') {
      end_meta();
      in_angles = c.rune == U'⟨';
    } else if (in_angles && !c.math && (IsLetter(c.rune) || (c.rune >= '0' && c.rune <= '9'))) {
      ++meta;
    } else {
      end_meta();
    }
  }
  end_word();
  end_meta();
  return m;
}

// Words set in a formula ("for t ≥ 0", "if x < 0"), joined to a formula beside them, never one alone.
bool IsWordsInFormula(const LineMakeup& m) {
  return m.math >= 1 && m.prose_words <= 2 && m.glyphs <= kMaxWordsGlyphs;
}

bool IsFormulaLine(const LineMakeup& m) {
  return m.math >= 1 && m.prose_words <= 1 && m.prose_letters * 3 <= m.glyphs;
}

// A small piece of a formula that is no formula by itself: a limit's "0", a numerator's "1", "n = 1".
bool IsPiece(const LineMakeup& m) { return m.glyphs <= kMaxPieceGlyphs && m.prose_words == 0; }

// "(3)", "(2.1a)", "(A.4)": an equation's number.
bool IsEquationNumber(const std::string& text) {
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

// A line's glyphs from their baselines, 0.7 of their size up and 0.2 down (a text layer's boxes reach as
// far as their fonts' ascents and descents, which differ from font to font): lines set a line's pitch
// apart stand 0.3 em apart or so, a display's lines an em or more from the text over and under them.
Rect CoreBox(const TextLine& line) {
  Rect core;
  bool any = false;
  for (const TextChar& c : line.chars) {
    // (Nor a radical sign of a text font: TeX's hangs from its baseline.)
    if (!IsGlyph(c) || (c.rune == U'√' && !c.ink)) continue;
    const Rect b = c.ink || c.size <= 0
                       ? c.box
                       : Rect{c.box.x0, c.baseline - 0.7 * c.size, c.box.x1, c.baseline + 0.2 * c.size};
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

// ---- LaTeX from glyph positions ----

struct Item {
  Rect box;  // a glyph's: from its baseline, 0.7 of its size up and 0.2 down (its ink for named glyphs)
  std::string tex;
  double size = 0;
  double baseline = 0;
  char32_t rune = 0;  // a glyph's character; 0 for a word, a fraction, a radical, an operator with limits
  bool math = false;
  bool limits = false;  // an operator name that takes limits under it ("\min", "\lim")
};

// Operator names that take limits under them in a display.
constexpr std::string_view kLimitNames[] = {"lim",    "min",    "max",    "sup", "inf", "argmin",
                                            "argmax", "liminf", "limsup", "det", "gcd", "Pr"};

// Accents over a letter in a formula ("ŵ", composed from TeX's \hat over "w") and their commands.
constexpr CharLatex kMathAccents[] = {{U'\u02C6', "\\hat"},   {U'\u02DC', "\\tilde"}, {U'\u00AF', "\\bar"},
                                      {U'\u02D9', "\\dot"},   {U'\u00A8', "\\ddot"},  {U'\u02C7', "\\check"},
                                      {U'\u02D8', "\\breve"}, {U'\u00B4', "\\acute"}, {U'`', "\\grave"}};

std::string GlyphLatex(char32_t c) {
  for (const CharLatex& m : kCharLatex) {
    if (m.rune == c) return std::string(m.latex);
  }
  if ((c >= 0xC0 && c <= 0x17F) || (c >= 0x1E00 && c <= 0x1EFF)) {
    for (const CharLatex& accent : kMathAccents) {
      for (char32_t letter : std::u32string_view(U"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")) {
        if (ComposeAccent(letter, accent.rune) == c)
          return std::string(accent.latex) + "{" + static_cast<char>(letter) + "}";
      }
    }
  }
  std::string out;
  AppendUtf8(out, c);
  return out;
}

bool EndsInCommand(const std::string& s) {
  size_t i = s.size();
  while (i > 0 && std::isalpha(static_cast<unsigned char>(s[i - 1]))) --i;
  return i < s.size() && i > 0 && s[i - 1] == '\\';
}

// Appends a token, a space between a command and a letter after it.
void Append(std::string& out, const std::string& token) {
  if (token.empty()) return;
  if (EndsInCommand(out) && std::isalpha(static_cast<unsigned char>(token.front()))) out.push_back(' ');
  out += token;
}

std::string Braced(const std::string& tex) {
  size_t glyphs = Utf8Length(tex);
  bool command = tex.size() > 1 && tex.front() == '\\' && std::all_of(tex.begin() + 1, tex.end(), [](char c) {
                   return std::isalpha(static_cast<unsigned char>(c));
                 });
  return glyphs == 1 || command ? tex : "{" + tex + "}";
}

std::string Layout(std::vector<Item> items, bool tight = false);

// The items over (above = true) or under `edge` within x0..x1: those whose near side lies within `reach`
// of the edge, then those stacked on them.
std::vector<size_t> StackedOn(const std::vector<Item>& items, double edge, bool above, double x0, double x1,
                              double reach, const std::vector<bool>& taken) {
  std::vector<size_t> out;
  std::vector<bool> in(items.size(), false);
  double far = edge;
  bool grew = true;
  while (grew) {
    grew = false;
    for (size_t i = 0; i < items.size(); ++i) {
      const Rect& b = items[i].box;
      if (in[i] || taken[i] || b.cx() < x0 || b.cx() > x1) continue;
      const double near = above ? b.y1 : b.y0;
      const bool beyond = above ? near <= edge + 0.15 * reach : near >= edge - 0.15 * reach;
      const bool close = above ? near >= std::min(edge, far) - reach : near <= std::max(edge, far) + reach;
      if (!beyond || !close) continue;
      in[i] = true;
      out.push_back(i);
      far = above ? std::min(far, b.y0) : std::max(far, b.y1);
      grew = true;
    }
  }
  return out;
}

Item Merge(const std::vector<Item>& items, const std::vector<size_t>& parts, std::string tex) {
  Item m;
  m.box = items[parts.front()].box;
  for (size_t i : parts) {
    m.box = m.box.Union(items[i].box);
    m.size = std::max(m.size, items[i].size);
  }
  m.tex = std::move(tex);
  return m;
}

std::vector<Item> Pick(const std::vector<Item>& items, const std::vector<size_t>& which) {
  std::vector<Item> out;
  for (size_t i : which) out.push_back(items[i]);
  return out;
}

void Replace(std::vector<Item>& items, const std::vector<size_t>& parts, Item merged) {
  std::vector<bool> gone(items.size(), false);
  for (size_t i : parts) gone[i] = true;
  std::vector<Item> kept;
  for (size_t i = 0; i < items.size(); ++i) {
    if (!gone[i]) kept.push_back(std::move(items[i]));
  }
  kept.push_back(std::move(merged));
  items = std::move(kept);
}

double TypicalSize(const std::vector<Item>& items) {
  std::vector<double> sizes;
  for (const Item& it : items) sizes.push_back(it.size);
  return std::max(1.0, Median(sizes));
}

// Fractions and radicals, the narrowest bar first (a fraction in a numerator is one item of it).
void CollapseBars(std::vector<Item>& items, std::vector<Rect> bars) {
  std::sort(bars.begin(), bars.end(), [](const Rect& a, const Rect& b) { return a.width() < b.width(); });
  for (const Rect& bar : bars) {
    const double em = TypicalSize(items);
    const double reach = kLimitReachEms * em;
    std::vector<bool> taken(items.size(), false);
    // A radical sign whose top meets the bar's left end: the bar is its vinculum.
    size_t root = items.size();
    for (size_t i = 0; i < items.size(); ++i) {
      const Rect& b = items[i].box;
      if (items[i].rune == U'√' && std::fabs(b.x1 - bar.x0) <= 0.3 * em && bar.cy() >= b.y0 - 0.5 * em &&
          bar.cy() <= b.y1)
        root = i;
    }
    if (root < items.size()) {
      taken[root] = true;
      std::vector<size_t> under = StackedOn(items, bar.y1, false, bar.x0, bar.x1, reach, taken);
      if (!under.empty()) {
        std::string tex = "\\sqrt{" + Layout(Pick(items, under)) + "}";
        under.push_back(root);
        Replace(items, under, Merge(items, under, std::move(tex)));
        continue;
      }
      taken[root] = false;
    }
    std::vector<size_t> over = StackedOn(items, bar.y0, true, bar.x0 - 0.5, bar.x1 + 0.5, reach, taken);
    for (size_t i : over) taken[i] = true;
    std::vector<size_t> under = StackedOn(items, bar.y1, false, bar.x0 - 0.5, bar.x1 + 0.5, reach, taken);
    if (over.empty() || under.empty()) continue;
    std::string tex = "\\frac{" + Layout(Pick(items, over)) + "}{" + Layout(Pick(items, under)) + "}";
    over.insert(over.end(), under.begin(), under.end());
    Item merged = Merge(items, over, std::move(tex));
    merged.box = merged.box.Union(bar);
    Replace(items, over, std::move(merged));
  }
}

// Big operators with limits stacked over and under them ("\sum_{i=1}^{N}").
void CollapseLimits(std::vector<Item>& items) {
  for (size_t k = 0; k < items.size(); ++k) {
    if (!IsBigOperator(items[k].rune) && !items[k].limits) continue;
    const Rect op = items[k].box;
    const double em = TypicalSize(items);
    const double slack = 0.25 * op.width();
    std::vector<bool> taken(items.size(), false);
    taken[k] = true;
    std::vector<size_t> over =
        StackedOn(items, op.y0, true, op.x0 - slack, op.x1 + slack, kLimitReachEms * em, taken);
    for (size_t i : over) taken[i] = true;
    std::vector<size_t> under =
        StackedOn(items, op.y1, false, op.x0 - slack, op.x1 + slack, kLimitReachEms * em, taken);
    if (over.empty() && under.empty()) continue;
    std::string tex = items[k].tex;
    if (!under.empty()) tex += "_{" + Layout(Pick(items, under), true) + "}";
    if (!over.empty()) tex += "^{" + Layout(Pick(items, over), true) + "}";
    std::vector<size_t> parts = {k};
    parts.insert(parts.end(), over.begin(), over.end());
    parts.insert(parts.end(), under.begin(), under.end());
    Item merged = Merge(items, parts, std::move(tex));
    merged.baseline = items[k].baseline;
    Replace(items, parts, std::move(merged));
    k = static_cast<size_t>(-1);  // indices moved: look again (the merged item takes no more limits)
  }
}

// Letters of a text font side by side on one baseline: a word, an operator name ("\\log", "\\min") or
// text ("\\text{for}").
void MergeWords(std::vector<Item>& items) {
  std::sort(items.begin(), items.end(), [](const Item& a, const Item& b) { return a.box.x0 < b.box.x0; });
  auto letter = [](const Item& it) { return it.rune < 0x80 && IsLetter(it.rune) && !it.math; };
  std::vector<bool> merged(items.size(), false);
  std::vector<Item> words;
  for (size_t i = 0; i < items.size(); ++i) {
    if (merged[i] || !letter(items[i])) continue;
    // The next letter on its baseline, whatever stands under or over it (a limit under "min").
    std::vector<size_t> word{i};
    for (size_t j = i + 1; j < items.size(); ++j) {
      const Item& last = items[word.back()];
      if (items[j].box.x0 - last.box.x1 > 0.15 * last.size) break;
      if (letter(items[j]) && !merged[j] && std::fabs(items[j].size - last.size) < 0.5 &&
          std::fabs(items[j].baseline - last.baseline) <= 0.1 * last.size)
        word.push_back(j);
    }
    if (word.size() < 2) continue;
    std::string text;
    Item w = items[i];
    for (size_t k : word) {
      text.push_back(static_cast<char>(items[k].rune));
      w.box = w.box.Union(items[k].box);
      merged[k] = true;
    }
    w.rune = 0;
    w.tex = IsOperatorName(text) ? "\\" + text : "\\text{" + text + "}";
    w.limits = std::find(std::begin(kLimitNames), std::end(kLimitNames), text) != std::end(kLimitNames);
    words.push_back(std::move(w));
  }
  std::vector<Item> out;
  for (size_t i = 0; i < items.size(); ++i) {
    if (!merged[i]) out.push_back(std::move(items[i]));
  }
  for (Item& w : words) out.push_back(std::move(w));
  items = std::move(out);
}

// The environment a tall delimiter pair sets an array in: "{" alone cases, "(" ")" pmatrix, and so on.
std::string_view ArrayEnvironment(char32_t left, char32_t right) {
  if (left == '{') return right == 0 ? "cases" : "Bmatrix";
  if (left == '(') return "pmatrix";
  if (left == '[') return "bmatrix";
  if (left == '|') return "vmatrix";
  if (left == U'‖' || left == U'∥') return "Vmatrix";
  return {};
}

char32_t ClosingOf(char32_t left) {
  switch (left) {
    case '(':
      return ')';
    case '[':
      return ']';
    case '{':
      return '}';
    case '|':
      return '|';
    case U'‖':
      return U'‖';
    case U'∥':
      return U'∥';
    default:
      return 0;
  }
}

// Rows stacked between tall delimiters (or after a brace alone): a matrix or cases, its columns where a
// gap runs down every row.
void CollapseArrays(std::vector<Item>& items, bool lone) {
  const double em = TypicalSize(items);
  for (size_t d = 0; d < items.size(); ++d) {
    const Item& left = items[d];
    if (ClosingOf(left.rune) == 0 || left.box.height() < 1.8 * em) continue;
    const Rect lb = left.box;
    size_t right = items.size();
    for (size_t r = 0; r < items.size(); ++r) {
      const Rect& b = items[r].box;
      if (r == d || items[r].rune != ClosingOf(left.rune) || b.x0 < lb.x1 || b.height() < 0.8 * lb.height() ||
          VerticalOverlap(b, lb) < 0.8)
        continue;
      if (right == items.size() || b.x0 < items[right].box.x0) right = r;
    }
    if (right == items.size() && (!lone || left.rune != '{')) continue;
    // A brace alone (cases) reaches as far as a gap of two ems (a \qquad) beside it.
    double end = right < items.size() ? items[right].box.x0 + 0.5 : 1e9;
    if (right == items.size()) {
      std::vector<std::pair<double, double>> beside;
      for (const Item& it : items) {
        if (it.box.x0 >= lb.x1 - 0.5 && it.box.cy() > lb.y0 && it.box.cy() < lb.y1)
          beside.emplace_back(it.box.x0, it.box.x1);
      }
      std::sort(beside.begin(), beside.end());
      double reach = lb.x1;
      for (const auto& [x0, x1] : beside) {
        if (x0 - reach >= 1.8 * em) break;
        reach = std::max(reach, x1);
      }
      end = reach + 0.5;
    }
    std::vector<size_t> inside;
    for (size_t k = 0; k < items.size(); ++k) {
      const Rect& b = items[k].box;
      if (k != d && k != right && b.x0 >= lb.x1 - 0.5 && b.x1 <= end && b.cy() > lb.y0 && b.cy() < lb.y1)
        inside.push_back(k);
    }
    // Its rows: glyphs that overlap across, top to bottom.
    std::sort(inside.begin(), inside.end(),
              [&](size_t a, size_t b) { return items[a].box.y0 < items[b].box.y0; });
    std::vector<std::vector<size_t>> rows;
    double bottom = 0;
    for (size_t k : inside) {
      if (rows.empty() || items[k].box.y0 >= bottom) rows.emplace_back();
      bottom = rows.back().empty() ? items[k].box.y1 : std::max(bottom, items[k].box.y1);
      rows.back().push_back(k);
    }
    if (rows.size() < 2) continue;
    // Its columns: gaps of 0.8 em or more that no row's glyphs cross.
    std::vector<std::pair<double, double>> spans;
    for (size_t k : inside) spans.emplace_back(items[k].box.x0, items[k].box.x1);
    std::sort(spans.begin(), spans.end());
    std::vector<double> cuts;
    double reach = spans.front().second;
    for (const auto& [x0, x1] : spans) {
      if (x0 - reach >= 0.8 * em) cuts.push_back((x0 + reach) / 2);
      reach = std::max(reach, x1);
    }
    std::string tex = "\\begin{" +
                      std::string(ArrayEnvironment(left.rune, right < items.size() ? items[right].rune : 0)) +
                      "}";
    for (size_t r = 0; r < rows.size(); ++r) {
      std::vector<std::vector<Item>> cells(cuts.size() + 1);
      for (size_t k : rows[r]) {
        const size_t col =
            static_cast<size_t>(std::upper_bound(cuts.begin(), cuts.end(), items[k].box.cx()) - cuts.begin());
        cells[col].push_back(items[k]);
      }
      tex += r == 0 ? " " : " \\\\ ";
      for (size_t col = 0; col < cells.size(); ++col) {
        if (col > 0) tex += " & ";
        tex += Layout(std::move(cells[col]));
      }
    }
    tex += " \\end{" +
           std::string(ArrayEnvironment(left.rune, right < items.size() ? items[right].rune : 0)) + "}";
    std::vector<size_t> parts = inside;
    parts.push_back(d);
    if (right < items.size()) parts.push_back(right);
    Item merged = Merge(items, parts, std::move(tex));
    Replace(items, parts, std::move(merged));
    d = static_cast<size_t>(-1);
  }
}

enum class Script { kNone, kSuper, kSub };

// One row: glyphs left to right, a run of smaller glyphs off the baseline a script of what precedes it,
// words in roman operator names. `tight` (scripts and limits): no spaces around relations and operators
// and no \quad for a wide gap.
std::string Row(std::vector<Item> row, bool tight) {
  std::sort(row.begin(), row.end(), [](const Item& a, const Item& b) { return a.box.x0 < b.box.x0; });
  double main = 0;
  for (const Item& it : row) {
    if (it.rune != 0 && !IsBigOperator(it.rune)) main = std::max(main, it.size);
  }
  if (main == 0) main = TypicalSize(row);
  std::vector<double> baselines;
  for (const Item& it : row) {
    if (it.rune != 0 && !IsBigOperator(it.rune) && it.size >= 0.9 * main) baselines.push_back(it.baseline);
  }
  const bool known = !baselines.empty();
  const double base = Median(baselines);
  auto script_of = [&](const Item& it) {
    if (!known || it.rune == 0 || IsBigOperator(it.rune) || it.size > kScriptSize * main)
      return Script::kNone;
    if (it.baseline < base - 0.12 * main) return Script::kSuper;
    if (it.baseline > base + 0.08 * main) return Script::kSub;
    return Script::kNone;
  };
  std::string out;
  bool after_group = false;  // the last token was a fraction, a radical, an operator or had scripts
  bool operand = false;      // the last token ends an operand: an operator after it is binary
  double gap_from = 0;       // where the last token ended
  size_t i = 0;
  while (i < row.size()) {
    const size_t start = i;
    const char32_t rune = script_of(row[i]) == Script::kNone ? row[i].rune : 0;
    const bool group = script_of(row[i]) == Script::kNone && row[i].rune == 0;
    std::string token;
    if (script_of(row[i]) == Script::kNone) token = row[i++].tex;
    std::vector<Item> sup, sub;
    while (i < row.size() && script_of(row[i]) != Script::kNone) {
      (script_of(row[i]) == Script::kSuper ? sup : sub).push_back(row[i]);
      ++i;
    }
    if (token.empty()) token = "{}";
    if (!sub.empty()) token += "_" + Braced(Layout(sub, true));
    if (!sup.empty()) token += "^" + Braced(Layout(sup, true));
    const bool scripted = !sub.empty() || !sup.empty();
    // (A sign after an opening, a relation or another operator is unary: "-x", "( - " is not written.)
    const bool spaced = !tight && !scripted && (IsRelation(rune) || (IsBinaryOperator(rune) && operand));
    operand = !scripted ? !(IsRelation(rune) || IsBinaryOperator(rune) || rune == '(' || rune == '[' ||
                            rune == '{' || rune == ',' || rune == U'⟨')
                        : true;
    const double gap = row[start].box.x0 - gap_from;
    if (!out.empty() && !tight && gap >= 0.9 * main) {
      if (out.back() != ' ') out.push_back(' ');
      out += gap >= 1.8 * main ? "\\qquad " : "\\quad ";
    }
    if (spaced) {
      if (!out.empty() && out.back() != ' ') out.push_back(' ');
      out += token;
      out.push_back(' ');
    } else {
      // A space after a group before a letter or a command, and between a letter and a command.
      const bool letter_next = std::isalpha(static_cast<unsigned char>(token.front())) != 0;
      const bool command_next = token.size() > 1 && token.front() == '\\' &&
                                std::isalpha(static_cast<unsigned char>(token[1])) != 0;
      const bool letter_last =
          !out.empty() && (std::isalpha(static_cast<unsigned char>(out.back())) != 0 || out.back() == '}');
      if (!out.empty() && out.back() != ' ' &&
          ((after_group && (letter_next || command_next)) || (command_next && letter_last)))
        out.push_back(' ');
      Append(out, token);
    }
    after_group = group || scripted;
    for (size_t k = start; k < i; ++k) gap_from = std::max(gap_from, row[k].box.x1);
  }
  while (!out.empty() && out.back() == ' ') out.pop_back();
  return out;
}

// Items -> LaTeX: fractions, radicals and limits first, then rows top to bottom.
std::string Layout(std::vector<Item> items, bool tight) {
  if (items.empty()) return {};
  CollapseLimits(items);
  CollapseArrays(items, false);  // between pairs of delimiters first, then after a brace alone
  CollapseArrays(items, true);
  std::sort(items.begin(), items.end(), [](const Item& a, const Item& b) { return a.box.y0 < b.box.y0; });
  std::vector<std::vector<Item>> rows;
  double bottom = 0;
  for (Item& it : items) {
    if (rows.empty() || it.box.y0 >= bottom) {
      rows.emplace_back();
      bottom = it.box.y1;
    }
    bottom = std::max(bottom, it.box.y1);
    rows.back().push_back(std::move(it));
  }
  std::string out;
  for (std::vector<Item>& row : rows) {
    if (!out.empty()) out += " \\\\ ";
    out += Row(std::move(row), tight);
  }
  return out;
}

// A page's lines as FindDisplayEquations reads them: what each is made of, its core box (CoreBox), and
// the groups of lines that set one formula.
struct PageLines {
  PageLines(const std::vector<TextLine>& l, const std::vector<bool>& c) : lines(l), consumed(c) {}

  const std::vector<TextLine>& lines;
  const std::vector<bool>& consumed;
  std::vector<Rect> bars;  // thin horizontal drawings: fraction bars, radicals' vincula
  std::vector<LineMakeup> makeup;
  std::vector<Rect> core;
  std::vector<bool> formula, piece, words;

  bool member(size_t i) const { return formula[i] || piece[i] || words[i]; }

  void Classify(const std::vector<Rect>& figures) {
    const size_t n = lines.size();
    makeup.assign(n, {});
    core.resize(n);
    formula.assign(n, false);
    piece.assign(n, false);
    words.assign(n, false);
    for (size_t i = 0; i < n; ++i) {
      core[i] = CoreBox(lines[i]);
      if (consumed[i] || lines[i].sideways) continue;
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
        if (!IsGlyph(c) || c.box.cx() < bar.x0 || c.box.cx() > bar.x1) return false;
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
  // kClearEms away.
  bool StandsApart(const std::vector<size_t>& group, const Rect& box, size_t* number) const {
    double em = 1;
    for (size_t i : group) em = std::max(em, Em(lines[i]));
    std::vector<bool> in(lines.size(), false);
    for (size_t i : group) in[i] = true;
    std::vector<size_t> numbers;
    for (size_t k = 0; k < lines.size(); ++k) {
      const Rect& b = core[k];
      if (in[k] || consumed[k] || VerticalOverlap(box, b) < 0.3) continue;
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
      if (in[k] || k == nearest || VerticalOverlap(box, b) < 0.3) continue;
      if ((b.x0 >= box.x1 && b.x1 <= n.x0) || (b.x1 <= box.x0 && b.x0 >= n.x1)) return true;
    }
    *number = nearest;
    return true;
  }

  // Whether the formula set in `group` is one line of a run of lines set at their pitch (a listing's,
  // an index's): lines of a formula stacked on it, and on those, reach lines of text less than
  // kRunGapEms over them and under them (a display's skips part it from the text on one side at least).
  bool InRunOfLines(const std::vector<size_t>& group) const {
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

std::string FormulaLatex(const std::vector<TextChar>& glyphs, const std::vector<Rect>& bars) {
  std::vector<Item> items;
  for (const TextChar& c : glyphs) {
    if (!IsGlyph(c)) continue;
    Item it;
    it.rune = c.rune;
    it.tex = GlyphLatex(c.rune);
    it.size = c.size > 0 ? c.size : c.box.height();
    it.baseline = c.size > 0 ? c.baseline : c.box.y1;
    it.box = c.ink || c.size <= 0
                 ? c.box
                 : Rect{c.box.x0, it.baseline - 0.7 * it.size, c.box.x1, it.baseline + 0.2 * it.size};
    it.math = c.math;
    items.push_back(std::move(it));
  }
  MergeWords(items);
  CollapseBars(items, bars);
  return Layout(std::move(items));
}

std::vector<DisplayEquation> FindDisplayEquations(const std::vector<TextLine>& lines,
                                                  const std::vector<bool>& consumed,
                                                  const std::vector<Rect>& drawings,
                                                  const std::vector<Rect>& figures) {
  PageLines page(lines, consumed);
  for (const Rect& d : drawings) {
    if (d.height() <= kMaxBarThickness && d.width() >= 2 && d.width() >= 4 * d.height())
      page.bars.push_back(d);
  }
  page.Classify(figures);
  std::vector<DisplayEquation> out;
  std::vector<size_t> numbers;      // each equation's number line, lines.size() for none
  std::vector<double> number_gaps;  // and how far from it
  for (const std::vector<size_t>& g : page.Groups()) {
    Rect core = page.core[g.front()];
    size_t glyphs = 0;
    bool any_formula = false, operators = false;
    for (size_t i : g) {
      core = core.Union(page.core[i]);
      glyphs += page.makeup[i].glyphs;
      any_formula = any_formula || page.formula[i];
      operators = operators || page.makeup[i].operators;
    }
    const bool barred = std::any_of(page.bars.begin(), page.bars.end(),
                                    [&](const Rect& b) { return core.ContainsCenterOf(b, 1); });
    if (!any_formula || glyphs < 3 || !(operators || barred)) continue;
    size_t number = lines.size();
    if (!page.StandsApart(g, core, &number) || page.InRunOfLines(g)) continue;
    std::vector<TextChar> glyph_chars;
    Rect box = lines[g.front()].box;
    for (size_t i : g) {
      glyph_chars.insert(glyph_chars.end(), lines[i].chars.begin(), lines[i].chars.end());
      box = box.Union(lines[i].box);
    }
    for (const TextChar& ch : glyph_chars) {
      if (IsGlyph(ch)) box = box.Union(ch.box);  // (a big delimiter's ink may reach past its advance)
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
