#include "document/math_letters.h"

#include <string>
#include <string_view>

namespace mineru::document {
namespace {

constexpr char32_t kLatinFirst = 0x1D400;  // 13 alphabets of A-Z then a-z, 52 letters each
constexpr char32_t kLatinEnd = 0x1D6A4;
constexpr char32_t kGreekFirst = 0x1D6A8;  // 5 alphabets of 58 letters and symbols each
constexpr char32_t kGreekEnd = 0x1D7CA;
constexpr char32_t kDigitsFirst = 0x1D7CE;  // 5 sets of 0-9
constexpr char32_t kDigitsEnd = 0x1D800;

// One Greek alphabet of the block in order: the capitals (with the capital theta symbol), nabla, the
// small letters (with final sigma), the partial differential and the symbol variants of epsilon, theta,
// kappa, phi, rho and pi.
constexpr std::u32string_view kGreek = U"ΑΒΓΔΕΖΗΘΙΚΛΜΝΞΟΠΡΘΣΤΥΦΧΨΩ∇αβγδεζηθικλμνξοπρςστυφχψω∂εθκφρπ";
static_assert(kGreek.size() == 58);

// The stems of the extension font's glyph names and what they draw, before a size ("big" to "Bigg"), a
// style ("text", "display") or a piece ("tp", "bt", "ex", "mid").
struct ExtensionStem {
  std::string_view stem;
  char32_t rune;
};
constexpr ExtensionStem kExtensionStems[] = {
    {"parenleft", U'('},
    {"parenright", U')'},
    {"bracketleft", U'['},
    {"bracketright", U']'},
    {"floorleft", U'\u230A'},
    {"floorright", U'\u230B'},
    {"ceilingleft", U'\u2308'},
    {"ceilingright", U'\u2309'},
    {"braceleft", U'{'},
    {"braceright", U'}'},
    {"angbracketleft", U'\u27E8'},
    {"angbracketright", U'\u27E9'},
    {"slash", U'/'},
    {"backslash", U'\\'},
    {"radical", U'\u221A'},
    {"summation", U'\u2211'},
    {"product", U'\u220F'},
    {"coproduct", U'\u2210'},
    {"integral", U'\u222B'},
    {"contintegral", U'\u222E'},
    {"union", U'\u22C3'},
    {"intersection", U'\u22C2'},
    {"unionmulti", U'\u2A04'},
    {"unionsq", U'\u2A06'},
    {"logicaland", U'\u22C0'},
    {"logicalor", U'\u22C1'},
    {"circledot", U'\u2A00'},
    {"circleplus", U'\u2A01'},
    {"circlemultiply", U'\u2A02'},
};

// The 13 Latin alphabets of the block in order: bold, italic, bold italic, script, bold script, fraktur,
// double-struck, bold fraktur, sans-serif, its bold, italic and bold italic, monospace.
constexpr MathAlphabet kLatinAlphabets[13] = {
    MathAlphabet::kBold,         MathAlphabet::kPlain,        MathAlphabet::kBold,
    MathAlphabet::kCalligraphic, MathAlphabet::kCalligraphic, MathAlphabet::kFraktur,
    MathAlphabet::kBlackboard,   MathAlphabet::kFraktur,      MathAlphabet::kPlain,
    MathAlphabet::kBold,         MathAlphabet::kPlain,        MathAlphabet::kBold,
    MathAlphabet::kPlain};

// The 5 sets of digits: bold, double-struck, sans-serif, its bold, monospace.
constexpr MathAlphabet kDigitAlphabets[5] = {MathAlphabet::kBold, MathAlphabet::kBlackboard,
                                             MathAlphabet::kPlain, MathAlphabet::kBold, MathAlphabet::kPlain};

// The letters the Letterlike Symbols hold of the block's alphabets (its holes there).
struct Letterlike {
  char32_t rune;
  char32_t letter;
  MathAlphabet alphabet;
};
constexpr Letterlike kLetterlike[] = {
    {U'ℂ', 'C', MathAlphabet::kBlackboard},   {U'ℍ', 'H', MathAlphabet::kBlackboard},
    {U'ℕ', 'N', MathAlphabet::kBlackboard},   {U'ℙ', 'P', MathAlphabet::kBlackboard},
    {U'ℚ', 'Q', MathAlphabet::kBlackboard},   {U'ℝ', 'R', MathAlphabet::kBlackboard},
    {U'ℤ', 'Z', MathAlphabet::kBlackboard},   {U'ℬ', 'B', MathAlphabet::kCalligraphic},
    {U'ℰ', 'E', MathAlphabet::kCalligraphic}, {U'ℱ', 'F', MathAlphabet::kCalligraphic},
    {U'ℋ', 'H', MathAlphabet::kCalligraphic}, {U'ℐ', 'I', MathAlphabet::kCalligraphic},
    {U'ℒ', 'L', MathAlphabet::kCalligraphic}, {U'ℳ', 'M', MathAlphabet::kCalligraphic},
    {U'ℛ', 'R', MathAlphabet::kCalligraphic}, {U'ℭ', 'C', MathAlphabet::kFraktur},
    {U'ℌ', 'H', MathAlphabet::kFraktur},      {U'ℑ', 'I', MathAlphabet::kFraktur},
    {U'ℜ', 'R', MathAlphabet::kFraktur},      {U'ℨ', 'Z', MathAlphabet::kFraktur}};

bool IsLatinLetter(char32_t c) { return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z'); }

}  // namespace

MathAlphabet AlphabetOfMathLetter(char32_t c) {
  if (c >= kLatinFirst && c < kLatinEnd) return kLatinAlphabets[(c - kLatinFirst) / 52];
  if (c >= kDigitsFirst && c < kDigitsEnd) return kDigitAlphabets[(c - kDigitsFirst) / 10];
  for (const Letterlike& l : kLetterlike) {
    if (l.rune == c) return l.alphabet;
  }
  return MathAlphabet::kPlain;
}

char32_t PlainLetterlike(char32_t c) {
  for (const Letterlike& l : kLetterlike) {
    if (l.rune == c) return l.letter;
  }
  return c;
}

bool FamilyStartsWith(std::string_view family, std::string_view prefix) {
  if (family.size() < prefix.size()) return false;
  for (size_t i = 0; i < prefix.size(); ++i) {
    const char a = family[i], b = prefix[i];
    const char lower_a = a >= 'A' && a <= 'Z' ? static_cast<char>(a - 'A' + 'a') : a;
    const char lower_b = b >= 'A' && b <= 'Z' ? static_cast<char>(b - 'A' + 'a') : b;
    if (lower_a != lower_b) return false;
  }
  return true;
}

MathAlphabet AlphabetOfFontLetter(std::string_view family, bool bold, char32_t c) {
  if (!IsLatinLetter(c)) return MathAlphabet::kPlain;
  const bool capital = c >= 'A' && c <= 'Z';
  auto is = [&](std::string_view prefix) { return FamilyStartsWith(family, prefix); };
  if (is("MSBM") && capital) return MathAlphabet::kBlackboard;
  if ((is("CMSY") || is("CMBSY") || is("LMMathSymbols") || is("EUSM") || is("EUSB")) && capital)
    return MathAlphabet::kCalligraphic;
  if (is("EUFM") || is("EUFB")) return MathAlphabet::kFraktur;
  if (is("RSFS") && capital) return MathAlphabet::kScript;
  return bold ? MathAlphabet::kBold : MathAlphabet::kPlain;
}

std::string InAlphabet(MathAlphabet alphabet, const std::string& tex) {
  switch (alphabet) {
    case MathAlphabet::kPlain:
      return tex;
    case MathAlphabet::kBold:
      return "\\mathbf{" + tex + "}";
    case MathAlphabet::kBlackboard:
      return "\\mathbb{" + tex + "}";
    case MathAlphabet::kCalligraphic:
      return "\\mathcal{" + tex + "}";
    case MathAlphabet::kFraktur:
      return "\\mathfrak{" + tex + "}";
    case MathAlphabet::kScript:
      return "\\mathscr{" + tex + "}";
  }
  return tex;
}

char32_t TexExtensionGlyph(std::string_view name) {
  // A piece that stands for its glyph: a size, a style, a top piece (a radical's hook is its bottom).
  bool whole = false;
  for (std::string_view suffix : {"display", "text", "Bigg", "bigg", "Big", "big", "tp", "bt"}) {
    if (name.size() > suffix.size() && name.ends_with(suffix)) {
      name.remove_suffix(suffix.size());
      whole = suffix != "bt" || name == "radical";
      if (suffix == "tp" && name == "radical") whole = false;
      break;
    }
  }
  if (!whole) return 0;
  for (const ExtensionStem& s : kExtensionStems) {
    if (s.stem == name) return s.rune;
  }
  return 0;
}

bool IsTexExtensionPiece(std::string_view name) {
  if (TexExtensionGlyph(name) != 0) return false;
  for (std::string_view suffix : {"ex", "bt", "mid", "vertex", "tp"}) {
    if (name.size() > suffix.size() && name.ends_with(suffix)) return true;
  }
  return false;
}

char32_t PlainMathLetter(char32_t c) {
  if (c >= kLatinFirst && c < kLatinEnd) {
    const char32_t k = (c - kLatinFirst) % 52;
    return k < 26 ? U'A' + k : U'a' + (k - 26);
  }
  if (c == 0x1D6A4) return U'\u0131';  // dotless i
  if (c == 0x1D6A5) return U'\u0237';  // dotless j
  if (c >= kGreekFirst && c < kGreekEnd) return kGreek[(c - kGreekFirst) % kGreek.size()];
  if (c >= kDigitsFirst && c < kDigitsEnd) return U'0' + (c - kDigitsFirst) % 10;
  return c;
}

}  // namespace mineru::document
