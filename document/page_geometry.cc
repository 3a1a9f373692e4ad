#include "document/page_geometry.h"

#include <algorithm>
#include <cmath>
#include <utility>

namespace mineru::document {

Rect Rect::Union(const Rect& o) const {
  if (empty()) return o;
  if (o.empty()) return *this;
  return {std::min(x0, o.x0), std::min(y0, o.y0), std::max(x1, o.x1), std::max(y1, o.y1)};
}

Rect Rect::Intersect(const Rect& o) const {
  return {std::max(x0, o.x0), std::max(y0, o.y0), std::min(x1, o.x1), std::min(y1, o.y1)};
}

bool Rect::ContainsCenterOf(const Rect& o, double margin) const {
  return o.cx() >= x0 - margin && o.cx() <= x1 + margin && o.cy() >= y0 - margin && o.cy() <= y1 + margin;
}

double Median(std::vector<double> values) {
  if (values.empty()) return 0;
  const auto middle = values.begin() + static_cast<std::ptrdiff_t>(values.size() / 2);
  std::nth_element(values.begin(), middle, values.end());
  return *middle;
}

double VerticalOverlap(const Rect& a, const Rect& b) {
  double overlap = std::min(a.y1, b.y1) - std::max(a.y0, b.y0);
  double h = std::min(a.height(), b.height());
  if (h <= 0) return 0;
  return std::clamp(overlap / h, 0.0, 1.0);
}

double CoveredArea(const std::vector<Rect>& rects, const Rect& clip) {
  std::vector<Rect> inside;
  std::vector<double> xs;
  for (const Rect& r : rects) {
    const Rect c = r.Intersect(clip);
    if (c.empty()) continue;
    inside.push_back(c);
    xs.push_back(c.x0);
    xs.push_back(c.x1);
  }
  std::sort(xs.begin(), xs.end());
  xs.erase(std::unique(xs.begin(), xs.end()), xs.end());
  double area = 0;
  std::vector<std::pair<double, double>> spans;
  for (size_t k = 0; k + 1 < xs.size(); ++k) {
    // The y spans of the rectangles over the slab [xs[k], xs[k+1]], merged.
    spans.clear();
    for (const Rect& r : inside) {
      if (r.x0 <= xs[k] && r.x1 >= xs[k + 1]) spans.emplace_back(r.y0, r.y1);
    }
    std::sort(spans.begin(), spans.end());
    double covered = 0, top = 0, bottom = 0;
    bool open = false;
    for (const auto& [y0, y1] : spans) {
      if (open && y0 <= bottom) {
        bottom = std::max(bottom, y1);
        continue;
      }
      if (open) covered += bottom - top;
      top = y0;
      bottom = y1;
      open = true;
    }
    if (open) covered += bottom - top;
    area += covered * (xs[k + 1] - xs[k]);
  }
  return area;
}

BBox ToPageFrame(const Rect& r, const Rect& page) {
  double w = page.width() > 0 ? page.width() : 1;
  double h = page.height() > 0 ? page.height() : 1;
  auto fx = [&](double x) { return static_cast<int>(std::lround((x - page.x0) * 1000.0 / w)); };
  auto fy = [&](double y) { return static_cast<int>(std::lround((y - page.y0) * 1000.0 / h)); };
  return NormalizeBBox({fx(r.x0), fy(r.y0), fx(r.x1), fy(r.y1)});
}

Rect FromPageFrame(const BBox& b, const Rect& page) {
  // MinerU's rule: x = int(v * width / 1000), the same for y.
  auto px = [&](int v) { return page.x0 + std::floor(v * page.width() / 1000.0); };
  auto py = [&](int v) { return page.y0 + std::floor(v * page.height() / 1000.0); };
  return {px(b.x0), py(b.y0), px(b.x1), py(b.y1)};
}

}  // namespace mineru::document
