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

}  // namespace

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
