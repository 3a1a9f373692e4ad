#include "document/math_letters.h"

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

}  // namespace

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
