// Plain geometry for the text-layer backend (points, MuPDF's frame: origin top-left, y down), and the
// conversion to the 0-1000 page frame of the block model.
#pragma once

#include <algorithm>
#include <vector>

#include "document/block.h"

namespace mineru::document {

struct Rect {
  double x0 = 0;
  double y0 = 0;
  double x1 = 0;
  double y1 = 0;

  double width() const { return x1 - x0; }
  double height() const { return y1 - y0; }
  double cx() const { return (x0 + x1) / 2; }
  double cy() const { return (y0 + y1) / 2; }
  bool empty() const { return !(x1 > x0 && y1 > y0); }
  double area() const { return empty() ? 0 : width() * height(); }
  Rect Union(const Rect& o) const;
  Rect Intersect(const Rect& o) const;
  // True when `o`'s centre lies inside this rectangle grown by `margin`.
  bool ContainsCenterOf(const Rect& o, double margin = 0) const;
};

// The middle value of `values` (the upper one of an even count); 0 for none.
double Median(std::vector<double> values);

// Overlap of the y ranges divided by the smaller height (0..1).
double VerticalOverlap(const Rect& a, const Rect& b);

// Area of the union of `rects` inside `clip` (overlaps counted once).
double CoveredArea(const std::vector<Rect>& rects, const Rect& clip);

// Points on a page of `page` (the page's displayed bounds) -> 0-1000 frame, clamped.
BBox ToPageFrame(const Rect& r, const Rect& page);
// The reverse (for drawing boxes): 0-1000 frame -> points.
Rect FromPageFrame(const BBox& b, const Rect& page);

}  // namespace mineru::document
