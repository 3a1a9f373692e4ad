#include "document/drawn_markers.h"

#include <algorithm>
#include <cmath>

namespace mineru::document {
namespace {

constexpr double kMinBullet = 0.2;       // of the line's size: the least width and height of a bullet
constexpr double kMaxBullet = 0.8;       // and the most
constexpr double kMaxAspect = 2.0;       // a bullet is no longer than twice its breadth
constexpr double kMinBulletGap = 0.1;    // ems between a bullet and its text, at least
constexpr double kMaxBulletGap = 1.5;    // and at most
constexpr double kMinNumberShape = 0.5;  // of the line's size: a shape a number is set on, across
constexpr double kMaxNumberShape = 1.2;

bool Squarish(const Rect& r) {
  return r.width() <= kMaxAspect * r.height() && r.height() <= kMaxAspect * r.width();
}

// The drawing that is `line`'s bullet, or null.
const Rect* BulletOf(const TextLine& line, const std::vector<Rect>& shapes,
                     const std::vector<TextLine>& lines) {
  const double em = std::max(1.0, line.font_size);
  for (const Rect& d : shapes) {
    const double gap = line.box.x0 - d.x1;
    if (d.width() < kMinBullet * em || d.width() > kMaxBullet * em || d.height() < kMinBullet * em ||
        d.height() > kMaxBullet * em || !Squarish(d) || d.cy() <= line.box.y0 || d.cy() >= line.box.y1 ||
        gap < kMinBulletGap * em || gap > kMaxBulletGap * em)
      continue;
    // (Nothing else drawn over it: a glyph's box there is a marker of its own, or text the shape labels.)
    const bool covered = std::any_of(lines.begin(), lines.end(), [&](const TextLine& other) {
      return &other != &line && !other.box.Intersect(d).empty();
    });
    if (!covered) return &d;
  }
  return nullptr;
}

// The number of digits (1 or 2) at the start of `line` set on one small shape, the text after a space;
// 0 when none.
size_t DigitsOnShape(const TextLine& line, const std::vector<Rect>& shapes) {
  size_t digits = 0;
  while (digits < line.chars.size() && digits < 3 && line.chars[digits].rune >= '0' &&
         line.chars[digits].rune <= '9')
    ++digits;
  if (digits == 0 || digits > 2 || digits + 1 >= line.chars.size() || line.chars[digits].rune != ' ')
    return 0;
  const double em = std::max(1.0, line.font_size);
  Rect number = line.chars[0].box;
  for (size_t k = 1; k < digits; ++k) number = number.Union(line.chars[k].box);
  for (const Rect& d : shapes) {
    if (d.width() >= kMinNumberShape * em && d.width() <= kMaxNumberShape * em &&
        d.height() >= kMinNumberShape * em && d.height() <= kMaxNumberShape * em && Squarish(d) &&
        d.ContainsCenterOf(number) && d.x1 < line.chars[digits + 1].box.x0)
      return digits;
  }
  return 0;
}

}  // namespace

size_t AddDrawnMarkers(std::vector<TextLine>& lines, const std::vector<Rect>& shapes,
                       const std::vector<bool>& skip) {
  if (shapes.empty()) return 0;
  std::vector<const Rect*> bullets(lines.size(), nullptr);
  std::vector<size_t> numbers(lines.size(), 0);
  for (size_t i = 0; i < lines.size(); ++i) {
    if (skip[i] || lines[i].sideways || lines[i].chars.empty()) continue;
    bullets[i] = BulletOf(lines[i], shapes, lines);
    if (bullets[i] == nullptr) numbers[i] = DigitsOnShape(lines[i], shapes);
  }
  size_t marked = 0;
  for (size_t i = 0; i < lines.size(); ++i) {
    TextLine& line = lines[i];
    if (const Rect* b = bullets[i]) {
      line.chars.insert(line.chars.begin(), {{U'\u2022', *b}, {U' ', {b->x1, b->y0, line.box.x0, b->y1}}});
      line.text = "\u2022 " + line.text;
      line.box = line.box.Union(*b);
      ++marked;
    } else if (const size_t digits = numbers[i]; digits > 0) {
      const Rect& last = line.chars[digits - 1].box;
      line.chars.insert(line.chars.begin() + static_cast<std::ptrdiff_t>(digits),
                        {U'.', {last.x1, last.y0, last.x1, last.y1}});
      line.text.insert(digits, ".");
      ++marked;
    }
  }
  return marked;
}

}  // namespace mineru::document
