#include "document/figure_regions.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <string_view>

namespace mineru::document {
namespace {

constexpr double kTouch = 3;                 // points a path is grown by before grouping
constexpr size_t kMinPaths = 8;              // paths in a figure
constexpr size_t kMaxMarginLabelChars = 25;  // bytes of a label beside the figure
constexpr double kTitleReach = 1.5;          // of its size: a label over the figure is at most this far up
constexpr size_t kMinTickValues = 3;         // beside a chart with no text inside its paths
constexpr double kMaxSwatch = 30;            // points: the longer side of a legend's key
constexpr double kLegendReach = 30;          // points from the figure to a legend's key
constexpr size_t kMinLegendEntries = 2;
constexpr double kMaxGridlineWidth = 2;  // points: a gridline's stroke

Rect Grow(const Rect& r, double d) { return {r.x0 - d, r.y0 - d, r.x1 + d, r.y1 + d}; }

bool Touch(const Rect& a, const Rect& b) {
  return a.x0 <= b.x1 && b.x0 <= a.x1 && a.y0 <= b.y1 && b.y0 <= a.y1;
}

size_t Find(std::vector<size_t>& parent, size_t i) {
  while (parent[i] != i) i = parent[i] = parent[parent[i]];
  return i;
}

bool Inside(const Rect& inner, const Rect& outer) {
  Rect in = inner.Intersect(outer);
  return !in.empty() && in.area() >= 0.9 * inner.area();
}

// A tick value of an axis: a number with its sign, separators and unit ("0", "-2.5", "1,000", "40%", "$5").
bool IsTickValue(const std::string& text) {
  if (text.empty() || text.size() > 12) return false;
  bool digit = false;
  for (char c : text) {
    if (c >= '0' && c <= '9') {
      digit = true;
    } else if (std::string_view("+-.,%$ ").find(c) == std::string_view::npos) {
      return false;
    }
  }
  return digit;
}

// `figure` grown by its legend: two or more keys (small paths, a colour swatch or a line's sample) near
// it, each with a short label right after it on its line ("■ Revenue  ■ Costs" set beside the plot).
Rect WithLegend(const Rect& figure, const std::vector<Rect>& drawings, const std::vector<TextLine>& lines) {
  Rect legend;
  size_t entries = 0;
  const Rect reach = Grow(figure, kLegendReach);
  for (const Rect& key : drawings) {
    if (std::max(key.width(), key.height()) > kMaxSwatch || !Touch(key, reach) || Inside(key, figure))
      continue;
    for (const TextLine& l : lines) {
      const double gap = l.box.x0 - key.x1;
      if (l.text.size() > kMaxMarginLabelChars || l.text.find(':') != std::string::npos || gap < 0 ||
          gap > 1.5 * std::max(1.0, l.font_size) || key.cy() < l.box.y0 || key.cy() > l.box.y1) {
        continue;
      }
      Rect entry = key.Union(l.box);
      legend = entries == 0 ? entry : legend.Union(entry);
      ++entries;
      break;
    }
  }
  return entries >= kMinLegendEntries ? figure.Union(legend) : figure;
}

// `figure` grown by the gridlines of a chart set past its paths (above its tallest bar, where no bar
// touches them): thin lines of the same extent as two or more of its own gridlines, one spacing past the
// outermost, one after the other. Horizontal gridlines, then vertical ones (a chart of bars set sideways).
Rect WithGridlines(Rect figure, const std::vector<Rect>& drawings) {
  for (const bool horizontal : {true, false}) {
    auto along = [&](const Rect& r) { return horizontal ? std::pair(r.x0, r.x1) : std::pair(r.y0, r.y1); };
    auto across = [&](const Rect& r) { return horizontal ? r.cy() : r.cx(); };
    auto thin = [&](const Rect& r) {
      const auto [a0, a1] = along(r);
      return (horizontal ? r.height() : r.width()) <= kMaxGridlineWidth && a1 - a0 >= kTouch * 4;
    };
    // The chart's own gridlines: thin, inside it, across most of it, all of one extent.
    std::vector<double> at;
    std::pair<double, double> extent{0, 0};
    for (const Rect& d : drawings) {
      const auto [a0, a1] = along(d);
      const auto [f0, f1] = along(figure);
      const Rect room = Grow(figure, 1);  // (a line has no area: Inside does not apply)
      const bool inside = d.x0 >= room.x0 && d.x1 <= room.x1 && d.y0 >= room.y0 && d.y1 <= room.y1;
      if (!thin(d) || !inside || a1 - a0 < 0.6 * (f1 - f0)) continue;
      if (at.empty()) extent = {a0, a1};
      if (std::fabs(a0 - extent.first) <= 2 && std::fabs(a1 - extent.second) <= 2) at.push_back(across(d));
    }
    if (at.size() < 2) continue;
    std::sort(at.begin(), at.end());
    double spacing = 0;
    for (size_t i = 1; i < at.size(); ++i) {
      if (at[i] - at[i - 1] > kTouch && (spacing == 0 || at[i] - at[i - 1] < spacing))
        spacing = at[i] - at[i - 1];
    }
    if (spacing == 0) continue;
    for (bool grown = true; grown;) {
      grown = false;
      for (const Rect& d : drawings) {
        const auto [a0, a1] = along(d);
        if (!thin(d) || std::fabs(a0 - extent.first) > 2 || std::fabs(a1 - extent.second) > 2) continue;
        const double c = across(d), tolerance = std::max(1.0, 0.1 * spacing);
        if (std::fabs(c - (at.front() - spacing)) <= tolerance ||
            std::fabs(c - (at.back() + spacing)) <= tolerance) {
          (c < at.front() ? at.insert(at.begin(), c) : at.insert(at.end(), c));
          figure = {std::min(figure.x0, d.x0), std::min(figure.y0, d.y0), std::max(figure.x1, d.x1),
                    std::max(figure.y1, d.y1)};  // (Union skips a line: it has no area)
          grown = true;
        }
      }
    }
  }
  return figure;
}

}  // namespace

bool IsFigureLabel(const TextLine& line, const Rect& figure) {
  if (line.text.size() > kMaxFigureLabelChars || line.monospace) return false;
  if (Inside(line.box, figure)) return true;
  // Beside the figure: tick values and short axis titles, not a caption ("Listing 1: ..."); over it, a
  // chart's title, set close and over the figure's width (a line of the text above ends further up, or
  // reaches out past the figure's side).
  const double size = std::max(1.0, line.font_size);
  const bool over = line.box.y1 <= figure.y0;
  const bool title = figure.y0 - line.box.y1 <= kTitleReach * size && line.box.x0 >= figure.x0 - size &&
                     line.box.x1 <= figure.x1 + size;
  return line.text.size() <= kMaxMarginLabelChars && line.text.find(':') == std::string::npos &&
         Inside(line.box, Grow(figure, 3 * size)) && (!over || title);
}

std::vector<Rect> FindVectorFigures(const PageContent& page, const std::vector<TextLine>& lines,
                                    const std::vector<Rect>& tables) {
  const Rect& pr = page.page;
  std::vector<Rect> paths;
  for (const Rect& d : page.drawings) {
    Rect g = Grow(d, kTouch);
    if (g.area() < 0.7 * pr.area()) paths.push_back(g);  // not a page background
  }
  if (paths.size() < kMinPaths) return {};
  // Groups of touching paths (sweep in x order; union-find).
  std::vector<size_t> order(paths.size()), parent(paths.size());
  std::iota(order.begin(), order.end(), 0);
  std::iota(parent.begin(), parent.end(), 0);
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return paths[a].x0 < paths[b].x0; });
  for (size_t oi = 0; oi < order.size(); ++oi) {
    const Rect& a = paths[order[oi]];
    for (size_t oj = oi + 1; oj < order.size() && paths[order[oj]].x0 <= a.x1; ++oj) {
      if (Touch(a, paths[order[oj]])) parent[Find(parent, order[oi])] = Find(parent, order[oj]);
    }
  }
  std::vector<Rect> box(paths.size());
  std::vector<size_t> count(paths.size(), 0);
  for (size_t i = 0; i < paths.size(); ++i) {
    size_t root = Find(parent, i);
    box[root] = count[root] == 0 ? paths[i] : box[root].Union(paths[i]);
    ++count[root];
  }
  std::vector<Rect> figures;
  for (size_t root = 0; root < paths.size(); ++root) {
    if (count[root] < kMinPaths) continue;
    Rect r = WithGridlines(Grow(box[root], -kTouch), page.drawings).Intersect(pr);
    if (r.empty() || r.width() < 40 || r.height() < 40 || r.area() < 0.02 * pr.area() ||
        r.area() > 0.7 * pr.area())
      continue;
    bool table = std::any_of(tables.begin(), tables.end(), [&](const Rect& t) {
      return r.Intersect(t).area() >= 0.5 * std::min(r.area(), t.area());
    });
    if (table) continue;
    size_t labels = 0;
    double text_area = 0;
    bool prose = false;
    for (const TextLine& l : lines) {
      if (!Inside(l.box, r)) continue;
      ++labels;
      text_area += l.box.area();
      prose = prose || l.text.size() > kMaxFigureLabelChars || l.monospace;
    }
    // A chart whose plot area holds no text (bars, gridlines) has its tick values beside it.
    if (labels == 0) {
      labels = static_cast<size_t>(std::count_if(lines.begin(), lines.end(), [&](const TextLine& l) {
        return IsTickValue(l.text) && IsFigureLabel(l, r);
      }));
      if (labels < kMinTickValues) continue;
    }
    if (prose || text_area > 0.3 * r.area()) continue;
    figures.push_back(WithLegend(r, page.drawings, lines));
  }
  return figures;
}

}  // namespace mineru::document
