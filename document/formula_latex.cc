#include "document/formula_latex.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <string_view>

#include "document/accents.h"
#include "document/text_layout.h"

namespace mineru::document {
namespace {

constexpr double kLimitReachEms = 0.8;  // a numerator or a limit from its bar or operator, farthest
constexpr double kScriptSize = 0.85;    // a script's size to its base's, largest
constexpr int kMaxNesting = 16;         // scripts in scripts, limits of limits, deepest
constexpr double kMatrixColumnGapEms = 0.6;  // a gap down every row of a matrix this wide parts its columns
// (2 \arraycolsep, an em, between cells, less the glyphs' side bearings; a relation's space is 0.28 em)

// clang-format off
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

// clang-format on

// Operator names TeX sets in roman ("\log x").
constexpr std::string_view kOperatorNames[] = {
    "arccos", "arcsin", "arctan", "arg", "cos",  "cosh", "cot", "coth", "csc", "deg",    "det",
    "dim",    "exp",    "gcd",    "hom", "inf",  "ker",  "lg",  "lim",  "ln",  "log",    "max",
    "min",    "Pr",     "sec",    "sin", "sinh", "sup",  "tan", "tanh", "mod", "argmin", "argmax"};

}  // namespace

bool IsOperatorName(std::string_view word) {
  return std::find(std::begin(kOperatorNames), std::end(kOperatorNames), word) != std::end(kOperatorNames);
}

bool IsBigOperator(char32_t c) {
  return (c >= U'∏' && c <= U'∑') || (c >= U'∫' && c <= U'∮') || (c >= U'⋀' && c <= U'⋃') ||
         (c >= U'⨀' && c <= U'⨆');
}

bool IsMathRelation(char32_t c) {
  return c == '=' || c == '<' || c == '>' || (c >= U'≈' && c <= U'≋') || (c >= U'≠' && c <= U'≫') ||
         (c >= U'∈' && c <= U'∌') || (c >= U'⊂' && c <= U'⊋') || (c >= U'←' && c <= U'⇿') || c == U'∼' ||
         c == U'∝' || c == U'≃' || c == U'≅' || c == U'≺' || c == U'≻' || c == U'∣';
}

bool IsMathBinaryOperator(char32_t c) {
  return c == '+' || c == U'−' || c == U'±' || c == U'∓' || c == U'×' || c == U'÷' || c == U'·' ||
         c == U'⋅' || c == U'∘' || (c >= U'⊕' && c <= U'⊙') || c == U'∗' || c == U'∪' || c == U'∩' ||
         c == U'∧' || c == U'∨' || c == U'∖' || c == U'⋆';
}

bool IsMathSymbol(char32_t c) {
  return (c >= 0x2200 && c <= 0x22FF) || (c >= 0x2A00 && c <= 0x2AFF) || (c >= 0x27E8 && c <= 0x27EB) ||
         (c >= 0x2308 && c <= 0x230B) || (c >= 0x0391 && c <= 0x03F6);
}

bool IsMathDelimiter(char32_t c) {
  return c == '(' || c == ')' || c == '[' || c == ']' || c == '{' || c == '}' || c == '|' || c == U'⟨' ||
         c == U'⟩' || c == U'‖' || c == U'∥';
}

bool IsRomanLetter(char32_t c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= 0xC0 && c <= 0x24F);
}

Rect GlyphCore(const TextChar& c) {
  if (c.ink || c.size <= 0) return c.box;
  return {c.box.x0, c.baseline - 0.7 * c.size, c.box.x1, c.baseline + 0.2 * c.size};
}

std::vector<Rect> FormulaBars(const std::vector<Rect>& drawings) {
  constexpr double kMaxBarThickness = 1.5;  // points
  std::vector<Rect> bars;
  for (const Rect& d : drawings) {
    if (d.height() <= kMaxBarThickness && d.width() >= 2 && d.width() >= 4 * d.height()) bars.push_back(d);
  }
  return bars;
}

bool IsOperatorLatex(std::string_view token) {
  for (const CharLatex& m : kCharLatex) {
    if (m.latex == token) return IsMathRelation(m.rune) || IsMathBinaryOperator(m.rune);
  }
  std::u32string runes;
  const std::string text(token);
  for (size_t i = 0; i < text.size();) runes.push_back(DecodeUtf8(text, i));
  return runes.size() == 1 && (IsMathRelation(runes[0]) || IsMathBinaryOperator(runes[0]));
}

bool IsFormulaGlyph(const TextChar& c) { return c.rune > ' ' && c.rune != 0xFFFD && c.rune != 0xA0; }

double LineBaseline(const TextLine& line) {
  std::vector<double> baselines;
  for (const TextChar& c : line.chars) {
    if (IsFormulaGlyph(c) && c.size > 0) baselines.push_back(c.baseline);
  }
  return baselines.empty() ? line.box.y1 : Median(baselines);
}

namespace {

struct Item {
  Rect box;  // a glyph's: from its baseline, 0.7 of its size up and 0.2 down (its ink for named glyphs)
  std::string tex;
  double size = 0;
  double baseline = 0;
  char32_t rune = 0;  // a glyph's character; 0 for a word, a fraction, a radical, an operator with limits
  bool math = false;
  bool limits = false;  // an operator name that takes limits under it ("\min", "\lim")
  bool word = false;    // a word (MergeWords): it stands on a baseline as a glyph does
};

// A glyph or a word, which stand on a baseline; not a big operator (whose glyph hangs from it) nor what
// was made of several (a fraction, a radical, an operator with its limits, an array).
bool OnBaseline(const Item& it) { return (it.rune != 0 && !IsBigOperator(it.rune)) || it.word; }

// The size of the largest glyphs or words of `items`: their main line's.
double MainSize(const std::vector<Item>& items) {
  double main = 0;
  for (const Item& it : items) {
    if (OnBaseline(it)) main = std::max(main, it.size);
  }
  return main;
}

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
    if (over.empty()) {
      // A bar right over glyphs (their middles under it, their tops within a third of an em: a bar sits
      // lower than a capital's top over a small letter) and as wide as they are, nothing over it: an
      // overline ("\\bar{x}").
      under.clear();
      for (size_t i = 0; i < items.size(); ++i) {
        const Rect& b = items[i].box;
        if (!taken[i] && b.cx() >= bar.x0 && b.cx() <= bar.x1 && b.cy() > bar.cy() &&
            b.y0 <= bar.y1 + 0.35 * em)
          under.push_back(i);
      }
      if (under.empty()) continue;
      Rect span = items[under.front()].box;
      for (size_t i : under) span = span.Union(items[i].box);
      if (bar.width() > span.width() + 0.5 * em) continue;
      const std::string body = Layout(Pick(items, under));
      std::string tex = (Utf8Length(body) == 1 ? "\\bar{" : "\\overline{") + body + "}";
      Item merged = Merge(items, under, std::move(tex));
      merged.box = merged.box.Union(bar);
      Replace(items, under, std::move(merged));
      continue;
    }
    if (under.empty()) continue;
    std::string tex = "\\frac{" + Layout(Pick(items, over)) + "}{" + Layout(Pick(items, under)) + "}";
    over.insert(over.end(), under.begin(), under.end());
    Item merged = Merge(items, over, std::move(tex));
    merged.box = merged.box.Union(bar);
    Replace(items, over, std::move(merged));
  }
}

// Big operators with limits stacked over and under them ("\sum_{i=1}^{N}").
void CollapseLimits(std::vector<Item>& items) {
  // (An operator name set small is a script's, "d_{\max}", and takes no limits.)
  auto takes_limits = [&](const Item& it) {
    return IsBigOperator(it.rune) || (it.limits && it.size >= 0.9 * MainSize(items));
  };
  for (size_t k = 0; k < items.size(); ++k) {
    const double em = TypicalSize(items);
    if (!takes_limits(items[k])) continue;
    const Rect op = items[k].box;
    const double slack = 0.25 * op.width();
    // What stands nearer another operator across is that one's ("\min_{w} \prod_{k=1}", whichever
    // comes first).
    std::vector<bool> taken(items.size(), false);
    taken[k] = true;
    for (size_t o = 0; o < items.size(); ++o) {
      if (o == k || !takes_limits(items[o])) continue;
      for (size_t i = 0; i < items.size(); ++i) {
        taken[i] = taken[i] ||
                   std::fabs(items[i].box.cx() - items[o].box.cx()) < std::fabs(items[i].box.cx() - op.cx());
      }
    }
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
  // (Not a letter of a named alphabet: bold "W" and "x" side by side are \mathbf{W}\mathbf{x}.)
  auto letter = [](const Item& it) {
    return it.rune < 0x80 && IsRomanLetter(it.rune) && !it.math && it.tex.size() == 1;
  };
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
    w.word = true;
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

// Three periods in a row on one baseline, as TeX sets \ldots in a formula, are one "\ldots" (the
// other items keep their order).
void MergeDots(std::vector<Item>& items) {
  std::vector<size_t> dots;
  for (size_t i = 0; i < items.size(); ++i) {
    if (items[i].rune == '.') dots.push_back(i);
  }
  if (dots.size() < 3) return;
  std::sort(dots.begin(), dots.end(), [&](size_t a, size_t b) { return items[a].box.x0 < items[b].box.x0; });
  std::vector<bool> gone(items.size(), false);
  for (size_t d = 0; d + 2 < dots.size(); ++d) {
    const Item& first = items[dots[d]];
    const double size = std::max(1.0, first.size);
    bool close = true;
    for (size_t k = d + 1; k <= d + 2; ++k) {
      close = close && items[dots[k]].box.x0 - items[dots[k - 1]].box.x1 <= 0.5 * size &&
              std::fabs(items[dots[k]].baseline - first.baseline) <= 0.1 * size;
    }
    if (!close) continue;
    Item& ellipsis = items[dots[d]];
    ellipsis.box = ellipsis.box.Union(items[dots[d + 2]].box);
    ellipsis.rune = U'…';
    ellipsis.tex = GlyphLatex(U'…');
    gone[dots[d + 1]] = gone[dots[d + 2]] = true;
    d += 2;
  }
  std::vector<Item> out;
  for (size_t i = 0; i < items.size(); ++i) {
    if (!gone[i]) out.push_back(std::move(items[i]));
  }
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
    // Its columns: gaps of kMatrixColumnGapEms or more that no row's glyphs cross.
    std::vector<std::pair<double, double>> spans;
    for (size_t k : inside) spans.emplace_back(items[k].box.x0, items[k].box.x1);
    std::sort(spans.begin(), spans.end());
    std::vector<double> cuts;
    double reach = spans.front().second;
    for (const auto& [x0, x1] : spans) {
      if (x0 - reach >= kMatrixColumnGapEms * em) cuts.push_back((x0 + reach) / 2);
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
  double main = MainSize(row);
  if (main == 0) main = TypicalSize(row);
  std::vector<double> baselines;
  for (const Item& it : row) {
    if (OnBaseline(it) && it.size >= 0.9 * main) baselines.push_back(it.baseline);
  }
  const bool known = !baselines.empty();
  const double base = Median(baselines);
  auto script_of = [&](const Item& it) {
    if (!known || !OnBaseline(it) || it.size > kScriptSize * main) return Script::kNone;
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
    if (!sup.empty()) {
      // (Primes are written as they are: "f'", not "f^'".)
      const std::string power = Layout(sup, true);
      token += power.find_first_not_of('\'') == std::string::npos ? power : "^" + Braced(power);
    }
    const bool scripted = !sub.empty() || !sup.empty();
    // (A sign after an opening, a relation or another operator is unary: "-x", "( - " is not written.)
    const bool spaced =
        !tight && !scripted && (IsMathRelation(rune) || (IsMathBinaryOperator(rune) && operand));
    operand = !scripted ? !(IsMathRelation(rune) || IsMathBinaryOperator(rune) || rune == '(' ||
                            rune == '[' || rune == '{' || rune == ',' || rune == U'⟨')
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
      // (A space after a comma or a semicolon that parts a row's items: "x_1, \ldots, x_n".)
      if (!tight && !scripted && (rune == ',' || rune == ';')) out.push_back(' ');
    }
    after_group = group || scripted;
    for (size_t k = start; k < i; ++k) gap_from = std::max(gap_from, row[k].box.x1);
  }
  while (!out.empty() && out.back() == ' ') out.pop_back();
  return out;
}

// Formulas nest (a script's script, a limit's limit); a hostile file could nest them thousands deep.
// Past kMaxNesting, items are written left to right as they stand.
thread_local int nesting = 0;

std::string Flat(std::vector<Item> items) {
  std::sort(items.begin(), items.end(), [](const Item& a, const Item& b) { return a.box.x0 < b.box.x0; });
  std::string out;
  for (const Item& it : items) Append(out, it.tex);
  return out;
}

// Items -> LaTeX: fractions, radicals and limits first, then rows top to bottom.
std::string Layout(std::vector<Item> items, bool tight) {
  if (items.empty()) return {};
  if (nesting >= kMaxNesting) return Flat(std::move(items));
  ++nesting;
  struct Leave {
    ~Leave() { --nesting; }
  } leave;
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

}  // namespace

std::string FormulaLatex(const std::vector<TextChar>& glyphs, const std::vector<Rect>& bars) {
  std::vector<Item> items;
  for (const TextChar& c : glyphs) {
    if (!IsFormulaGlyph(c)) continue;
    Item it;
    // (A letter of the Letterlike Symbols, "ℝ", is the plain letter in its alphabet, "\\mathbb{R}".)
    const MathAlphabet alphabet =
        c.alphabet != MathAlphabet::kPlain ? c.alphabet : AlphabetOfMathLetter(c.rune);
    it.rune = PlainLetterlike(c.rune);
    it.tex = InAlphabet(alphabet, GlyphLatex(it.rune));
    it.size = c.size > 0 ? c.size : c.box.height();
    it.baseline = c.size > 0 ? c.baseline : c.box.y1;
    it.box = GlyphCore(c);
    it.math = c.math;
    items.push_back(std::move(it));
  }
  MergeWords(items);
  MergeDots(items);
  CollapseBars(items, bars);
  return Layout(std::move(items));
}

}  // namespace mineru::document
