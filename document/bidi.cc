#include "document/bidi.h"

#include <algorithm>
#include <cmath>
#include <iterator>

namespace mineru::document {
namespace {

// Combining marks of the scripts read here (Latin accents, Hebrew points, Arabic harakat): drawn on a
// letter, logically after it.
bool IsCombiningMark(char32_t c) {
  return (c >= 0x0300 && c <= 0x036F) || (c >= 0x0591 && c <= 0x05BD) || c == 0x05BF || c == 0x05C1 ||
         c == 0x05C2 || c == 0x05C4 || c == 0x05C5 || c == 0x05C7 || (c >= 0x0610 && c <= 0x061A) ||
         (c >= 0x064B && c <= 0x065F) || c == 0x0670 || (c >= 0x06D6 && c <= 0x06DC) ||
         (c >= 0x06DF && c <= 0x06E4) || c == 0x06E7 || c == 0x06E8 || (c >= 0x06EA && c <= 0x06ED);
}

bool IsDigit(char32_t c) {
  return (c >= '0' && c <= '9') || (c >= 0x0660 && c <= 0x0669) || (c >= 0x06F0 && c <= 0x06F9);
}

// Characters that end a left-to-right run: right-to-left letters. Arabic-Indic digits and the Arabic
// separators between numbers (comma, decimal and thousands separators) are shown left to right.
bool EndsLtrRun(char32_t c) {
  return IsRtlChar(c) && !IsDigit(c) && c != 0x060C && c != 0x066B && c != 0x066C && !IsCombiningMark(c);
}

bool StartsLtrRun(char32_t c) { return IsLtrStrong(c) || IsDigit(c); }

// Signs that go with the number they touch ("50%", "$12", "45°"): the bidi class ET.
bool IsNumberTerminator(char32_t c) {
  return c == '#' || c == '$' || c == '%' || (c >= 0xA2 && c <= 0xA5) || c == 0xB0 || c == 0xB1 ||
         c == 0x066A || c == 0x2030 || c == 0x2031 || (c >= 0x2032 && c <= 0x2034) ||
         (c >= 0x20A0 && c <= 0x20CF);
}

bool IsSpace(char32_t c) { return c == ' ' || c == 0xA0; }

// One glyph: its first character, the letters after it that its ToUnicode entry gave (no width of their
// own), the combining marks drawn on it.
struct Cluster {
  std::vector<TextChar> chars;
  std::vector<TextChar> marks;
  Rect box;
  char32_t head() const { return chars.front().rune; }
};

// The glyphs of `chars`, left to right.
std::vector<Cluster> Clusters(const std::vector<TextChar>& chars) {
  std::vector<Cluster> clusters;
  std::vector<const TextChar*> marks;
  for (const TextChar& c : chars) {
    if (IsCombiningMark(c.rune)) {
      marks.push_back(&c);
      continue;
    }
    const bool follower = !clusters.empty() && !IsSpace(c.rune) && !IsSpace(clusters.back().head()) &&
                          c.box.width() < 0.01 && std::fabs(c.box.x0 - clusters.back().box.x1) < 0.5;
    if (follower) {
      clusters.back().chars.push_back(c);
      continue;
    }
    clusters.push_back({{c}, {}, c.box});
  }
  // Marks with no letter to sit on stand for themselves.
  if (std::all_of(clusters.begin(), clusters.end(), [](const Cluster& cl) { return IsSpace(cl.head()); })) {
    for (const TextChar* m : marks) clusters.push_back({{*m}, {}, m->box});
    marks.clear();
  }
  std::stable_sort(clusters.begin(), clusters.end(),
                   [](const Cluster& a, const Cluster& b) { return a.box.cx() < b.box.cx(); });
  // A mark goes to the letter whose box holds it, or the nearer of its neighbours: producers write it
  // before or after its letter.
  auto distance = [](const Cluster& cl, double x) {
    return x < cl.box.x0 ? cl.box.x0 - x : (x > cl.box.x1 ? x - cl.box.x1 : 0.0);
  };
  for (const TextChar* m : marks) {
    const double x = m->box.cx();
    auto at = std::lower_bound(clusters.begin(), clusters.end(), x,
                               [](const Cluster& cl, double v) { return cl.box.cx() < v; });
    auto right = std::find_if(at, clusters.end(), [](const Cluster& cl) { return !IsSpace(cl.head()); });
    auto left = std::find_if(std::make_reverse_iterator(at), clusters.rend(),
                             [](const Cluster& cl) { return !IsSpace(cl.head()); });
    Cluster* best = right != clusters.end() ? &*right : &*left;
    if (left != clusters.rend() && distance(*left, x) <= distance(*best, x)) best = &*left;
    best->marks.push_back(*m);
  }
  return clusters;
}

}  // namespace

bool IsRtlChar(char32_t c) {
  return (c >= 0x0590 && c <= 0x08FF) || (c >= 0xFB1D && c <= 0xFDFF) || (c >= 0xFE70 && c <= 0xFEFF);
}

bool IsLtrStrong(char32_t c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
         (c >= 0xC0 && c < 0x590 && c != 0xD7 && c != 0xF7) || (c >= 0x900 && c < 0x2000) ||
         (c >= 0x3000 && c < 0xFB1D) || (c >= 0xAC00 && c <= 0xD7AF);
}

std::vector<TextChar> RightToLeftLogical(const std::vector<TextChar>& chars, double space_gap) {
  // A line turned on its side (glyph centres further apart down than across) has no order by x: as written.
  double x0 = 1e18, x1 = -1e18, y0 = 1e18, y1 = -1e18;
  for (const TextChar& c : chars) {
    if (IsSpace(c.rune)) continue;
    x0 = std::min(x0, c.box.cx()), x1 = std::max(x1, c.box.cx());
    y0 = std::min(y0, c.box.cy()), y1 = std::max(y1, c.box.cy());
  }
  if (y1 - y0 > x1 - x0) return chars;
  std::vector<Cluster> clusters = Clusters(chars);
  // Left to right, with spaces at gaps; then read from the right.
  std::vector<Cluster> order;
  order.reserve(clusters.size());
  for (Cluster& cl : clusters) {
    if (!order.empty() && !IsSpace(order.back().head()) && !IsSpace(cl.head()) &&
        cl.box.x0 - order.back().box.x1 > space_gap) {
      order.push_back({{{' ', {}}}, {}, {}});
    }
    order.push_back(std::move(cl));
  }
  std::reverse(order.begin(), order.end());
  // Runs of left-to-right letters and numbers, with what stands between them, read left to right.
  size_t i = 0;
  while (i < order.size()) {
    if (!StartsLtrRun(order[i].head())) {
      ++i;
      continue;
    }
    size_t last = i;
    for (size_t j = i; j < order.size() && !EndsLtrRun(order[j].head()); ++j) {
      if (StartsLtrRun(order[j].head())) last = j;
    }
    while (i > 0 && IsDigit(order[i].head()) && IsNumberTerminator(order[i - 1].head())) --i;
    while (last + 1 < order.size() && IsDigit(order[last].head()) &&
           IsNumberTerminator(order[last + 1].head())) {
      ++last;
    }
    std::reverse(order.begin() + static_cast<ptrdiff_t>(i), order.begin() + static_cast<ptrdiff_t>(last) + 1);
    i = last + 1;
  }
  std::vector<TextChar> logical;
  logical.reserve(chars.size() + 8);
  for (size_t k = 0; k < order.size(); ++k) {
    const Cluster& cl = order[k];
    // No word mixes Latin and Arabic or Hebrew letters: where they touch, a word processor drew the
    // space between them on the far side of the Latin run.
    if (k > 0 && IsLtrStrong(order[k - 1].head()) != IsLtrStrong(cl.head()) &&
        (EndsLtrRun(order[k - 1].head()) || EndsLtrRun(cl.head()))) {
      logical.push_back({' ', {}});
    }
    logical.insert(logical.end(), cl.chars.begin(), cl.chars.end());
    logical.insert(logical.end(), cl.marks.begin(), cl.marks.end());
  }
  return logical;
}

}  // namespace mineru::document
