#include "document/text_layout.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <limits>
#include <map>
#include <set>
#include <string_view>
#include <tuple>

#include "document/aligned_table.h"
#include "document/display_math.h"
#include "document/drawn_markers.h"
#include "document/figure_regions.h"
#include "document/formula_latex.h"
#include "document/hyphen_join.h"
#include "document/inline_math.h"
#include "document/model_output_parser.h"
#include "document/ruling_table.h"
#include "document/running_text.h"

namespace mineru::document {
namespace {

constexpr int kMaxDepth = 12;
constexpr double kMinBandGap = 2;        // points: a gap this tall across a region parts a block over columns
constexpr size_t kMaxTopBands = 12;      // bands of such a block looked at, from the top
constexpr double kBlocksGapLines = 0.8;  // median lines: the blank strip under blocks set over columns
constexpr double kMaxColumnsBreakLines = 3;  // median items: a blank across columns that goes on under it
constexpr size_t kMaxBlocksLines = 80;   // lines over columns looked at as blocks (authors' rows)
constexpr double kStackHeightRatio = 0.75;  // of the taller line: a line under another in a block of lines
constexpr double kHeadingRatio = 1.08;      // a heading is at least this much larger than body text
constexpr size_t kMaxSentenceHeadingChars = 60;  // a heading ending like a sentence is shorter
constexpr double kItemLabelReach = 3.0;  // ems: a list's label at most this far before its item's text
constexpr double kSmallCapsRatio = 0.7;  // of the body size: small capitals at least this large
constexpr double kBoldHeadingRatio = 0.88;  // of the body size: a bold heading at least this large
constexpr double kHeadLineRatio = 1.3;   // a head over both columns is this much taller a line
constexpr size_t kMaxSetApartLines = 3;  // lines of a column's foot (over a spanning table) or head (a title)
constexpr size_t kMaxFieldNameChars = 8;    // Chinese characters of a field's name ("执业证书编号")
constexpr size_t kMaxFieldNameWords = 3;    // words of a field's name ("Target price")
constexpr double kCjkShortEm = 2.5;         // a Chinese line this much short of the measure ends
constexpr int kFigureLabelReach = 2;        // labels beside a vector figure, then labels beside those
constexpr double kMaxCaptionTextLines = 4;  // lines of the text a caption takes from under it
constexpr size_t kMinProseLines = 3;        // long lines that are enough to set the body size
constexpr double kMinProseLineEm = 15;      // ems: a line this long is running text, not a cell
constexpr double kColumnReachLines = 8;     // sizes above and below a table where its page's columns show

bool IsLetter(char32_t c) { return IsLowerLatin(c) || (c >= 'A' && c <= 'Z') || (c >= 0xC0 && c <= 0x24F); }

enum class ItemKind { kLine, kTable, kImage, kEquation };

struct Item {
  Rect box;
  ItemKind kind;
  size_t index;        // into lines, tables or images
  bool code = false;   // a line in a monospaced font
  bool label = false;  // a line that is a label alone: "[12]", "3.", a bullet (IsBareLabel)
};

// Whether the gutter gx0..gx1 has a single line on one side, level with the top of a column of four lines
// or more on the other and at least half as long as that column's lines: the last column of an article
// holding the last line of its paragraph (not a value beside a form's first label).
bool LoneLineTopsColumn(const std::vector<Item>& items, const std::vector<size_t>& ids, double gx0,
                        double gx1) {
  std::vector<size_t> left, right;
  for (size_t id : ids) {
    if (items[id].box.x1 <= gx0 + 1) left.push_back(id);
    if (items[id].box.x0 >= gx1 - 1) right.push_back(id);
  }
  if (left.size() == 1) std::swap(left, right);
  if (right.size() != 1 || left.size() < 4 || items[right[0]].kind != ItemKind::kLine) return false;
  const Rect& lone = items[right[0]].box;
  double top = 1e18;
  std::vector<double> widths;
  for (size_t id : left) {
    top = std::min(top, items[id].box.y0);
    widths.push_back(items[id].box.width());
  }
  return std::fabs(lone.y0 - top) <= lone.height() && lone.width() >= 0.5 * Median(std::move(widths));
}

// The best gutter (score, x0, x1) among the x gaps in the coverage of the items of `ids` narrower than
// 0.55 of the region; score 0: none. Columns only where most items are narrow (a single column with a few
// short lines or a table of numbers has no gutter), or where almost nothing crosses the gutter: a narrow
// column beside a wider one.
std::tuple<double, double, double> FindGutter(const std::vector<Item>& items, const std::vector<size_t>& ids,
                                              const Rect& region) {
  std::vector<std::pair<double, double>> spans;
  for (size_t id : ids) {
    if (items[id].box.width() < 0.55 * region.width()) spans.push_back({items[id].box.x0, items[id].box.x1});
  }
  std::sort(spans.begin(), spans.end());
  double best_score = 0, gx0 = 0, gx1 = 0;
  bool mostly_narrow = spans.size() * 2 >= ids.size();
  double reach = spans.empty() ? 0 : spans.front().second;
  for (size_t i = 1; i < spans.size(); ++i) {
    if (spans[i].first - reach >= 6) {
      double g0 = reach, g1 = spans[i].first;
      size_t left = 0, right = 0, crossing = 0;
      for (size_t id : ids) {
        const Rect& b = items[id].box;
        if (b.x1 <= g0 + 1) ++left;
        if (b.x0 >= g1 - 1) ++right;
        if (b.x0 < g0 - 1 && b.x1 > g1 + 1) ++crossing;
      }
      bool clear = crossing * 10 <= ids.size() && (left + right) * 4 >= ids.size() * 3;
      double score = static_cast<double>(std::min(left, right));
      const bool columns = (left >= 2 && right >= 2) || (clear && LoneLineTopsColumn(items, ids, g0, g1));
      if ((mostly_narrow || clear) && columns && score > best_score) {
        best_score = score;
        gx0 = g0;
        gx1 = g1;
      }
    }
    reach = std::max(reach, spans[i].second);
  }
  return {best_score, gx0, gx1};
}

// A vertical whitespace strip at least 6 points wide that at most a tenth of the items cross (titles,
// wide figures), with at least two items on each side, three quarters of them on one side or the other,
// and mostly wide lines on one side: the gutter beside a narrow side column whose neighbour is a column
// of running text (a grid of short cells is no such pair of columns); or the gutter between two columns
// of running text that a centred title or two cross. (score, x0, x1); score 0: none.
std::tuple<double, double, double> FindClearGutter(const std::vector<Item>& items,
                                                   const std::vector<size_t>& ids, const Rect& region) {
  int width = static_cast<int>(std::ceil(region.width()));
  if (width < 12 || width > 20000) return {0, 0, 0};
  std::vector<int> cover(static_cast<size_t>(width) + 2, 0);  // difference array over 1-point bins
  for (size_t id : ids) {
    int a = std::clamp(static_cast<int>(std::floor(items[id].box.x0 - region.x0)), 0, width);
    int b = std::clamp(static_cast<int>(std::ceil(items[id].box.x1 - region.x0)), 0, width);
    ++cover[static_cast<size_t>(a)];
    --cover[static_cast<size_t>(b)];
  }
  int allowed = static_cast<int>(ids.size() / 10);
  double best_score = 0, gx0 = 0, gx1 = 0;
  int depth = 0, run_start = -1;
  for (int x = 0; x <= width; ++x) {
    depth += cover[static_cast<size_t>(x)];
    bool open = depth <= allowed && x < width;
    if (open && run_start < 0) run_start = x;
    if (open || run_start < 0) continue;
    double g0 = region.x0 + run_start, g1 = region.x0 + x;
    run_start = -1;
    if (g1 - g0 < 6) continue;
    size_t left = 0, right = 0, crossing = 0, left_wide = 0, right_wide = 0, left_long = 0, right_long = 0;
    for (size_t id : ids) {
      const Rect& b = items[id].box;
      bool wide = b.width() >= 0.45 * region.width();
      bool long_line = b.width() >= 0.3 * region.width();
      if (b.x1 <= g0 + 1) ++left, left_wide += wide, left_long += long_line;
      if (b.x0 >= g1 - 1) ++right, right_wide += wide, right_long += long_line;
      if (b.x0 < g0 - 1 && b.x1 > g1 + 1) ++crossing;
    }
    bool clear = crossing * 10 <= ids.size() && (left + right) * 4 >= ids.size() * 3;
    // One side is a column of running text (mostly wide lines), not a grid of short cells; or both sides
    // are columns of running text narrower than that (two columns under a centred title that crosses
    // the gutter: mostly lines a third of the width or more on each side).
    bool prose = left_wide * 2 >= left || right_wide * 2 >= right;
    bool two_columns = left_long * 2 >= left && right_long * 2 >= right;
    double score = static_cast<double>(std::min(left, right));
    if (clear && (prose || two_columns) && left >= 2 && right >= 2 && score > best_score) {
      best_score = score;
      gx0 = g0;
      gx1 = g1;
    }
  }
  return {best_score, gx0, gx1};
}

// The most items of `ids` whose left edges (or right ones) stand at one x, within 2 points.
size_t FlushCount(const std::vector<Item>& items, const std::vector<size_t>& ids, bool left_edge) {
  auto edge = [&](size_t id) { return left_edge ? items[id].box.x0 : items[id].box.x1; };
  size_t best = 0;
  for (size_t a : ids) {
    best = std::max<size_t>(best, std::count_if(ids.begin(), ids.end(),
                                                [&](size_t b) { return std::fabs(edge(a) - edge(b)) <= 2; }));
  }
  return best;
}

// Whether the items either side of the gutter gx0..gx1 are rows rather than columns: a code listing's
// lines cut into pieces at wide gaps ("x   INTEGER,": three in four items on each side monospaced); a
// list's labels alone on the reading side, three in four level with a line on the other ("[1]" before a
// reference whose lines hang indented under its text); or,
// in a `band` of a region with no gutter down it (see SplitAtBlankLines), rows of a key and its value (an
// option and what it does, a field and its size): three in four items on each side share a baseline with
// one on the other side, keys flush left or right and values flush left (three in four; an author
// block's lines are centred), the keys' side reaches less than 0.4 of the region's width, and the values'
// side is no running text (mostly lines under 0.45 of the page's `measure`; a sidebar beside a report's
// text is a column). (Short lists side by side on a slide pair up too, where a gutter runs down the page.)
bool RowsAcross(const std::vector<Item>& items, const std::vector<size_t>& ids, const Rect& region,
                double gx0, double gx1, bool rtl, double measure, bool band) {
  std::vector<size_t> left, right;
  for (size_t id : ids) {
    const Rect& b = items[id].box;
    if (b.x1 <= gx0 + 1) left.push_back(id);
    if (b.x0 >= gx1 - 1) right.push_back(id);
  }
  if (rtl) std::swap(left, right);
  auto paired = [&](const std::vector<size_t>& side, const std::vector<size_t>& other) {
    size_t n = 0;
    for (size_t a : side) {
      n += std::any_of(other.begin(), other.end(),
                       [&](size_t b) { return VerticalOverlap(items[a].box, items[b].box) >= 0.5; });
    }
    return n * 4 >= side.size() * 3;
  };
  auto code = [&](const std::vector<size_t>& side) {
    return std::count_if(side.begin(), side.end(), [&](size_t id) { return items[id].code; }) * 4 >=
           static_cast<std::ptrdiff_t>(side.size()) * 3;
  };
  if (left.empty() || right.empty()) return false;
  if (code(left) && code(right)) return true;
  // Labels alone, each level with a line on the other side: a list's numbers before its entries ("[1]"
  // set apart before a reference, its lines indented under its text), not a column of them.
  if (std::all_of(left.begin(), left.end(), [&](size_t id) { return items[id].label; }) &&
      paired(left, right))
    return true;
  if (!band) return false;
  // Keys flush left or right (names, sizes), values flush left: not the centred lines of an author block.
  auto flush = [&](const std::vector<size_t>& side, bool left_edge) {
    return FlushCount(items, side, left_edge) * 4 >= side.size() * 3;
  };
  if (!(flush(left, true) || flush(left, false)) || !flush(right, !rtl)) return false;
  size_t wide_values = 0;
  for (size_t id : right) wide_values += items[id].box.width() >= 0.45 * measure;
  const double keys_reach = rtl ? region.x1 - gx1 : gx0 - region.x0;
  return keys_reach < 0.4 * region.width() && wide_values * 2 < right.size() && paired(left, right) &&
         paired(right, left);
}

// `ids` cut into bands, top to bottom, where a blank strip at least `blank` tall runs across all of them
// (no item covers it).
std::vector<std::vector<size_t>> SplitAtGaps(const std::vector<Item>& items, std::vector<size_t> ids,
                                             double blank) {
  std::sort(ids.begin(), ids.end(), [&](size_t a, size_t b) { return items[a].box.y0 < items[b].box.y0; });
  std::vector<std::vector<size_t>> bands;
  double reach = -1e18;  // the lowest bottom edge so far
  for (size_t id : ids) {
    if (bands.empty() || items[id].box.y0 - reach >= blank) bands.emplace_back();
    bands.back().push_back(id);
    reach = std::max(reach, items[id].box.y1);
  }
  return bands;
}

// `ids` cut into bands where a blank line at least as tall as the median item runs across all of them.
std::vector<std::vector<size_t>> SplitAtBlankLines(const std::vector<Item>& items, std::vector<size_t> ids) {
  std::vector<double> heights;
  for (size_t id : ids) heights.push_back(items[id].box.height());
  const double blank = Median(std::move(heights));
  return SplitAtGaps(items, std::move(ids), blank);
}

// The gutter down the items of `ids` (FindGutter, failing that FindClearGutter) that parts columns, not
// rows (RowsAcross; `band`: a band of a region with no gutter down it): (score, x0, x1), score 0: none.
std::tuple<double, double, double> ColumnGutter(const std::vector<Item>& items,
                                                const std::vector<size_t>& ids, bool rtl, double measure,
                                                bool band) {
  Rect region;
  for (size_t id : ids) region = region.Union(items[id].box);
  auto [score, g0, g1] = FindGutter(items, ids, region);
  if (score == 0) std::tie(score, g0, g1) = FindClearGutter(items, ids, region);
  if (score > 0 && RowsAcross(items, ids, region, g0, g1, rtl, measure, band)) score = 0;
  return {score, g0, g1};
}

// Whether a side of the gutter g0..g1 in `band` is running text: two lines or more, and half its items
// or more lines across 0.8 of the side's width (not a row of panels: pictures over short captions).
bool RunningTextBeside(const std::vector<Item>& items, const std::vector<size_t>& band, double g0,
                       double g1) {
  for (const bool left : {true, false}) {
    std::vector<size_t> side;
    Rect extent;
    for (size_t id : band) {
      const Rect& b = items[id].box;
      if (left ? b.x1 <= g0 + 1 : b.x0 >= g1 - 1) {
        side.push_back(id);
        extent = extent.Union(b);
      }
    }
    size_t lines = 0, long_lines = 0;
    for (size_t id : side) {
      if (items[id].kind != ItemKind::kLine) continue;
      ++lines;
      long_lines += items[id].box.width() >= 0.8 * extent.width();
    }
    if (lines >= 2 && long_lines * 2 >= side.size()) return true;
  }
  return false;
}

// Whether the few lines of `heads` (kMaxSetApartLines a side at most) head the columns of `below`
// either side of its gutter g0..g1: some on each side, none across it, each starting at its column's
// left edge or centred over it (within an em): "1. Introduction" and "2. Related Work" level over a
// paper's columns.
bool HeadColumns(const std::vector<Item>& items, const std::vector<size_t>& heads,
                 const std::vector<size_t>& below, double g0, double g1) {
  Rect sides[2];
  for (size_t id : below) {
    const Rect& b = items[id].box;
    if (b.x1 <= g0 + 1) sides[0] = sides[0].Union(b);
    if (b.x0 >= g1 - 1) sides[1] = sides[1].Union(b);
  }
  size_t count[2] = {0, 0};
  for (size_t id : heads) {
    const Rect& b = items[id].box;
    const double em = b.height();
    const int side = b.x1 <= g0 + 1 ? 0 : b.x0 >= g1 - 1 ? 1 : -1;
    if (side < 0 || items[id].kind != ItemKind::kLine || sides[side].empty()) return false;
    const Rect& column = sides[side];
    if (std::fabs(b.x0 - column.x0) > em && std::fabs(b.cx() - column.cx()) > em) return false;
    ++count[side];
  }
  return count[0] > 0 && count[1] > 0 && count[0] <= kMaxSetApartLines && count[1] <= kMaxSetApartLines;
}

// `bands` (SplitAtBlankLines, top down) joined where the columns of one go on in the next: both have a
// gutter (ColumnGutter) at one place (the two overlapping by 6 points or more) with running text beside
// it (RunningTextBeside), or the next one has and the lines of the one before head its columns
// (HeadColumns), and the blank between them is at most kMaxColumnsBreakLines median items tall. Each column
// of a page of two has gaps of its own (a heading's space in one, a figure's in the other), and where two
// fall level a blank line runs across the page without ending its columns.
std::vector<std::vector<size_t>> JoinBandsOfOneGutter(const std::vector<Item>& items,
                                                      std::vector<std::vector<size_t>> bands, bool rtl,
                                                      double measure) {
  std::vector<double> heights;
  for (const std::vector<size_t>& band : bands) {
    for (size_t id : band) heights.push_back(items[id].box.height());
  }
  const double most_blank = kMaxColumnsBreakLines * Median(std::move(heights));
  auto bottom = [&](const std::vector<size_t>& band) {
    double y = -1e18;
    for (size_t id : band) y = std::max(y, items[id].box.y1);
    return y;
  };
  auto top = [&](const std::vector<size_t>& band) {
    double y = 1e18;
    for (size_t id : band) y = std::min(y, items[id].box.y0);
    return y;
  };
  std::vector<std::vector<size_t>> joined;
  std::tuple<double, double, double> last_gutter{0, 0, 0};
  for (std::vector<size_t>& band : bands) {
    std::tuple<double, double, double> gutter{0, 0, 0};
    if (band.size() >= 2) gutter = ColumnGutter(items, band, rtl, measure, true);
    if (std::get<0>(gutter) > 0 && !RunningTextBeside(items, band, std::get<1>(gutter), std::get<2>(gutter)))
      gutter = {0, 0, 0};
    const auto [score, g0, g1] = gutter;
    const auto [last_score, last_g0, last_g1] = last_gutter;
    if (!joined.empty() && top(band) - bottom(joined.back()) <= most_blank) {
      std::tuple<double, double, double> common{0, 0, 0};
      if (score > 0 && last_score > 0 && std::min(g1, last_g1) - std::max(g0, last_g0) >= 6) {
        common = {score, std::max(g0, last_g0), std::min(g1, last_g1)};
      } else if (score > 0 && last_score == 0 && HeadColumns(items, joined.back(), band, g0, g1)) {
        common = gutter;
      }
      if (std::get<0>(common) > 0) {
        joined.back().insert(joined.back().end(), band.begin(), band.end());
        last_gutter = common;
        continue;
      }
    }
    joined.push_back(std::move(band));
    last_gutter = gutter;
  }
  return joined;
}

// Where a block across the top of a region (a paper's title, authors and abstract) is set closer than a
// blank line over columns: the number of bands, cut at any gap of kMinBandGap or more, above the topmost
// cut below which the items have a gutter down them; 0 when there is none (among the first kMaxTopBands).
size_t TopBandsOverColumns(const std::vector<Item>& items, const std::vector<std::vector<size_t>>& bands,
                           bool rtl, double measure) {
  std::vector<size_t> below;  // the items of bands k and after, band by band
  for (size_t k = 1; k < bands.size(); ++k) below.insert(below.end(), bands[k].begin(), bands[k].end());
  for (size_t k = 1; k < bands.size() && k <= kMaxTopBands; ++k) {
    if (below.size() < 4) return 0;
    if (std::get<0>(ColumnGutter(items, below, rtl, measure, true)) > 0) return k;
    // The next band goes up: the items below it are those of the bands after it.
    below.erase(below.begin(), below.begin() + static_cast<std::ptrdiff_t>(bands[k].size()));
  }
  return 0;
}

// The lines at the foot of one side of a band (`side`, in any order) that go with the item spanning the
// gutter under the band, whose top is `span_top`: below every item of the other side, a blank line or
// more apart from their own side's items above them, at most kMaxSetApartLines, the last right above the
// spanning item (a table's title set flush left over a table as wide as the page, under a sidebar and a
// column of text). Taken out of `side`, top down; read after both sides.
std::vector<size_t> FootOverSpan(const std::vector<Item>& items, std::vector<size_t>& side,
                                 const std::vector<size_t>& other, double span_top) {
  if (side.size() < 2 || other.empty()) return {};
  std::sort(side.begin(), side.end(), [&](size_t a, size_t b) { return items[a].box.y0 < items[b].box.y0; });
  double other_bottom = -1e18;
  for (size_t id : other) other_bottom = std::max(other_bottom, items[id].box.y1);
  size_t k = side.size();
  while (k > 1 && side.size() - k < kMaxSetApartLines && items[side[k - 1]].kind == ItemKind::kLine &&
         items[side[k - 1]].box.y0 > other_bottom)
    --k;
  if (k == side.size()) return {};
  const Rect& first = items[side[k]].box;
  const Rect& last = items[side.back()].box;
  if (first.y0 - items[side[k - 1]].box.y1 < first.height() || span_top - last.y1 > 2 * last.height() ||
      items[side[k - 1]].box.y0 > other_bottom)
    return {};
  std::vector<size_t> foot(side.begin() + static_cast<std::ptrdiff_t>(k), side.end());
  side.resize(k);
  return foot;
}

// The lines at the head of one side of a band (`side`, in any order) that head both sides: the lines
// before the side's first blank line, at most kMaxSetApartLines, each at least kHeadLineRatio as tall as the
// median item of the rest, above every item of the other side (`other`) but up to kMaxSetApartLines lines
// over the head's top and set apart from that side's others (a page's header set over one side). A
// research report's title over its main text, beside a sidebar that starts lower, under the report's
// header. Those lines (the header's first) are taken out of both sides, top down; read before both.
std::vector<size_t> HeadOverSides(const std::vector<Item>& items, std::vector<size_t>& side,
                                  std::vector<size_t>& other) {
  if (side.size() < 2 || other.empty()) return {};
  auto by_top = [&](size_t a, size_t b) { return items[a].box.y0 < items[b].box.y0; };
  std::sort(side.begin(), side.end(), by_top);
  std::sort(other.begin(), other.end(), by_top);
  // The head: the lines before the first blank line down the side.
  size_t k = 1;
  while (k < side.size() && items[side[k]].box.y0 - items[side[k - 1]].box.y1 < items[side[k]].box.height())
    ++k;
  if (k == side.size() || k > kMaxSetApartLines) return {};
  // Over the other side, apart from it, only lines over the head's top (a page's header set over one side).
  const double head_top = items[side[0]].box.y0;
  size_t over = 0;
  while (over < other.size() && items[other[over]].box.y1 <= head_top) ++over;
  if (over == other.size() || over > kMaxSetApartLines ||
      (over > 0 &&
       items[other[over]].box.y0 - items[other[over - 1]].box.y1 < items[other[over]].box.height()))
    return {};
  for (size_t i = 0; i < k; ++i) {
    if (items[side[i]].kind != ItemKind::kLine || items[side[i]].box.y1 >= items[other[over]].box.y0)
      return {};
  }
  std::vector<double> rest;
  for (size_t i = k; i < side.size(); ++i) rest.push_back(items[side[i]].box.height());
  for (size_t i = over; i < other.size(); ++i) rest.push_back(items[other[i]].box.height());
  const double median = Median(std::move(rest));
  for (size_t i = 0; i < k; ++i) {
    if (items[side[i]].box.height() < kHeadLineRatio * median) return {};
  }
  std::vector<size_t> head(other.begin(), other.begin() + static_cast<std::ptrdiff_t>(over));
  head.insert(head.end(), side.begin(), side.begin() + static_cast<std::ptrdiff_t>(k));
  other.erase(other.begin(), other.begin() + static_cast<std::ptrdiff_t>(over));
  side.erase(side.begin(), side.begin() + static_cast<std::ptrdiff_t>(k));
  return head;
}

// The lines at the head of both sides of a band that are one block centred over them: the top lines of
// the two sides paired by baseline, row by row, while the two lines of a row have their outer edges as far
// in from the band's edges (within an em, and an em in at least: a paper's two authors and their
// affiliations centred as a pair under the title, the gap between them over the columns' gutter; the
// columns' own lines reach the band's edges; under the heads, kMinRows items or more on each side reach
// them). Read before both sides, each side's head as a flow of its own; taken out of the sides.
std::vector<std::vector<size_t>> HeadsCentredOverSides(const std::vector<Item>& items,
                                                       std::vector<size_t>& left,
                                                       std::vector<size_t>& right) {
  if (left.size() < 2 || right.size() < 2) return {};
  auto by_top = [&](size_t a, size_t b) { return items[a].box.y0 < items[b].box.y0; };
  std::sort(left.begin(), left.end(), by_top);
  std::sort(right.begin(), right.end(), by_top);
  Rect band;
  for (size_t id : left) band = band.Union(items[id].box);
  for (size_t id : right) band = band.Union(items[id].box);
  size_t rows = 0;
  while (rows + 1 < left.size() && rows + 1 < right.size()) {
    const Item& l = items[left[rows]];
    const Item& r = items[right[rows]];
    const double em = std::max(l.box.height(), r.box.height());
    const double in_left = l.box.x0 - band.x0, in_right = band.x1 - r.box.x1;
    if (l.kind != ItemKind::kLine || r.kind != ItemKind::kLine || VerticalOverlap(l.box, r.box) < 0.5 ||
        in_left < em || in_right < em || std::fabs(in_left - in_right) > em)
      break;
    ++rows;
  }
  if (rows == 0 || left.size() < rows + kMinRows || right.size() < rows + kMinRows) return {};
  // Both heads above both sides' rest, which are columns: they reach the band's edges.
  const auto head_end = static_cast<std::ptrdiff_t>(rows);
  const double head_bottom = std::max(items[left[rows - 1]].box.y1, items[right[rows - 1]].box.y1);
  if (head_bottom >= std::min(items[left[rows]].box.y0, items[right[rows]].box.y0)) return {};
  double rest_x0 = band.x1, rest_x1 = band.x0;
  for (size_t k = rows; k < left.size(); ++k) rest_x0 = std::min(rest_x0, items[left[k]].box.x0);
  for (size_t k = rows; k < right.size(); ++k) rest_x1 = std::max(rest_x1, items[right[k]].box.x1);
  const double em = items[left[0]].box.height();
  if (rest_x0 > band.x0 + em || rest_x1 < band.x1 - em) return {};
  std::vector<std::vector<size_t>> heads{{left.begin(), left.begin() + head_end},
                                         {right.begin(), right.begin() + head_end}};
  left.erase(left.begin(), left.begin() + head_end);
  right.erase(right.begin(), right.begin() + head_end);
  return heads;
}

// The lines of `lines` (top down) stacked into blocks of centred lines: each line goes under the block
// whose last line is right over it (less than a line apart, overlapping it across, at least
// kStackHeightRatio as tall as the taller of the two: a title set large is no author's block) and whose
// first line's centre is its own, within half a line; otherwise it starts a block.
std::vector<std::vector<size_t>> CentredStacks(const std::vector<Item>& items,
                                               const std::vector<size_t>& lines) {
  std::vector<std::vector<size_t>> stacks;
  for (size_t id : lines) {
    const Rect& b = items[id].box;
    std::vector<size_t>* home = nullptr;
    for (std::vector<size_t>& stack : stacks) {
      const Rect& last = items[stack.back()].box;
      const double gap = b.y0 - last.y1;
      const double shorter = std::min(b.height(), last.height());
      if (gap < shorter && gap > -0.5 * b.height() &&
          shorter >= kStackHeightRatio * std::max(b.height(), last.height()) && b.x0 < last.x1 &&
          b.x1 > last.x0 && std::fabs(b.cx() - items[stack.front()].box.cx()) <= 0.5 * b.height()) {
        home = &stack;
        break;
      }
    }
    if (home == nullptr) {
      stacks.push_back({id});
    } else {
      home->push_back(id);
    }
  }
  return stacks;
}

// The flows of `stacks` (CentredStacks, top down) read as a title's lines, then rows of blocks side by
// side, each row's first lines level: the first row of two blocks or more of two lines or more, the title
// the stacks over it. A block is narrower than half the region (`width`), two of its lines at least flush
// at neither edge with the most lines that are (of two, the two apart): a justified paragraph's lines are
// flush at both. The title's lines make one flow, then each block one, row by row in reading order across;
// none where the stacks are no such thing.
std::vector<std::vector<size_t>> TitleAndBlocks(const std::vector<Item>& items,
                                                std::vector<std::vector<size_t>> stacks, double width,
                                                bool rtl) {
  std::vector<std::vector<size_t>> rows;  // indices into stacks
  for (size_t s = 0; s < stacks.size(); ++s) {
    if (!rows.empty() && VerticalOverlap(items[stacks[rows.back().front()].front()].box,
                                         items[stacks[s].front()].box) >= 0.5) {
      rows.back().push_back(s);
    } else {
      rows.push_back({s});
    }
  }
  size_t first = 0;
  while (first < rows.size() && rows[first].size() < 2) ++first;
  if (first == rows.size()) return {};
  auto block = [&](const std::vector<size_t>& stack) {
    Rect box;
    for (size_t id : stack) box = box.Union(items[id].box);
    const size_t flush = stack.size() > 3 ? stack.size() - 2 : 1;
    return box.width() < 0.5 * width && FlushCount(items, stack, true) <= flush &&
           FlushCount(items, stack, false) <= flush;
  };
  for (size_t r = first; r < rows.size(); ++r) {
    for (size_t s : rows[r]) {
      if (!block(stacks[s]) || (r == first && stacks[s].size() < 2)) return {};
    }
  }
  std::vector<size_t> title;
  for (size_t r = 0; r < first; ++r) {
    for (size_t s : rows[r]) title.insert(title.end(), stacks[s].begin(), stacks[s].end());
  }
  std::sort(title.begin(), title.end(),
            [&](size_t a, size_t b) { return items[a].box.y0 < items[b].box.y0; });
  std::vector<std::vector<size_t>> flows;
  if (!title.empty()) flows.push_back(std::move(title));
  for (size_t r = first; r < rows.size(); ++r) {
    std::sort(rows[r].begin(), rows[r].end(), [&](size_t a, size_t b) {
      const double xa = items[stacks[a].front()].box.cx(), xb = items[stacks[b].front()].box.cx();
      return rtl ? xa > xb : xa < xb;
    });
    for (size_t s : rows[r]) flows.push_back(std::move(stacks[s]));
  }
  return flows;
}

// Blocks of centred lines side by side over a region's columns (IEEE's authors, each a name over its
// affiliation's lines, in a row or more under the title), a blank strip across the region under them at
// least kBlocksGapLines median lines tall (SplitAtGaps): at one of the first kMaxTopBands + 1 such strips,
// everything over it is lines (kMaxBlocksLines at most) that stack (CentredStacks) into a title's and
// blocks (TitleAndBlocks). Returns the flows to read first and takes their items out of `ids`; none where the
// region's top is no such thing.
std::vector<std::vector<size_t>> BlocksOverColumns(const std::vector<Item>& items, std::vector<size_t>& ids,
                                                   bool rtl) {
  std::vector<double> heights;
  Rect region;
  for (size_t id : ids) {
    heights.push_back(items[id].box.height());
    region = region.Union(items[id].box);
  }
  const std::vector<std::vector<size_t>> bands =
      SplitAtGaps(items, ids, kBlocksGapLines * Median(std::move(heights)));
  std::vector<size_t> above;  // the bands over strip k
  for (size_t k = 1; k < bands.size() && k <= kMaxTopBands + 1; ++k) {
    above.insert(above.end(), bands[k - 1].begin(), bands[k - 1].end());
    if (ids.size() - above.size() < 2 * kMinRows || above.size() > kMaxBlocksLines ||
        std::any_of(above.begin(), above.end(), [&](size_t id) { return items[id].kind != ItemKind::kLine; }))
      return {};
    std::vector<std::vector<size_t>> flows =
        TitleAndBlocks(items, CentredStacks(items, above), region.width(), rtl);
    if (flows.empty()) continue;
    ids.clear();
    for (size_t j = k; j < bands.size(); ++j) ids.insert(ids.end(), bands[j].begin(), bands[j].end());
    return flows;
  }
  return {};
}

// Whether `text` holds an e-mail address: "@" between a letter or digit and a domain with a dot in it.
bool HasEmailAddress(const std::string& text) {
  auto word = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0; };
  for (size_t at = text.find('@'); at != std::string::npos; at = text.find('@', at + 1)) {
    if (at == 0 || !word(text[at - 1])) continue;
    size_t end = at + 1;
    while (end < text.size() && (word(text[end]) || text[end] == '.' || text[end] == '-')) ++end;
    const std::string_view domain = std::string_view(text).substr(at + 1, end - at - 1);
    const size_t dot = domain.find('.');
    if (dot != std::string_view::npos && dot > 0 && dot + 1 < domain.size() && word(domain[dot + 1]))
      return true;
  }
  return false;
}

// Whether `text` is words set in capitals: four Latin letters or more, none in lower case, and most of
// its characters (an identifier such as "REDP-5110-00" is mostly figures).
bool InCapitals(const std::string& text) {
  size_t capitals = 0, others = 0;
  for (size_t i = 0; i < text.size();) {
    const char32_t c = DecodeUtf8(text, i);
    if (IsLowerLatin(c)) return false;
    const bool capital = (c >= 'A' && c <= 'Z') || (c >= 0xC0 && c <= 0xDE && c != 0xD7);
    capitals += capital;
    others += !capital && c != ' ';
  }
  return capitals >= 4 && capitals >= 2 * others;
}

// Reading order of `ids` (indices into items) appended to `out` as flows (each flow is read top-down);
// `measure` is the width of the page's items (depth 0 sets it).
void OrderItems(const std::vector<Item>& items, std::vector<size_t> ids, bool rtl, int depth, double measure,
                bool band, std::vector<std::vector<size_t>>& flows) {
  auto by_y = [&](size_t a, size_t b) {
    if (std::fabs(items[a].box.y0 - items[b].box.y0) > 2) return items[a].box.y0 < items[b].box.y0;
    return rtl ? items[a].box.x1 > items[b].box.x1 : items[a].box.x0 < items[b].box.x0;
  };
  if (ids.size() < 4 || depth > kMaxDepth) {
    std::sort(ids.begin(), ids.end(), by_y);
    if (!ids.empty()) flows.push_back(std::move(ids));
    return;
  }
  if (depth == 0) {
    Rect region;
    for (size_t id : ids) region = region.Union(items[id].box);
    measure = region.width();
  }
  // Gutters: x gaps in the coverage of narrow items; failing that, a whitespace strip that at most a tenth
  // of the items cross (a narrow side column beside a column of wide lines, under a title).
  auto [best_score, gx0, gx1] = ColumnGutter(items, ids, rtl, measure, band);
  if (best_score == 0) {
    // No gutter down the whole region (an author centred over the columns' gutter crosses it): bands set
    // apart by a blank line are read one after the other, each with its own columns, but for a blank
    // line across columns that go on under it (JoinBandsOfOneGutter).
    std::vector<std::vector<size_t>> bands = SplitAtBlankLines(items, ids);
    if (std::vector<std::vector<size_t>> joined = JoinBandsOfOneGutter(items, bands, rtl, measure);
        joined.size() > 1)
      bands = std::move(joined);
    if (bands.size() == 1) {
      // A block across the top set close over columns: read it, then the columns.
      std::vector<std::vector<size_t>> thin = SplitAtGaps(items, ids, kMinBandGap);
      if (const size_t top = TopBandsOverColumns(items, thin, rtl, measure); top > 0) {
        std::vector<size_t> above, below;
        for (size_t k = 0; k < thin.size(); ++k) {
          std::vector<size_t>& part = k < top ? above : below;
          part.insert(part.end(), thin[k].begin(), thin[k].end());
        }
        OrderItems(items, std::move(above), rtl, depth + 1, measure, true, flows);
        OrderItems(items, std::move(below), rtl, depth + 1, measure, true, flows);
        return;
      }
      std::sort(bands[0].begin(), bands[0].end(), by_y);
      flows.push_back(std::move(bands[0]));
      return;
    }
    for (std::vector<size_t>& band : bands)
      OrderItems(items, std::move(band), rtl, depth + 1, measure, true, flows);
    return;
  }
  // Blocks side by side over the columns (a paper's authors) are read first, block by block.
  if (std::vector<std::vector<size_t>> top = BlocksOverColumns(items, ids, rtl); !top.empty()) {
    for (std::vector<size_t>& flow : top) flows.push_back(std::move(flow));
    OrderItems(items, std::move(ids), rtl, depth + 1, measure, band, flows);
    return;
  }
  // Items crossing the gutter cut the region into bands.
  std::vector<size_t> spanning, sides;
  for (size_t id : ids) {
    const Rect& b = items[id].box;
    if (b.x0 < gx0 - 1 && b.x1 > gx1 + 1) {
      spanning.push_back(id);
    } else {
      sides.push_back(id);
    }
  }
  std::sort(spanning.begin(), spanning.end(), by_y);
  size_t next_side = 0;
  std::sort(sides.begin(), sides.end(),
            [&](size_t a, size_t b) { return items[a].box.cy() < items[b].box.cy(); });
  // Structured bindings are not captured by lambdas before C++20 in every compiler (Debian's clang 14, the
  // fuzz preset's).
  const double gutter_middle = (gx0 + gx1) / 2;
  auto emit_band = [&](double y_limit, double span_top) {
    std::vector<size_t> left, right;
    while (next_side < sides.size() && items[sides[next_side]].box.cy() < y_limit) {
      size_t id = sides[next_side++];
      (items[id].box.cx() < gutter_middle ? left : right).push_back(id);
    }
    if (rtl) std::swap(left, right);
    std::vector<size_t> head = HeadOverSides(items, left, right);
    if (head.empty()) head = HeadOverSides(items, right, left);
    if (!head.empty()) flows.push_back(std::move(head));
    for (std::vector<size_t>& centred : HeadsCentredOverSides(items, left, right))
      flows.push_back(std::move(centred));
    std::vector<size_t> foot = FootOverSpan(items, left, right, span_top);
    if (foot.empty()) foot = FootOverSpan(items, right, left, span_top);
    OrderItems(items, std::move(left), rtl, depth + 1, measure, false, flows);
    OrderItems(items, std::move(right), rtl, depth + 1, measure, false, flows);
    if (!foot.empty()) flows.push_back(std::move(foot));
  };
  // Consecutive spanning items form one flow (a paragraph across the gutter keeps its lines together).
  std::vector<size_t> run;
  for (size_t id : spanning) {
    if (next_side < sides.size() && items[sides[next_side]].box.cy() < items[id].box.cy()) {
      if (!run.empty()) flows.push_back(std::move(run));
      run.clear();
      emit_band(items[id].box.cy(), items[id].box.y0);
    }
    run.push_back(id);
  }
  if (!run.empty()) flows.push_back(std::move(run));
  emit_band(1e18, 1e18);
}

// Whether `other` is the line right above or below `line` in its paragraph: set as large, over most of the
// narrower one's width, less than a line's height apart.
bool InParagraphWith(const TextLine& line, const TextLine& other) {
  if (&other == &line || std::fabs(other.font_size - line.font_size) > 0.5) return false;
  const double gap = std::max(other.box.y0 - line.box.y1, line.box.y0 - other.box.y1);
  const double overlap = std::min(other.box.x1, line.box.x1) - std::max(other.box.x0, line.box.x0);
  return gap > -0.3 * line.box.height() && gap < 0.5 * line.box.height() &&
         overlap >= 0.5 * std::min(other.box.width(), line.box.width());
}

// For each of the page's lines, whether it is a footer beside a page number: a line of the page-number
// band on a page number's baseline, apart from it (a section number sits next to its heading), unless a
// line of its paragraph goes on right above or below it (a reference at the top of the right column,
// level with a chart's tick values in the left one, which pass for page numbers).
std::vector<bool> FootersBesidePageNumbers(const PageContent& page) {
  const size_t n = page.lines.size();
  std::vector<bool> number(n);
  for (size_t i = 0; i < n; ++i) number[i] = IsPageNumber(page.lines[i], page);
  std::vector<bool> beside(n, false);
  for (size_t i = 0; i < n; ++i) {
    const TextLine& line = page.lines[i];
    if (!InPageNumberBand(line, page.page)) continue;
    for (size_t k = 0; k < n && !beside[i]; ++k) {
      const Rect& box = page.lines[k].box;
      const double gap = std::max(box.x0 - line.box.x1, line.box.x0 - box.x1);
      beside[i] = number[k] && VerticalOverlap(box, line.box) >= 0.6 && gap >= 3 * line.font_size;
    }
  }
  std::vector<bool> out(n);
  for (size_t i = 0; i < n; ++i) {
    bool goes_on = false;
    for (size_t k = 0; beside[i] && k < n && !goes_on; ++k)
      goes_on = !beside[k] && !number[k] && InParagraphWith(page.lines[i], page.lines[k]);
    out[i] = beside[i] && !goes_on;
  }
  return out;
}

struct Paragraph {
  std::vector<size_t> lines;
  Rect box;
};

// A field's name and a colon at the start of `text`: one to three words, the first capitalised, and ": "
// ("Email: ...", "Target price: ..."), or up to eight Chinese characters and "：" or ":" ("邮箱：...").
bool StartsField(const std::string& text) {
  size_t i = 0, chinese = 0;
  while (i < text.size()) {
    const size_t at = i;
    const char32_t c = DecodeUtf8(text, i);
    if (c == 0xFF1A || c == ':') return chinese > 0 && chinese <= kMaxFieldNameChars && i < text.size();
    if (!IsIdeograph(c) || ++chinese > kMaxFieldNameChars) {
      i = at;
      break;
    }
  }
  if (chinese > 0 || text.empty() || text[0] < 'A' || text[0] > 'Z') return false;
  const size_t colon = text.find(": ");
  if (colon == std::string::npos || colon == 0) return false;
  const std::string_view name(text.data(), colon);
  return static_cast<size_t>(std::count(name.begin(), name.end(), ' ')) < kMaxFieldNameWords &&
         std::all_of(name.begin(), name.end(),
                     [](char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == ' '; });
}

// Chinese numbering at the start of a line, right before Chinese text: "1、", "1.《", "（1）", "(2)",
// "三、", "（一）". Such a line starts a block (an item, a section's heading), whatever the line before it.
bool StartsChineseNumbering(const std::string& text) {
  static const std::u32string_view kNumerals =
      U"0123456789\u4e00\u4e8c\u4e09\u56db\u4e94\u516d\u4e03\u516b\u4e5d\u5341";
  size_t i = 0;
  char32_t c = text.empty() ? 0 : DecodeUtf8(text, i);
  const bool paren = c == '(' || c == 0xFF08;
  if (paren && i < text.size()) c = DecodeUtf8(text, i);
  size_t digits = 0;
  bool arabic = true;
  while (kNumerals.find(c) != std::u32string_view::npos && digits < 3 && i < text.size()) {
    arabic = arabic && c < 0x80;
    ++digits;
    c = DecodeUtf8(text, i);
  }
  const bool closed = paren ? c == ')' || c == 0xFF09 : c == 0x3001 || (arabic && (c == '.' || c == 0xFF0E));
  if (digits == 0 || !closed || i >= text.size()) return false;
  return IsCjkChar(DecodeUtf8(text, i));
}

// Dots that lead the eye along a line to a page number, as in a table of contents.
bool HasLeader(std::string_view text) {
  return text.find(". . .") != std::string::npos || text.find("....") != std::string::npos ||
         text.find("\u2026\u2026") != std::string::npos;
}

// A table of contents entry: a leader, then a page number (arabic, roman, "3-12" or "A-1") at the end of
// the line.
bool EndsInLeaderAndPage(std::string_view text) {
  size_t end = text.find_last_not_of(' ');
  if (end == std::string_view::npos) return false;
  size_t start = text.find_last_of(" .", end);
  start = start == std::string_view::npos ? 0 : start + 1;
  const std::string_view page = text.substr(start, end + 1 - start);
  const bool arabic =
      !page.empty() && page.size() <= 5 && page.find_first_not_of("0123456789") == std::string_view::npos;
  const bool roman = RomanNumeralValue(page) > 0;
  // Chapter-page and appendix pages: "3-12", "A-1", "B-17".
  const size_t dash = page.find('-');
  const bool chapter_page =
      dash != std::string_view::npos && dash >= 1 && dash <= 2 && page.size() > dash + 1 &&
      page.size() <= dash + 5 &&
      page.substr(dash + 1).find_first_not_of("0123456789") == std::string_view::npos &&
      (page.substr(0, dash).find_first_not_of("0123456789") == std::string_view::npos ||
       page.substr(0, dash).find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZ") == std::string_view::npos);
  if (!arabic && !roman && !chapter_page) return false;
  const std::string_view before = text.substr(0, start);
  const size_t last = before.find_last_not_of(' ');
  return last != std::string_view::npos && (before[last] == '.' || before.ends_with("\u2026")) &&
         HasLeader(before);
}

// The widest gap between consecutive baselines of a paragraph's last lines (`para`, top to bottom, its
// last kLeadingLines; lines on one baseline, a label and its text, count once); -1e18 for one baseline.
double WidestLineGap(const std::vector<size_t>& para, const std::vector<TextLine>& lines) {
  constexpr size_t kLeadingLines = 8;
  double widest = -1e18;
  for (size_t k = para.size() > kLeadingLines ? para.size() - kLeadingLines : 1; k < para.size(); ++k) {
    const Rect above = BodyBox(lines[para[k - 1]]);
    const Rect below = BodyBox(lines[para[k]]);
    if (VerticalOverlap(above, below) < 0.5 && below.y0 > above.y0)
      widest = std::max(widest, below.y0 - above.y1);
  }
  return widest;
}

// A section's number and its title: "3. Results", "2.1 Memory accounting", "4.2.1. Pages" (one or two
// digits a level, up to four levels, then a capital letter), "IV. Results" (a Roman number, as IEEE
// papers number their sections).
bool StartsSectionNumber(const std::string& text) {
  // (I, V and X, below 40: "C. Darwin" and "M. Smith" are initials.)
  if (const size_t dot = text.find(". ");
      dot != std::string::npos && dot + 2 < text.size() && text.find_first_not_of("IVX") == dot) {
    const int value = RomanNumeralValue(std::string_view(text).substr(0, dot));
    return value > 0 && value < 40 && text[dot + 2] >= 'A' && text[dot + 2] <= 'Z';
  }
  size_t i = 0;
  for (int level = 0; level < 4; ++level) {
    const size_t digits = text.find_first_not_of("0123456789", i);
    if (digits == std::string::npos || digits - i > 2) return false;
    if (digits == i) {
      if (level == 0) return false;
      break;  // "3. Results": the number ends in a dot
    }
    i = digits;
    if (text[i] != '.') break;
    ++i;
  }
  return i + 1 < text.size() && text[i] == ' ' && text[i + 1] >= 'A' && text[i + 1] <= 'Z';
}

// A title that turns out not to be one: a list item again when it starts with a list marker, else text.
void DemoteTitle(Block& b) {
  bool numbered = false;
  size_t marker = ListMarkerLength(b.content, &numbered);
  b.title_level = 0;
  if (marker == 0) {
    b.type = BlockType::kText;
    return;
  }
  b.type = BlockType::kList;
  b.content =
      (numbered ? b.content.substr(0, marker - 1) + " " : std::string("- ")) + b.content.substr(marker);
}

Rect Mirrored(const Rect& r, const Rect& page) {
  const double m = page.x0 + page.x1;
  return {m - r.x1, r.y0, m - r.x0, r.y1};
}

// Where a table without rules reads across a gutter between the page's columns (NaN where it does not):
// inside an x range that none of its lines covers, a strip that no other line of the page crosses near
// the table, with running text (lines of kMinProseLineEm ems or more, the table's own too) on both sides
// of it there. Such a "table" is two columns' short lines paired on their baselines (a chart's labels
// beside a table of the other column; a chart's tick values beside the last lines of the other column's
// paragraph). The result is the strip's middle.
double ColumnGutterIn(const RuledTable& t, const std::vector<TextLine>& lines) {
  constexpr double kNone = std::numeric_limits<double>::quiet_NaN();
  if (t.line_indices.empty()) return kNone;
  std::vector<std::pair<double, double>> spans;
  std::vector<bool> in_table(lines.size(), false);
  double size = 1;
  for (size_t li : t.line_indices) {
    spans.emplace_back(lines[li].box.x0, lines[li].box.x1);
    in_table[li] = true;
    size = std::max(size, lines[li].font_size);
  }
  const double y0 = t.box.y0 - kColumnReachLines * size, y1 = t.box.y1 + kColumnReachLines * size;
  std::vector<const TextLine*> near;  // the page's other lines near the table
  for (size_t i = 0; i < lines.size(); ++i) {
    if (!in_table[i] && lines[i].box.y1 >= y0 && lines[i].box.y0 <= y1) near.push_back(&lines[i]);
  }
  auto prose = [](const TextLine& l) {
    return l.box.width() >= kMinProseLineEm * std::max(1.0, l.font_size);
  };
  // A clear strip [c, d]: running text left of it and right of it.
  std::vector<const TextLine*> around = near;
  for (size_t li : t.line_indices) around.push_back(&lines[li]);
  auto gutter = [&](double c, double d) {
    bool left = false, right = false;
    for (const TextLine* l : around) {
      left = left || (prose(*l) && l->box.x1 <= c);
      right = right || (prose(*l) && l->box.x0 >= d);
    }
    return left && right;
  };
  std::sort(spans.begin(), spans.end());
  double covered = spans.front().second;
  for (const auto& [x0, x1] : spans) {
    if (x0 > covered) {  // a gap of the table: the strips in it that nothing near the table crosses
      std::vector<std::pair<double, double>> cross;
      for (const TextLine* l : near) {
        if (l->box.x1 > covered && l->box.x0 < x0) cross.emplace_back(l->box.x0, l->box.x1);
      }
      std::sort(cross.begin(), cross.end());
      double c = covered;
      for (const auto& [cx0, cx1] : cross) {
        if (cx0 > c && gutter(c, cx0)) return (c + cx0) / 2;
        c = std::max(c, cx1);
      }
      if (x0 > c && gutter(c, x0)) return (c + x0) / 2;
    }
    covered = std::max(covered, x1);
  }
  return kNone;
}

// Whether a line is a vector chart's: one of its labels (IsFigureLabel), or a row of its tick values under
// or over it (within the chart's width give or take an em, at most three ems from it).
bool ChartsLine(const TextLine& line, const Rect& chart) {
  if (IsFigureLabel(line, chart)) return true;
  const double em = std::max(1.0, line.font_size);
  const Rect& b = line.box;
  return b.x0 >= chart.x0 - em && b.x1 <= chart.x1 + em && b.y0 <= chart.y1 + 3 * em &&
         b.y1 >= chart.y0 - 3 * em;
}

// Where a table without rules reads across the edge of a vector chart (NaN where it does not): its lines
// on one side are all the chart's (ChartsLine: inside it, its tick values and axis titles beside it) and
// those on the other side none, past the chart's edge, the two sides apart in x. Such a "table" is a chart's
// tick values paired on their baselines with the rows of a table beside the chart. The result is the
// middle of the space between the sides; `chart_left` says on which side the chart's labels are.
double ChartEdgeIn(const RuledTable& t, const std::vector<TextLine>& lines, const std::vector<Rect>& charts,
                   bool* chart_left) {
  constexpr double kNone = std::numeric_limits<double>::quiet_NaN();
  for (const Rect& chart : charts) {
    double label_x0 = std::numeric_limits<double>::max(), label_x1 = std::numeric_limits<double>::lowest();
    double other_x0 = label_x0, other_x1 = label_x1;
    for (size_t li : t.line_indices) {
      const Rect& b = lines[li].box;
      const bool label = ChartsLine(lines[li], chart);
      double& x0 = label ? label_x0 : other_x0;
      double& x1 = label ? label_x1 : other_x1;
      x0 = std::min(x0, b.x0);
      x1 = std::max(x1, b.x1);
    }
    if (label_x1 < label_x0 || other_x1 < other_x0) continue;  // one side is empty
    if (label_x1 < other_x0 && other_x0 >= chart.x1) {
      *chart_left = true;
      return (label_x1 + other_x0) / 2;
    }
    if (other_x1 < label_x0 && other_x1 <= chart.x0) {
      *chart_left = false;
      return (other_x1 + label_x0) / 2;
    }
  }
  return kNone;
}

// FindAlignedTables, where a table found across a gutter between the page's columns (ColumnGutterIn) is
// looked for again in the lines on each side of the gutter alone, and one found across the edge of a
// vector chart (`charts`, ChartEdgeIn) in the lines off the chart alone (the chart's labels are its own).
std::vector<RuledTable> FindAlignedTablesInColumns(const std::vector<TextLine>& lines,
                                                   const std::vector<bool>& used, const Rect& page,
                                                   const std::vector<Rect>& charts) {
  std::vector<RuledTable> tables;
  for (RuledTable& t : FindAlignedTables(lines, used, page)) {
    bool chart_left = false;
    const double gutter = ColumnGutterIn(t, lines);
    const double edge = std::isnan(gutter) ? ChartEdgeIn(t, lines, charts, &chart_left) : gutter;
    if (std::isnan(edge)) {
      tables.push_back(std::move(t));
      continue;
    }
    for (bool left : {true, false}) {
      if (std::isnan(gutter) && left == chart_left) continue;
      std::vector<bool> side(lines.size(), true);
      for (size_t li : t.line_indices) {
        if ((lines[li].box.x1 <= edge) == left) side[li] = false;
      }
      for (RuledTable& u : FindAlignedTables(lines, side, page)) tables.push_back(std::move(u));
    }
  }
  return tables;
}

// The tables of a page that are no ruled grid: between rules (FindRuleBandTables), then aligned on
// whitespace (FindAlignedTables); their lines are marked in `consumed`. On a right-to-left page (most
// lines) they are read in a mirror of the page: a row starts at the right, where its label stands, and
// the column rules (the first column holds labels, a line that leaves it empty goes on the row above)
// hold as they are.
std::vector<RuledTable> FindUnruledTables(const std::vector<TextLine>& lines,
                                          const std::vector<RulingSegment>& rules,
                                          const std::vector<Rect>& images, const std::vector<Rect>& charts,
                                          const Rect& page, std::vector<bool>& consumed) {
  const size_t rtl =
      static_cast<size_t>(std::count_if(lines.begin(), lines.end(), [](const TextLine& l) { return l.rtl; }));
  const bool mirror = 2 * rtl > lines.size();
  std::vector<TextLine> mirrored_lines;
  std::vector<RulingSegment> mirrored_rules;
  std::vector<Rect> mirrored_images, mirrored_charts;
  if (mirror) {
    mirrored_lines = lines;
    for (TextLine& l : mirrored_lines) {
      l.box = Mirrored(l.box, page);
      for (TextChar& c : l.chars) c.box = Mirrored(c.box, page);
      // Left-to-right lines run leftwards in the mirror: they too are cut where their glyphs stand apart,
      // as right-to-left lines are (SplitAtColumnGaps).
      l.rtl = true;
    }
    for (RulingSegment r : rules) mirrored_rules.push_back({Mirrored(r.box, page), r.horizontal});
    for (const Rect& im : images) mirrored_images.push_back(Mirrored(im, page));
    for (const Rect& c : charts) mirrored_charts.push_back(Mirrored(c, page));
  }
  const std::vector<TextLine>& ls = mirror ? mirrored_lines : lines;
  std::vector<RuledTable> tables = FindRuleBandTables(mirror ? mirrored_rules : rules, ls, consumed,
                                                      mirror ? mirrored_images : images, page);
  for (const RuledTable& t : tables) {
    for (size_t li : t.line_indices) consumed[li] = true;
  }
  for (RuledTable& t : FindAlignedTablesInColumns(ls, consumed, page, mirror ? mirrored_charts : charts)) {
    for (size_t li : t.line_indices) consumed[li] = true;
    tables.push_back(std::move(t));
  }
  if (mirror) {
    for (RuledTable& t : tables) t.box = Mirrored(t.box, page);
  }
  return tables;
}

// A caption's label with its delimiter: "Table 3: ...", "Figure 2. ...", "Fig. 4.1: ...", "Figure 5 | ...";
// not "Table 3 shows ..." at the start of a line of running text.
bool StartsLabelledCaption(const std::string& text) {
  BlockType body;
  if (!StartsCaption(text, &body)) return false;
  const auto [number, number_end] = CaptionNumber(text);
  if (number.empty()) return false;
  if (number.ends_with(':') || number.ends_with('.')) return true;
  return number_end != std::string::npos &&
         (text.compare(number_end + 1, 1, "|") == 0 || text.compare(number_end + 1, 3, "\u2014") == 0 ||
          text.compare(number_end + 1, 1, ":") == 0);
}

// A caption that is its label alone ("Table 2", "TABLE IV.", "Figure 3:"), its text set apart from it.
bool IsCaptionLabelOnly(const std::string& text) {
  BlockType body;
  if (!StartsCaption(text, &body)) return false;
  const auto [number, number_end] = CaptionNumber(text);
  return !number.empty() &&
         (number_end == std::string::npos || text.find_first_not_of(" .:|", number_end) == std::string::npos);
}

// Whether lines[i] is the last line of a paragraph: a line of running text (longer than a label) right
// above it, starting where it starts, as close as a paragraph's lines are.
bool EndsParagraph(size_t i, const std::vector<TextLine>& lines) {
  const TextLine& l = lines[i];
  const double size = std::max(1.0, l.font_size);
  return std::any_of(lines.begin(), lines.end(), [&](const TextLine& above) {
    const double gap = l.box.y0 - above.box.y1;
    return &above != &l && above.text.size() > kMaxFigureLabelChars && gap > -0.3 * size &&
           gap < 0.8 * size && std::fabs(above.box.x0 - l.box.x0) < size &&
           std::fabs(above.font_size - l.font_size) < 0.5;
  });
}

// A caption takes the text right under it as its own when that text is set between it and its body (a
// table's unit line, "(in millions of dollars)", under its title), or when the caption is its label alone
// (a journal's "Table 2" in bold with the description on the next line in the body's face; IEEE's
// "TABLE II" over "RESULTS BY ..."): a text block of at most kMaxCaptionTextLines lines, starting within
// a line of it and under it.
void JoinCaptionText(std::vector<Block>& blocks, const Rect& page) {
  for (size_t k = 0; k + 1 < blocks.size(); ++k) {
    Block& cap = blocks[k];
    const Block& next = blocks[k + 1];
    if ((cap.type != BlockType::kTableCaption && cap.type != BlockType::kImageCaption) ||
        next.type != BlockType::kText) {
      continue;
    }
    const Rect a = FromPageFrame(cap.bbox, page);
    const Rect b = FromPageFrame(next.bbox, page);
    const double line = a.height();
    const double gap = b.y0 - a.y1;
    if (gap < -0.3 * line || gap > line || b.height() > kMaxCaptionTextLines * 1.5 * line ||
        std::min(a.x1, b.x1) <= std::max(a.x0, b.x0)) {
      continue;
    }
    const BlockType body = cap.type == BlockType::kTableCaption ? BlockType::kTable : BlockType::kImage;
    bool over_body = false;
    if (k + 2 < blocks.size() && blocks[k + 2].type == body) {
      const double below = FromPageFrame(blocks[k + 2].bbox, page).y0 - b.y1;
      over_body = below > -0.3 * line && below <= 2 * line;
    }
    if (!over_body && !IsCaptionLabelOnly(cap.content)) continue;
    cap.content += " " + next.content;
    cap.bbox = ToPageFrame(a.Union(b), page);
    blocks.erase(blocks.begin() + static_cast<long>(k + 1));
  }
}

// The lines of flows that may hold a table of their own: flows of short lines (a mean under
// kMaxCellChars characters of Latin text's width, a Chinese character two: cells and labels, not prose;
// mostly not code, whose listings stay listings) grouped with those beside them (their vertical extents
// overlap: a table's label column and its value columns read as flows of their own). Only where the page
// has several flows, and groups of at least kMinRows lines.
std::vector<std::vector<size_t>> ShortFlowGroups(const std::vector<Item>& items,
                                                 const std::vector<TextLine>& lines,
                                                 const std::vector<std::vector<size_t>>& flows) {
  std::vector<std::vector<size_t>> groups;
  if (flows.size() < 2) return groups;
  struct Flow {
    double y0, y1;
    std::vector<size_t> lines;
  };
  std::vector<Flow> short_flows;
  for (const std::vector<size_t>& flow : flows) {
    Flow f{1e18, -1e18, {}};
    size_t chars = 0, code = 0;
    for (size_t id : flow) {
      if (items[id].kind != ItemKind::kLine) continue;
      const TextLine& l = lines[items[id].index];
      f.lines.push_back(items[id].index);
      f.y0 = std::min(f.y0, l.box.y0);
      f.y1 = std::max(f.y1, l.box.y1);
      chars += DisplayWidth(l.text);
      code += l.monospace;
    }
    if (!f.lines.empty() && chars <= kMaxCellChars * f.lines.size() && 2 * code < f.lines.size()) {
      short_flows.push_back(std::move(f));
    }
  }
  std::sort(short_flows.begin(), short_flows.end(), [](const Flow& a, const Flow& b) { return a.y0 < b.y0; });
  double y1 = -1e18;
  for (const Flow& f : short_flows) {
    if (groups.empty() || f.y0 >= y1) groups.emplace_back();
    groups.back().insert(groups.back().end(), f.lines.begin(), f.lines.end());
    y1 = std::max(y1, f.y1);
  }
  std::erase_if(groups, [](const std::vector<size_t>& g) { return g.size() < kMinRows; });
  return groups;
}

// The kind of float (kImage or kTable) a caption of either ("图表 3", Chinese reports' label for charts and
// tables alike) at blocks[k] captions: the first after it in reading order, else the last before it.
BlockType NearestFloat(const std::vector<Block>& blocks, size_t k) {
  auto is_float = [](const Block& b) { return b.type == BlockType::kImage || b.type == BlockType::kTable; };
  auto after = std::find_if(blocks.begin() + static_cast<std::ptrdiff_t>(k), blocks.end(), is_float);
  if (after != blocks.end()) return after->type;
  auto before =
      std::find_if(blocks.rbegin() + static_cast<std::ptrdiff_t>(blocks.size() - k), blocks.rend(), is_float);
  return before != blocks.rend() ? before->type : BlockType::kImage;
}

// Notes under a table or an image: a text block starting with a note's label, next after the float in
// reading order (its captions and other notes between them), set under it and across its width, is the
// float's footnote ("Source: ...", "资料来源：Wind" under a chart).
void MarkFloatNotes(std::vector<Block>& blocks) {
  auto beside_float = [](BlockType t) {
    return t == BlockType::kImageCaption || t == BlockType::kTableCaption || t == BlockType::kImageFootnote ||
           t == BlockType::kTableFootnote;
  };
  for (size_t k = 1; k < blocks.size(); ++k) {
    Block& note = blocks[k];
    if (note.type != BlockType::kText || !StartsNoteLabel(note.content)) continue;
    size_t f = k;
    while (f > 0 && beside_float(blocks[f - 1].type)) --f;
    if (f == 0) continue;
    const Block& body = blocks[f - 1];
    if ((body.type != BlockType::kTable && body.type != BlockType::kImage) ||
        note.bbox.y0 < body.bbox.y1 - 5 || note.bbox.x0 >= body.bbox.x1 || note.bbox.x1 <= body.bbox.x0)
      continue;
    note.type = body.type == BlockType::kTable ? BlockType::kTableFootnote : BlockType::kImageFootnote;
  }
}

// Whether the text after a label's number reads on as a sentence ("Table 3 shows ...", "Figure 2 and 3
// ...", Korean "표 3에서 ..." with a particle on the number): running text that names a float, no caption.
// A panel letter ("Fig. 1 a The setup, b ...") and "Table 2 continued" do not read on.
bool ReadsOnAfterNumber(const std::string& text) {
  const size_t label = text.compare(0, 5, "Fig. ") == 0 ? 4 : text.find(' ');
  if (label == std::string::npos) return false;
  const size_t number = text.find_first_not_of(' ', label);
  if (number == std::string::npos || text[number] < '0' || text[number] > '9') return false;
  size_t i = text.find_first_not_of("0123456789.", number);
  if (i == std::string::npos) return false;
  if (text[i] != ' ') return IsHangul(DecodeUtf8(text, i));
  const size_t word = i + 1;
  const size_t word_end = std::min(text.size(), text.find(' ', word));
  i = word;
  return word < text.size() && IsLowerLatin(DecodeUtf8(text, i)) && word_end - word >= 2 &&
         text.compare(word, 4, "cont") != 0;
}

}  // namespace

std::pair<std::string_view, size_t> CaptionNumber(const std::string& text) {
  const size_t label = text.find(' ');  // "Fig. 2." too: the label's own dot is no delimiter
  if (label == std::string::npos) return {{}, label};
  const size_t end = text.find(' ', label + 1);
  return {std::string_view(text).substr(label + 1, end - label - 1), end};
}

bool StartsCaption(const std::string& text, BlockType* body) {
  // (Chinese and Japanese: "图 3", "圖3", "図 3", "表 2", with a space or none, "图表 3" and "図表 3" for
  // either kind (see NearestFloat); Korean: "그림 3", "표 2", bracketed or not, "[표 1]".)
  static const char* kImage[] = {"\u56fe\u8868 ", "\u56fe\u8868",   "\u56f3\u8868 ", "\u56f3\u8868",
                                 "Figure ",       "Fig. ",          "Fig ",          "FIGURE ",
                                 "Chart ",        "Picture ",       "\u56fe ",       "\u56fe",
                                 "\u5716 ",       "\u5716",         "\u56f3 ",       "\u56f3",
                                 "\uadf8\ub9bc ", "[\uadf8\ub9bc ", "<\uadf8\ub9bc "};
  static const char* kTable[] = {"Table ", "TABLE ",  "Tab. ",    "\u8868 ",
                                 "\u8868", "\ud45c ", "[\ud45c ", "<\ud45c "};
  auto starts_numbered = [&](const char* p) {
    std::string_view prefix(p);
    if (text.compare(0, prefix.size(), prefix) != 0 || text.size() <= prefix.size()) return false;
    char c = text[prefix.size()];
    // A roman number ("TABLE IV", IEEE's style) ends at the text's end, a space or a delimiter.
    const size_t roman_end = std::min(text.find_first_of(" .:", prefix.size()), text.size());
    const int roman_value =
        c >= 'A' && c <= 'Z'
            ? RomanNumeralValue(std::string_view(text).substr(prefix.size(), roman_end - prefix.size()))
            : 0;
    const bool roman = roman_value > 0 && roman_value < 90;  // I, V, X and L: "TABLE C" is an appendix's
    return (c >= '0' && c <= '9') || roman ||
           (c >= 'A' && c <= 'Z' && text.size() > prefix.size() + 1 &&
            (text[prefix.size() + 1] == '.' || text[prefix.size() + 1] == ':'));
  };
  if (ReadsOnAfterNumber(text)) return false;
  for (const char* p : kImage) {
    if (starts_numbered(p)) {
      *body = BlockType::kImage;
      return true;
    }
  }
  for (const char* p : kTable) {
    if (starts_numbered(p)) {
      *body = BlockType::kTable;
      return true;
    }
  }
  return false;
}

bool StartsNoteLabel(const std::string& text) {
  size_t end = 0;
  while (end < text.size() && (std::isalpha(static_cast<unsigned char>(text[end])) || text[end] == ' '))
    ++end;
  if (end < text.size() && (text[end] == ':' || text[end] == '.') &&
      std::isupper(static_cast<unsigned char>(text[0]))) {
    std::string label = text.substr(0, end);
    std::transform(label.begin(), label.end(), label.begin(),
                   [](unsigned char c) { return std::tolower(c); });
    if (label.starts_with("data ")) label.erase(0, 5);
    if (label == "source" || label == "sources" || label == "note" || label == "notes") return true;
  }
  for (const char* label :
       {"\u8d44\u6599\u6765\u6e90", "\u6570\u636e\u6765\u6e90", "\u6765\u6e90", "\u6ce8", "\u5907\u6ce8"}) {
    const std::string_view l(label);
    if (text.compare(0, l.size(), l) == 0 &&
        (text.compare(l.size(), 3, "\uff1a") == 0 || text.compare(l.size(), 1, ":") == 0))
      return true;
  }
  return false;
}

size_t DisplayWidth(const std::string& text) {
  size_t width = 0;
  for (size_t i = 0; i < text.size();) {
    const char32_t c = DecodeUtf8(text, i);
    width += IsCjkChar(c) || IsHangul(c) ? 2 : 1;
  }
  return width;
}

char32_t DecodeUtf8(const std::string& s, size_t& i) {
  unsigned char c = static_cast<unsigned char>(s[i]);
  int n = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 0;
  if (n == 0 || i + static_cast<size_t>(n) > s.size()) {
    ++i;
    return 0xFFFD;
  }
  char32_t r = n == 1 ? c : n == 2 ? (c & 0x1F) : n == 3 ? (c & 0x0F) : (c & 0x07);
  for (int k = 1; k < n; ++k) r = (r << 6) | (static_cast<unsigned char>(s[i + k]) & 0x3F);
  i += static_cast<size_t>(n);
  return r;
}

char32_t LastRune(const std::string& s) {
  if (s.empty()) return 0;
  size_t i = s.size() - 1;
  while (i > 0 && (static_cast<unsigned char>(s[i]) & 0xC0) == 0x80) --i;
  return DecodeUtf8(s, i);
}

bool EndsSentence(const std::string& text, bool clause) {
  size_t end = text.size();
  char32_t c = 0;
  while (end > 0) {
    size_t start = end - 1;
    while (start > 0 && (static_cast<unsigned char>(text[start]) & 0xC0) == 0x80) --start;
    size_t at = start;
    c = DecodeUtf8(text, at);
    if (std::u32string_view(U")]\"'\u2019\u201d\u300d\u300f\uff09").find(c) == std::u32string_view::npos)
      break;
    end = start;
  }
  return std::u32string_view(U".:!?\u2026\u3002\uff01\uff1f\uff1a").find(c) != std::u32string_view::npos ||
         (clause && (c == ';' || c == 0xFF1B));
}

std::string StyleKey(const TextLine& line) {
  std::string key = line.font + "@" + std::to_string(std::lround(line.font_size * 2));
  if (line.bold) key += "/b";
  if (line.italic) key += "/i";
  return key;
}

DocumentStyle AnalyzeStyle(const std::vector<PageContent>& pages) {
  DocumentStyle style;
  // Characters by size (half points) and by family, of all lines and of lines of running text only.
  std::map<int, size_t> sizes, prose_sizes;
  std::map<std::string, size_t> fonts, prose_fonts;
  size_t prose_lines = 0;
  style.running_keys = FindRunningKeys(pages);
  // Font sizes of the text that stays (running headers and page numbers do not set the body size). Long
  // lines are the body's; short ones (a table's cells, a chart's labels) set it only where there are
  // fewer than kMinProseLines long ones (a page mostly of a table in small type has its text set larger;
  // a statement's one note under its table does not set the body).
  for (const PageContent& page : pages) {
    for (const TextLine& line : page.lines) {
      if (IsRunningLine(line, page, style.running_keys)) continue;
      const int half_points = static_cast<int>(std::lround(line.font_size * 2));
      sizes[half_points] += line.text.size();
      fonts[line.font] += line.text.size();
      if (line.box.width() < kMinProseLineEm * line.font_size) continue;
      prose_sizes[half_points] += line.text.size();
      prose_fonts[line.font] += line.text.size();
      ++prose_lines;
    }
  }
  const bool prose = prose_lines >= kMinProseLines;
  const std::map<int, size_t>& body_sizes = prose ? prose_sizes : sizes;
  const std::map<std::string, size_t>& body_fonts = prose ? prose_fonts : fonts;
  // Styles whose lines mostly stand in stacks: a line with a line of the same style right below it (x
  // ranges overlapping, gap under one line height). Lines sorted by top; each looks only a little down.
  std::map<std::string, std::pair<int, int>> stacked;  // key -> (lines in a stack, lines)
  for (const PageContent& page : pages) {
    size_t n = page.lines.size();
    std::vector<std::string> keys(n);
    std::vector<size_t> order(n);
    for (size_t i = 0; i < n; ++i) {
      keys[i] = StyleKey(page.lines[i]);
      order[i] = i;
    }
    std::sort(order.begin(), order.end(),
              [&](size_t a, size_t b) { return page.lines[a].box.y0 < page.lines[b].box.y0; });
    std::vector<bool> in_stack(n, false);
    for (size_t oi = 0; oi < n; ++oi) {
      size_t i = order[oi];
      const Rect& a = page.lines[i].box;
      double h = std::max(1.0, page.lines[i].font_size);
      for (size_t oj = oi + 1; oj < n && page.lines[order[oj]].box.y0 < a.y1 + 0.9 * h; ++oj) {
        size_t j = order[oj];
        const Rect& b = page.lines[j].box;
        if (keys[j] != keys[i] || b.y0 <= a.y0 + 0.5 * h || b.x0 >= a.x1 || b.x1 <= a.x0) continue;
        in_stack[i] = in_stack[j] = true;
      }
    }
    for (size_t i = 0; i < n; ++i) {
      auto& [in, all] = stacked[keys[i]];
      if (in_stack[i]) ++in;
      ++all;
    }
  }
  std::map<std::string, std::pair<int, int>> advances;  // family -> (uniform lines, varied lines)
  for (const PageContent& page : pages) {
    for (const TextLine& line : page.lines) {
      if (line.font.empty()) continue;
      Advances a = MeasureAdvances(line.chars);
      if (a == Advances::kUniform) ++advances[line.font].first;
      if (a == Advances::kVaried) ++advances[line.font].second;
    }
  }
  for (const auto& [font, counts] : advances) {
    if (counts.first >= 2 && counts.first >= 4 * counts.second) style.monospace_fonts.insert(font);
  }
  for (const auto& [key, counts] : stacked) {
    if (counts.first >= 2 && counts.first * 2 >= counts.second) style.stacked_styles.insert(key);
  }
  size_t most = 0;
  for (const auto& [name, n] : body_fonts) {
    if (n > most) {
      most = n;
      style.body_font = name;
    }
  }
  size_t best = 0;
  for (auto [s, n] : body_sizes) {
    if (n > best) {
      best = n;
      style.body_size = s / 2.0;
    }
  }
  for (auto it = sizes.rbegin(); it != sizes.rend(); ++it) {
    double s = it->first / 2.0;
    if (s < style.body_size * kHeadingRatio || style.heading_sizes.size() >= 3) continue;
    if (!style.heading_sizes.empty() && style.heading_sizes.back() - s < 0.9) continue;
    style.heading_sizes.push_back(s);
  }
  return style;
}

void JoinLine(std::string& paragraph, const std::string& next_line) {
  if (next_line.empty()) return;
  if (paragraph.empty()) {
    paragraph = next_line;
    return;
  }
  size_t i = 0;
  char32_t first = DecodeUtf8(next_line, i);
  char32_t last = LastRune(paragraph);
  if (last == '-' && paragraph.size() >= 2 && IsLowerLatin(first)) {
    std::string head = paragraph.substr(0, paragraph.size() - 1);
    if (IsLetter(LastRune(head))) {
      paragraph = head + next_line;
      return;
    }
  }
  if (IsCjkChar(last) && IsCjkChar(first)) {
    paragraph += next_line;
    return;
  }
  paragraph.push_back(' ');
  paragraph += next_line;
}

bool IsBareLabel(const std::string& text) {
  bool numbered = false;
  if (ListMarkerLength(text + " x", &numbered) == text.size() + 1) return true;
  return text.size() >= 3 && text.front() == '[' && text.back() == ']' &&
         text.find_first_not_of("0123456789", 1) == text.size() - 1;
}

int ReferenceLabelNumber(const std::string& text) {
  if (text.size() < 4 || text[0] != '[') return -1;
  size_t i = 1;
  int number = 0;
  while (i < text.size() && i <= 4 && text[i] >= '0' && text[i] <= '9')
    number = 10 * number + (text[i++] - '0');
  if (i == 1 || i + 1 >= text.size() || text[i] != ']' || text[i + 1] != ' ') return -1;
  return number;
}

size_t ListMarkerLength(const std::string& text, bool* numbered) {
  // (LaTeX's bullets in a math font are "∙" as often as "•"; "‣" and "⁃" are Unicode's triangle and
  // hyphen bullets.)
  static const char* kBullets[] = {"•", "●", "▪", "◦", "○", "■", "□", "➢", "►", "▶",
                                   "✓", "",  "-", "–", "*", "·", "∙", "‣", "⁃"};
  // A line of choices ("□ 适用 √ 不适用", "☐ Yes ☐ No") is no list item: its box (a shape, not a dash,
  // which items hold: "- Days 3 - 5") comes again, or a check mark.
  auto choices = [&](size_t n) {
    const std::string mark = text.substr(0, n);
    if (mark != "-" && mark != "\u2013" && mark != "*" && mark != "\u00b7" &&
        text.find(mark, n) != std::string::npos)
      return true;
    for (const char* check : {"\u221a", "\u2713", "\u2714", "\u2611", "\u2612"}) {
      if (text.find(check, n) != std::string::npos) return true;
    }
    return false;
  };
  // A shape set right before Chinese text ("◆公司...", no space): a bullet too, the marker that shape alone.
  auto before_chinese = [&](size_t n) {
    size_t at = n;
    return n >= 2 && n < text.size() && IsIdeograph(DecodeUtf8(text, at));
  };
  for (const char* b : kBullets) {
    size_t n = std::string_view(b).size();
    if (text.compare(0, n, b) != 0 || choices(n)) continue;
    if (text.size() > n + 1 && text[n] == ' ') {
      *numbered = false;
      return n + 1;
    }
    if (before_chinese(n)) {
      *numbered = false;
      return n;
    }
  }
  // A symbol font's glyph: a shape, a dingbat, a ballot box, or what a symbol font's code maps to
  // without a Unicode meaning (a private-use character, a C1 control: a check box drawn in Wingdings).
  size_t n = 0;
  const char32_t first = text.empty() ? 0 : DecodeUtf8(text, n);
  const bool symbol = (first >= 0x25A0 && first <= 0x25FF) || (first >= 0x2610 && first <= 0x2612) ||
                      (first >= 0x2700 && first <= 0x27BF) || (first >= 0xE000 && first <= 0xF8FF) ||
                      (first >= 0x80 && first <= 0x9F);
  if (symbol && text.size() > n + 1 && text[n] == ' ' && !choices(n)) {
    *numbered = false;
    return n + 1;
  }
  if (symbol && before_chinese(n) && !choices(n)) {
    *numbered = false;
    return n;
  }
  // 1. 1) (1) a. a) i.
  size_t i = 0;
  bool paren = false;
  if (i < text.size() && text[i] == '(') {
    paren = true;
    ++i;
  }
  size_t digits = 0;
  while (i < text.size() && text[i] >= '0' && text[i] <= '9' && digits < 3) {
    ++i;
    ++digits;
  }
  if (digits == 0 && i < text.size() && text[i] >= 'a' && text[i] <= 'z') {
    ++i;
    digits = 1;
  }
  if (digits == 0 || i >= text.size()) return 0;
  bool closed = paren ? text[i] == ')' : (text[i] == '.' || text[i] == ')');
  if (!closed || i + 2 > text.size() || text[i + 1] != ' ') return 0;
  // "1.5 Title" is a section number, not a list ("1. " needs the space right after the dot).
  *numbered = true;
  return i + 2;
}

bool CutTrailingLeader(std::string& text) {
  size_t end = text.size(), dots = 0;
  while (end > 0) {
    if (text[end - 1] == '.') {
      ++dots;
    } else if (end >= 3 && text.compare(end - 3, 3, "\u2026") == 0) {
      dots += 3;
      end -= 2;
    } else if (text[end - 1] != ' ') {
      break;
    }
    --end;
  }
  if (dots < 3 || end == 0 || !HasLeader(std::string_view(text).substr(end))) return false;
  text.erase(end);
  return true;
}

std::vector<Block> LayoutPage(const PageContent& page, const DocumentStyle& style, FlowEnds* ends) {
  const Rect& pr = page.page;
  // 1. Running headers and footers: repeated lines and page numbers in the margin bands, and the lines of
  // a band that share a page number's baseline well apart from it (a footer "12      Annual Report" on a
  // single page); a page's own header; line numbers in a margin.
  const std::vector<bool> footer = FootersBesidePageNumbers(page);
  const std::vector<bool> line_numbers = FindLineNumbers(page, style.monospace_fonts);
  const std::vector<bool> header = FindPageHeader(page, style.body_size);
  std::vector<TextLine> lines;
  for (size_t i = 0; i < page.lines.size(); ++i) {
    const TextLine& line = page.lines[i];
    if (line_numbers[i] || header[i] || IsRunningLine(line, page, style.running_keys)) continue;
    if (footer[i]) continue;
    lines.push_back(line);
    if (style.monospace_fonts.count(line.font) > 0) lines.back().monospace = true;
  }
  // Lines with a line of the same style on their baseline (and apart from it): cells of a header row or
  // form labels, not headings by weight or font.
  std::vector<bool> row_peer(lines.size(), false);
  // Row peers centred over a line no larger right under them (their own x centre within half an em, left
  // edges half an em apart or more; that line's top may reach half an em into theirs, as a font's boxes
  // do): an author block's names over their affiliations, not headings however large; so is a line in
  // such a name's style centred over its own line (an author alone on the next row).
  std::vector<bool> byline(lines.size(), false);
  {
    std::vector<size_t> order(lines.size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::sort(order.begin(), order.end(),
              [&](size_t a, size_t b) { return lines[a].box.y0 < lines[b].box.y0; });
    std::vector<std::string> keys;
    for (const TextLine& l : lines) keys.push_back(StyleKey(l));
    // Two headings level in two columns of a paper are no row: each heads running text (a line of
    // kMinProseLineEm or more, not code nor a contents entry, within two lines under it) that stays clear
    // of the other.
    auto heads_its_column = [&](size_t i, const Rect& other, const std::vector<size_t>& by_top) {
      const Rect& a = lines[i].box;
      const double em = std::max(1.0, lines[i].font_size);
      auto k = std::lower_bound(by_top.begin(), by_top.end(), a.y1 - 0.2 * em,
                                [&](size_t n, double y) { return lines[n].box.y0 < y; });
      for (; k != by_top.end() && lines[*k].box.y0 <= a.y1 + 2.5 * em; ++k) {
        const Rect& b = lines[*k].box;
        if (!lines[*k].monospace && !HasLeader(lines[*k].text) &&
            b.width() >= kMinProseLineEm * std::max(em, lines[*k].font_size) && b.x0 < a.x1 && b.x1 > a.x0 &&
            (b.x1 <= other.x0 || b.x0 >= other.x1))
          return true;
      }
      return false;
    };
    for (size_t oi = 0; oi < order.size(); ++oi) {
      size_t i = order[oi];
      for (size_t oj = oi + 1; oj < order.size() && lines[order[oj]].box.y0 < lines[i].box.y1; ++oj) {
        size_t j = order[oj];
        const Rect& a = lines[i].box;
        const Rect& b = lines[j].box;
        if (keys[i] != keys[j] || VerticalOverlap(a, b) < 0.6 || (b.x0 < a.x1 && b.x1 > a.x0)) continue;
        if (heads_its_column(i, b, order) && heads_its_column(j, a, order)) continue;
        row_peer[i] = row_peer[j] = true;
      }
    }
    auto centred_over_next = [&](size_t i) {
      const Rect& a = lines[i].box;
      const double em = std::max(1.0, lines[i].font_size);
      auto oj = std::lower_bound(order.begin(), order.end(), a.y1 - 0.5 * em,
                                 [&](size_t k, double y) { return lines[k].box.y0 < y; });
      for (; oj != order.end() && lines[*oj].box.y0 <= a.y1 + em; ++oj) {
        const Rect& b = lines[*oj].box;
        if (lines[*oj].font_size <= lines[i].font_size && std::fabs(b.cx() - a.cx()) <= 0.5 * em &&
            std::fabs(b.x0 - a.x0) >= 0.5 * em)
          return true;
      }
      return false;
    };
    std::set<std::string> name_styles;
    for (size_t i = 0; i < lines.size(); ++i) {
      byline[i] = row_peer[i] && centred_over_next(i);
      if (byline[i]) name_styles.insert(keys[i]);
    }
    // (An author alone on the row under the others', set in their names' style.)
    for (size_t i = 0; i < lines.size(); ++i) {
      byline[i] = byline[i] || (name_styles.count(keys[i]) > 0 && centred_over_next(i));
    }
  }
  // 2. Tables and images.
  std::vector<RulingSegment> rules = page.rules;
  for (const RulingSegment& edge : CellFillEdges(page.fills, page.rules, lines, pr)) rules.push_back(edge);
  std::vector<RuledTable> tables = FindRuledTables(rules, lines);
  std::vector<bool> consumed(lines.size(), false);
  for (const RuledTable& t : tables) {
    for (size_t li : t.line_indices) consumed[li] = true;
  }
  for (const RulingSegment& edge : ShadedRowEdges(page.fills, lines, pr)) rules.push_back(edge);
  // Vector charts beside the ruled tables: their tick values are no cells of a table beside them.
  std::vector<Rect> ruled_boxes;
  for (const RuledTable& t : tables) ruled_boxes.push_back(t.box);
  const std::vector<Rect> charts = FindVectorFigures(page, lines, ruled_boxes);
  // Display equations: their pieces are no cells of a table, nor short paragraphs.
  const std::vector<Rect> bars = FormulaBars(page.drawings);
  const std::vector<DisplayEquation> equations = FindDisplayEquations(lines, consumed, bars, charts);
  for (const DisplayEquation& e : equations) {
    for (size_t li : e.line_indices) consumed[li] = true;
  }
  // (And a fraction's pieces in a sentence join the sentence's line.)
  MergeInlinePieces(lines, consumed, bars);
  for (RuledTable& t : FindUnruledTables(lines, rules, page.images, charts, pr, consumed))
    tables.push_back(std::move(t));
  std::vector<Rect> images;
  for (const Rect& raw : page.images) {
    Rect r = raw.Intersect(pr);
    if (r.empty() || r.width() < 12 || r.height() < 12 || r.area() < 0.004 * pr.area()) continue;
    if (r.area() > 0.85 * pr.area() && !lines.empty()) continue;  // a page background
    bool merged = false;
    for (Rect& o : images) {
      if (!o.Intersect(r).empty()) {
        o = o.Union(r);
        merged = true;
        break;
      }
    }
    if (!merged) images.push_back(r);
  }
  // Vector figures (charts, diagrams) are images too; their short labels are theirs, not the body's
  // (captions stay).
  std::vector<Rect> table_boxes;
  for (const RuledTable& t : tables) table_boxes.push_back(t.box);
  for (Rect fig : FindVectorFigures(page, lines, table_boxes)) {
    // Its labels, and then labels beside those (an axis title under the tick values, set no larger than
    // they are), are the figure's: its crop shows them, the body leaves them out; not a paragraph's last
    // line ending just over it.
    double label_size = 0;
    for (int reach = 0; reach < kFigureLabelReach; ++reach) {
      Rect grown = fig;
      double sizes = label_size;
      for (size_t li = 0; li < lines.size(); ++li) {
        BlockType body;
        const TextLine& l = lines[li];
        if (consumed[li] || !IsFigureLabel(l, fig) || StartsCaption(l.text, &body) ||
            EndsParagraph(li, lines))
          continue;
        if (reach > 0 && l.font_size > label_size + 0.5) continue;
        consumed[li] = true;
        grown = grown.Union(l.box);
        sizes = std::max(sizes, l.font_size);
      }
      fig = grown;
      label_size = sizes;
    }
    bool merged = false;
    for (Rect& o : images) {
      if (!o.Intersect(fig).empty()) {
        o = o.Union(fig);
        merged = true;
        break;
      }
    }
    if (!merged) images.push_back(fig);
  }
  for (size_t li = 0; li < lines.size(); ++li) {
    for (const Rect& im : images) {
      Rect in = lines[li].box.Intersect(im);
      // Small text inside a figure is its labels; text of body size or larger over an image (a banner
      // behind a heading, a background) is kept.
      bool label = lines[li].font_size < 0.95 * style.body_size && im.area() >= 0.03 * pr.area();
      if (label && !in.empty() && in.area() >= 0.9 * lines[li].box.area()) consumed[li] = true;
    }
  }
  // Bullets and numbers drawn as shapes become the list markers they show.
  std::vector<Rect> shapes = page.drawings;
  shapes.insert(shapes.end(), page.shadings.begin(), page.shadings.end());
  AddDrawnMarkers(lines, shapes, consumed);
  std::vector<Item> items;
  bool rtl = false;
  std::vector<std::vector<size_t>> flows;
  auto order_items = [&] {
    items.clear();
    int rtl_lines = 0;
    for (size_t li = 0; li < lines.size(); ++li) {
      if (consumed[li]) continue;
      items.push_back({lines[li].box, ItemKind::kLine, li, lines[li].monospace, IsBareLabel(lines[li].text)});
      if (lines[li].rtl) ++rtl_lines;
    }
    for (size_t t = 0; t < tables.size(); ++t) items.push_back({tables[t].box, ItemKind::kTable, t});
    for (size_t m = 0; m < images.size(); ++m) items.push_back({images[m], ItemKind::kImage, m});
    for (size_t e = 0; e < equations.size(); ++e) items.push_back({equations[e].box, ItemKind::kEquation, e});
    rtl = rtl_lines * 2 > static_cast<int>(items.size());
    std::vector<size_t> ids(items.size());
    for (size_t i = 0; i < ids.size(); ++i) ids[i] = i;
    flows.clear();
    OrderItems(items, std::move(ids), rtl, 0, 0, false, flows);
  };

  // 3. Reading order. A table set in one column beside another column's text shares baselines with that
  // text, whose long lines end every run of rows FindAlignedTables follows across the page: the columns
  // of short lines found (see ShortFlowGroups) are looked at alone for tables, and the page is ordered
  // again when one turns up.
  order_items();
  size_t found = 0;
  for (const std::vector<size_t>& group : ShortFlowGroups(items, lines, flows)) {
    std::vector<bool> outside(lines.size(), true);
    for (size_t li : group) outside[li] = false;
    for (RuledTable& t : FindUnruledTables(lines, rules, page.images, charts, pr, outside)) {
      for (size_t li : t.line_indices) consumed[li] = true;
      tables.push_back(std::move(t));
      ++found;
    }
  }
  if (found > 0) order_items();

  // 4. Paragraphs and block types.
  std::vector<Block> blocks;
  std::vector<std::string> block_styles;         // StyleKey of each text block's first line ("" for others)
  std::vector<std::vector<size_t>> block_lines;  // the lines each block was set from (none for others)
  auto emit_paragraph = [&](const Paragraph& p) {
    if (p.lines.empty()) return;
    const TextLine& first = lines[p.lines.front()];
    bool numbered = false;
    // (A label set apart from its item, "1." alone on the item's first baseline, marks the item too.)
    const std::string lead = p.lines.size() > 1 && IsBareLabel(first.text)
                                 ? first.text + " " + lines[p.lines[1]].text
                                 : first.text;
    size_t marker = ListMarkerLength(lead, &numbered);
    std::string text;
    std::string with_math;  // the text with its inline formulas as "$latex$" (inline_math.h)
    bool all_bold = true, all_mono = true;
    for (size_t li : p.lines) {
      // Code keeps its line breaks; a line mostly of code that goes on a line of prose is prose.
      if (lines[li].monospace && (text.empty() || all_mono)) {
        if (!text.empty()) text.push_back('\n');
        text += lines[li].text;
        if (!with_math.empty()) with_math.push_back('\n');
        with_math += lines[li].text;
      } else {
        JoinLine(text, lines[li].text);
        JoinLineWithMath(with_math, TextWithInlineMath(lines[li], bars, EndsInOpenFormula(with_math)));
      }
      all_bold = all_bold && lines[li].bold;
      all_mono = all_mono && lines[li].monospace;
    }
    Block block;
    block.bbox = ToPageFrame(p.box, pr);
    double size = first.font_size;
    int level = 0;
    bool leaders = HasLeader(text);
    // An address ("example.com/docs") is no heading, nor is a block with an e-mail address in it (an
    // author's name over it, an affiliation after it).
    bool address = (text.find(' ') == std::string::npos && text.find('/') != std::string::npos &&
                    text.find('.') != std::string::npos) ||
                   HasEmailAddress(text);
    bool larger = size >= style.body_size * kHeadingRatio;
    // A long sentence set larger is a paragraph (a page's text set larger than its notes), no heading.
    const char32_t last = LastRune(text);
    const bool long_sentence = (last == '.' || last == '!' || last == '?' || last == 0x3002) &&
                               Utf8Length(text) >= kMaxSentenceHeadingChars;
    // A line in parentheses or brackets is a note ("(In thousands, except share data)", "[Unaudited]"), no
    // heading.
    const bool parenthesised =
        (text.starts_with("(") && last == ')') || (text.starts_with("[") && last == ']');
    // A bulleted line is a list item at any size. "(1) Scope" set in a heading size, or "1. Introduction"
    // set bold (or "1. Scope" in italics) on a line of its own, is a numbered heading, not a list; a numbered
    // list merely set larger than the body stays a list.
    const bool numbered_head = numbered && p.lines.size() == 1 && !row_peer[p.lines.front()] &&
                               (larger || all_bold || (first.italic && StartsSectionNumber(text)));
    if ((marker == 0 || numbered_head) && p.lines.size() <= 3 && text.size() <= 200 && !all_mono &&
        !leaders && !address && !long_sentence && !parenthesised) {
      for (size_t k = 0; k < style.heading_sizes.size(); ++k) {
        if (size >= style.heading_sizes[k] - 0.45) {
          level = static_cast<int>(k) + 1;
          break;
        }
      }
      if (level == 0 && larger) level = std::max(1, static_cast<int>(style.heading_sizes.size()));
      // (Authors under a paper's title, set large, their names marked with their affiliations' raised
      // indices, and those affiliations, each after its raised index, are no headings.)
      if (byline[p.lines.front()] || IsMarkedNameList(first) || StartsWithRaisedMark(first)) level = 0;
      // Headings at body size, told by style alone: never a cell of a row of same-style lines.
      bool by_style = !row_peer[p.lines.front()] && marker == 0;
      // A single short line at body size in another font family than the body (sans headings over serif
      // text; "HelveticaNeue" is the family of "Helvetica") and not ending like a sentence, in a style that
      // is not used for stacks of lines (code, figure labels, sidebars).
      // (Not a formula: a display equation's line in math italic.)
      bool other_family = !first.font.empty() && !style.body_font.empty() &&
                          !first.font.starts_with(style.body_font) &&
                          !style.body_font.starts_with(first.font) && !IsMathFont(first.font);
      bool heading_style = style.stacked_styles.count(StyleKey(first)) == 0;
      // A standalone italic line at body size starting with a capital is a run-in subheading.
      // (Its section's number before it: "1.1 Who it applies to".)
      bool italic_head = first.italic && !text.empty() &&
                         ((text[0] >= 'A' && text[0] <= 'Z') || StartsSectionNumber(text)) &&
                         text.size() <= 60;
      // (A section's number before it makes it one even in a style used for stacks of lines: IEEE's
      // small capitals, its tables' captions too; not with a page's number after it, a contents entry.)
      const size_t last_space = text.rfind(' ');
      const bool numbered_section =
          StartsSectionNumber(text) &&
          (last_space == std::string::npos || !IsBareNumber(std::string_view(text).substr(last_space + 1)));
      if (level == 0 && (by_style || numbered_head) && (heading_style || numbered_section) &&
          (other_family || italic_head) && p.lines.size() == 1 && text.size() >= 3 && text.size() <= 80 &&
          std::fabs(size - style.body_size) <= 0.6 && !EndsSentence(text) && !first.monospace) {
        level = std::min(4, static_cast<int>(style.heading_sizes.size()) + 1);
      }
      // A standalone line in capitals, at body size or in small capitals under it ("I. INTRODUCTION",
      // "REFERENCES", as IEEE papers set their sections' headings).
      if (level == 0 && by_style && heading_style && p.lines.size() == 1 && InCapitals(text) &&
          text.size() <= kMaxSentenceHeadingChars && size >= kSmallCapsRatio * style.body_size &&
          size <= style.body_size + 0.6 && !EndsSentence(text) && !first.monospace) {
        level = std::min(4, static_cast<int>(style.heading_sizes.size()) + 1);
      }
      // (A bold line at body size, or a little under it as REVTeX sets its subsections, that starts in
      // lower case goes on from something: a table's header line, a phrase set bold in a paragraph.)
      size_t at = 0;
      const bool starts_lower = !text.empty() && IsLowerLatin(DecodeUtf8(text, at));
      if (level == 0 && (by_style || numbered_head) && all_bold &&
          size >= std::min(style.body_size - 0.6, kBoldHeadingRatio * style.body_size) &&
          p.lines.size() <= 2 && !EndsSentence(text) && text.size() >= 3 && !starts_lower) {
        level = std::min(4, static_cast<int>(style.heading_sizes.size()) + 1);
      }
    }
    if (level > 0) {
      block.type = BlockType::kTitle;
      block.title_level = std::clamp(level, 1, 4);
      block.content = text;
    } else if (marker > 0) {
      // (Its marker is no formula: the text with formulas starts as the text does.)
      const std::string& body = with_math.compare(0, marker, text, 0, marker) == 0 ? with_math : text;
      std::string item =
          (numbered ? text.substr(0, marker - 1) + " " : std::string("- ")) + body.substr(marker);
      bool same_kind = !blocks.empty() && blocks.back().type == BlockType::kList &&
                       blocks.back().content.starts_with("- ") == !numbered;
      if (same_kind) {
        blocks.back().content += "\n" + item;
        Rect merged = FromPageFrame(blocks.back().bbox, pr).Union(p.box);
        blocks.back().bbox = ToPageFrame(merged, pr);
        return;
      }
      block.type = BlockType::kList;
      block.content = item;
    } else {
      block.type = BlockType::kText;
      block.content = with_math;
    }
    blocks.push_back(std::move(block));
    block_styles.push_back(StyleKey(first));
    block_lines.push_back(p.lines);
  };

  // A label alone ("1.", "[3]") with text on its baseline within three ems on its right: an item's label
  // set apart from the item.
  auto labels_item = [&](const TextLine& label) {
    return IsBareLabel(label.text) &&
           LabelledBy(label, lines, kItemLabelReach, 0.6, [](const TextLine&) { return true; }) != nullptr;
  };
  // Whether `line` continues paragraph `para` (whose last line is `prev`); list_text_x >= 0 is where the
  // current list item's text starts (continuation lines align with it).
  auto continues = [&](const Paragraph& para, const TextLine& line, double list_text_x) {
    if (para.lines.empty()) return false;
    const TextLine& prev = lines[para.lines.back()];
    bool numbered = false;
    // (Fields one under the other, "Analyst: ..." over "Email: ...", are a line each.)
    if (ListMarkerLength(line.text, &numbered) > 0 || labels_item(line) ||
        StartsChineseNumbering(line.text) || StartsNoteLabel(line.text) || StartsWithRaisedMark(line) ||
        (StartsField(line.text) && StartsField(prev.text)))
      return false;
    // An entry of a table of contents ends at its page number; a caption starts a block of its own (a
    // float set inside a paragraph, whose line before it ends mid-sentence).
    if (EndsInLeaderAndPage(prev.text) || StartsLabelledCaption(line.text)) return false;
    double size = std::max(1.0, std::max(prev.font_size, line.font_size));
    bool heading_size = std::min(prev.font_size, line.font_size) >= kHeadingRatio * style.body_size;
    // Lines of mixed faces (prose with code or math in it) may differ in the face most of their
    // characters have and still share one.
    bool same_face = SameFace(prev, line);
    // A heading set in large type may step its size down a little from line to line.
    double size_step = std::fabs(prev.font_size - line.font_size);
    bool same_style = same_face && (size_step < 0.8 || (heading_size && size_step <= 0.12 * size));
    // A heading in pieces on one baseline ("1" and "Introduction" set apart): one line; so is a lone label
    // and the text it labels ("[1]" set apart before a reference, a hanging indent's number).
    double x_gap = line.box.x0 - prev.box.x1;
    const bool label = para.lines.size() == 1 && IsBareLabel(prev.text);
    if (same_face && size_step < 0.8 && (heading_size || label) &&
        VerticalOverlap(prev.box, line.box) >= 0.6 && x_gap >= 0 && x_gap < 3 * size) {
      return true;
    }
    // (Between the lines' glyphs at their size: an inline formula's exponent reaches up to the line over it.)
    double gap = BodyBox(line).y0 - BodyBox(prev).y1;
    bool overlaps_x = line.box.x0 < para.box.x1 && line.box.x1 > para.box.x0;
    bool prev_short = prev.box.x1 < para.box.x1 - 0.2 * para.box.width() && EndsSentence(prev.text);
    // Chinese and Japanese lines fill the measure (a line may end at any character): one ending more than
    // two and a half ems short ends its paragraph, whatever it ends with ("一、概述" over its text).
    prev_short = prev_short || (IsCjkChar(LastRune(prev.text)) &&
                                prev.box.x1 < std::max(para.box.x1, line.box.x1) - kCjkShortEm * size);
    // Headings (larger than body text) have more leading than paragraphs.
    double max_gap = (line.font_size >= kHeadingRatio * style.body_size ? 1.1 : 0.75) * size;
    bool join = gap < max_gap && gap > -0.5 * size && same_style && overlaps_x && !prev_short;
    // Space between paragraphs: a gap wider by 0.4 em than any between the paragraph's lines so far.
    if (join) {
      const double widest = WidestLineGap(para.lines, lines);
      join = widest < -1e17 || gap <= widest + 0.4 * size;
    }
    if (join && list_text_x >= 0 && line.box.x0 < list_text_x - 0.6 * size) join = false;
    // (Left of the item's text by less, out under a narrow bullet, after an item that ends a sentence: the
    // text after the list.)
    if (join && list_text_x >= 0 && line.box.x0 < list_text_x - 0.3 * size && EndsSentence(prev.text))
      join = false;
    // A caption ends where a line starts an em or more left of it (a caption centred under its float,
    // the column's text set close under it).
    if (join && line.box.x0 < para.box.x0 - size && StartsLabelledCaption(lines[para.lines.front()].text))
      join = false;
    return join;
  };
  // Whether `line`, which would continue `para`, starts a new paragraph by its first-line indent: the
  // paragraph's last line starts at its left edge and ends a sentence, `line` is indented by 0.8 to 5 em,
  // and the line `after` it, set as close, is back at the left edge. A paragraph of one line must end
  // short of the margin (an em before `line` or `after` ends): a hanging indent, as of a reference list, puts
  // a full line alone over lines indented under it.
  auto starts_indented_paragraph = [&](const Paragraph& p, const TextLine& line, const TextLine* after) {
    if (p.lines.empty() || after == nullptr || line.monospace) return false;
    const TextLine& prev = lines[p.lines.back()];
    const double em = std::max(1.0, line.font_size);
    const double left = p.box.x0, indent = line.box.x0 - left;
    const bool close = after->box.y0 - line.box.y1 <= line.box.y0 - prev.box.y1 + 0.2 * em;
    const bool ends_short = prev.box.x1 <= std::max(line.box.x1, after->box.x1) - em;
    if (EndsSentence(prev.text) && prev.box.x0 - left <= 0.3 * em && (ends_short || p.lines.size() >= 2) &&
        indent >= 0.8 * em && indent <= 5 * em && std::fabs(after->box.x0 - left) <= 0.3 * em && close &&
        std::fabs(after->font_size - line.font_size) < 0.5)
      return true;
    // A caption of one line that ends a sentence, centred under its float: a line indented from the line
    // after it, both running to the measure, with that line at or left of the caption's edge, opens the
    // text under the caption.
    const double from_after = line.box.x0 - after->box.x0;
    return p.lines.size() == 1 && StartsLabelledCaption(prev.text) && EndsSentence(prev.text) && close &&
           from_after >= 0.8 * em && from_after <= 5 * em && after->box.x0 <= left + 0.3 * em &&
           line.box.x1 >= after->box.x1 - em && std::fabs(after->font_size - line.font_size) < 0.5;
  };
  // Whether paragraph `p` is set with a hanging indent (references) and `line` is back at its left edge:
  // the paragraph's first line at that edge, every later one indented by 0.8 to 5 em, all alike.
  auto hangs_over = [&](const Paragraph& p, const TextLine& line) {
    if (p.lines.size() < 2 || line.monospace || line.rtl)
      return false;  // (right-to-left lines end ragged left)
    const double em = std::max(1.0, line.font_size);
    const double left = lines[p.lines.front()].box.x0;
    const double hang = lines[p.lines[1]].box.x0 - left;
    if (hang < 0.8 * em || hang > 5 * em || std::fabs(line.box.x0 - left) > 0.3 * em) return false;
    for (size_t k = 2; k < p.lines.size(); ++k) {
      if (std::fabs(lines[p.lines[k]].box.x0 - left - hang) > 0.3 * em) return false;
    }
    return true;
  };
  // Whether `line`, which would continue `para`, starts the next paragraph of a list set with a hanging
  // indent (hangs_over); or, after such a paragraph in the same flow (`hanging_left`, the list's lines
  // reaching `hanging_right`) and paragraphs starting there, a paragraph of one line there ending an em or
  // more short of `line` or, ending a sentence, of the list's measure, and `line` there too. Whatever the
  // indents, the next reference's label ("[7]" after a paragraph that starts "[6]") not right of the
  // paragraph's last line starts the next paragraph (a reference goes on at the top of the next column).
  double hanging_left = -1, hanging_right = -1;
  auto starts_hanging_paragraph = [&](const Paragraph& p, const TextLine& line) {
    if (p.lines.empty() || line.monospace || line.rtl) return false;
    const double em = std::max(1.0, line.font_size);
    const TextLine& first = lines[p.lines.front()];
    const int label = ReferenceLabelNumber(line.text);
    int before = ReferenceLabelNumber(first.text);
    // (The rest of a reference after a column break, a paragraph of its own: the reference's label.)
    if (before < 0 && !block_lines.empty() && !block_lines.back().empty())
      before = ReferenceLabelNumber(lines[block_lines.back().front()].text);
    if (label > 0 && before == label - 1 && line.box.x0 <= lines[p.lines.back()].box.x0 + 0.3 * em)
      return true;
    if (p.lines.size() == 1) {  // (and short: a full line there starts a paragraph of running text)
      const bool short_of_measure = EndsSentence(first.text) && p.box.x1 <= hanging_right - em;
      return hanging_left >= 0 && std::fabs(first.box.x0 - hanging_left) <= 0.3 * em &&
             std::fabs(line.box.x0 - hanging_left) <= 0.3 * em &&
             (p.box.x1 <= line.box.x1 - em || short_of_measure);
    }
    return hangs_over(p, line);
  };
  Paragraph para;
  double list_text_x = -1;
  std::vector<size_t> aside;  // lines set beside the paragraph, read after it
  auto end_paragraph = [&] {
    emit_paragraph(para);
    para = {};
    list_text_x = -1;
    for (size_t li : aside) {
      Paragraph single;
      single.lines.push_back(li);
      single.box = lines[li].box;
      emit_paragraph(single);
    }
    aside.clear();
  };
  for (const std::vector<size_t>& flow : flows) {
    // A paragraph may go on into the next flow (a two-line title cut into two bands by the column split);
    // otherwise a flow starts a paragraph.
    if (flow.empty() || items[flow.front()].kind != ItemKind::kLine ||
        !continues(para, lines[items[flow.front()].index], list_text_x)) {
      end_paragraph();
      hanging_left = hanging_right = -1;
    }
    for (size_t f = 0; f < flow.size(); ++f) {
      const Item& item = items[flow[f]];
      if (item.kind != ItemKind::kLine) {
        end_paragraph();
        Block b;
        b.bbox = ToPageFrame(item.box, pr);
        if (item.kind == ItemKind::kTable) {
          b.type = BlockType::kTable;
          b.content = tables[item.index].html;
        } else if (item.kind == ItemKind::kEquation) {
          b.type = BlockType::kEquation;
          b.content = equations[item.index].latex;
        } else {
          b.type = BlockType::kImage;
        }
        blocks.push_back(std::move(b));
        block_styles.emplace_back();
        block_lines.emplace_back();
        continue;
      }
      const TextLine& line = lines[item.index];
      bool join = continues(para, line, list_text_x);
      const TextLine* after = f + 1 < flow.size() && items[flow[f + 1]].kind == ItemKind::kLine
                                  ? &lines[items[flow[f + 1]].index]
                                  : nullptr;
      if (join && list_text_x < 0 &&
          (starts_hanging_paragraph(para, line) || starts_indented_paragraph(para, line, after)))
        join = false;
      // (The list goes on while its paragraphs start at its left edge.)
      const bool hanging = !join && list_text_x < 0 && hangs_over(para, line);
      if (hanging ||
          (!join && std::fabs(line.box.x0 - hanging_left) <= 0.3 * std::max(1.0, line.font_size))) {
        hanging_left = line.box.x0;
        if (hanging) hanging_right = std::max(hanging_right, para.box.x1);
      } else if (!join) {
        hanging_left = hanging_right = -1;
      }
      if (!join && !para.lines.empty() && f + 1 < flow.size() && items[flow[f + 1]].kind == ItemKind::kLine) {
        // A small line beside the paragraph, between two of its lines ("Chapter 1." left of a two-line
        // chapter title): read after the paragraph.
        const TextLine& next = lines[items[flow[f + 1]].index];
        bool beside = line.box.x1 <= para.box.x0 || line.box.x0 >= para.box.x1;
        if (beside && line.font_size < next.font_size && line.box.y1 <= next.box.y1 &&
            continues(para, next, list_text_x)) {
          aside.push_back(item.index);
          continue;
        }
      }
      if (!join) {
        end_paragraph();
        bool numbered = false;
        if (const size_t marker = ListMarkerLength(line.text, &numbered);
            marker > 0 && line.text[marker - 1] != ' ') {
          list_text_x = line.box.x0;  // a bullet right before Chinese text: its lines go on under the bullet
        } else if (marker > 0) {
          // The item's text starts at the first character after the marker and its space (the line's text
          // is trimmed, its characters may not be).
          size_t k = 0;
          while (k < line.chars.size() && line.chars[k].rune == ' ') ++k;
          k += Utf8Length(std::string_view(line.text).substr(0, marker));
          while (k < line.chars.size() && line.chars[k].rune == ' ') ++k;
          if (k < line.chars.size()) list_text_x = line.chars[k].box.x0;
        }
      }
      para.lines.push_back(item.index);
      para.box = para.box.Union(line.box);
    }
  }
  end_paragraph();

  // A heading is set apart from the text under it: a title followed by text or a list in its own style
  // is the lead-in of that text ("Let's introduce a list" over the list's items, all in one style).
  for (size_t i = 0; i + 1 < blocks.size(); ++i) {
    const Block& next = blocks[i + 1];
    if (blocks[i].type == BlockType::kTitle &&
        (next.type == BlockType::kText || next.type == BlockType::kList) &&
        block_styles[i] == block_styles[i + 1]) {
      DemoteTitle(blocks[i]);
    }
  }

  // A run of three or more titles in one font and size with nothing but images between them is a cover, a
  // code listing or a list set in a large font, not a stack of headings.
  auto face = [&](size_t k) { return block_styles[k].substr(0, block_styles[k].find('/')); };
  for (size_t i = 0; i < blocks.size();) {
    if (blocks[i].type != BlockType::kTitle) {
      ++i;
      continue;
    }
    std::vector<size_t> run = {i};
    size_t j = i + 1;
    for (; j < blocks.size(); ++j) {
      if (blocks[j].type == BlockType::kImage) continue;
      if (blocks[j].type != BlockType::kTitle || face(j) != face(i)) break;
      run.push_back(j);
    }
    if (run.size() >= 3) {
      for (size_t k : run) DemoteTitle(blocks[k]);
    }
    i = j;
  }

  // Numbered titles ("1. Scope") next to each other or to a numbered list are the items of a list set
  // larger than the body.
  auto numbered_at = [&](size_t k, bool titles_only) {
    bool numbered = false;
    if (blocks[k].type != BlockType::kTitle && (titles_only || blocks[k].type != BlockType::kList))
      return false;
    return ListMarkerLength(blocks[k].content, &numbered) > 0 && numbered;
  };
  std::vector<size_t> list_titles;
  for (size_t k = 0; k < blocks.size(); ++k) {
    if (!numbered_at(k, true)) continue;
    if ((k > 0 && numbered_at(k - 1, false)) || (k + 1 < blocks.size() && numbered_at(k + 1, false))) {
      list_titles.push_back(k);
    }
  }
  for (size_t k : list_titles) DemoteTitle(blocks[k]);

  // Seven or more titles in one font and size on a page are a listing or a diagram set in a larger font;
  // numbered section headings ("2.1 Memory", "3. Results") count neither way (a short paper's page holds
  // seven headings, its sections' numbers in order). Lines as large as a title but taken for names in an
  // author block count (cells of a table's header row set large, most of them so taken).
  std::map<std::string, int> per_face;
  auto listed = [&](size_t k) {
    return blocks[k].type == BlockType::kTitle && !StartsSectionNumber(blocks[k].content);
  };
  auto large_name = [&](size_t k) {
    if (blocks[k].type != BlockType::kText || block_lines[k].empty()) return false;
    const size_t first = block_lines[k].front();
    return byline[first] && lines[first].font_size >= kHeadingRatio * style.body_size;
  };
  for (size_t k = 0; k < blocks.size(); ++k) {
    if (listed(k) || large_name(k)) ++per_face[face(k)];
  }
  for (size_t k = 0; k < blocks.size(); ++k) {
    if (listed(k) && per_face[face(k)] >= 7) DemoteTitle(blocks[k]);
  }

  // Demoted list items join the list next to them.
  for (size_t k = 1; k < blocks.size();) {
    Block& prev = blocks[k - 1];
    const Block& cur = blocks[k];
    if (prev.type == BlockType::kList && cur.type == BlockType::kList &&
        prev.content.starts_with("- ") == cur.content.starts_with("- ")) {
      prev.content += "\n" + cur.content;
      Rect merged = FromPageFrame(prev.bbox, pr).Union(FromPageFrame(cur.bbox, pr));
      prev.bbox = ToPageFrame(merged, pr);
      blocks.erase(blocks.begin() + static_cast<long>(k));
      block_styles.erase(block_styles.begin() + static_cast<long>(k));
      block_lines.erase(block_lines.begin() + static_cast<long>(k));
      continue;
    }
    ++k;
  }

  // 5. Captions.
  bool has[2] = {false, false};
  for (const Block& b : blocks) {
    if (b.type == BlockType::kImage) has[0] = true;
    if (b.type == BlockType::kTable) has[1] = true;
  }
  // (A caption set bold like a heading, "Table 4: Spending by region" over its table, is one too.)
  for (size_t k = 0; k < blocks.size(); ++k) {
    Block& b = blocks[k];
    BlockType body;
    if ((b.type != BlockType::kText && b.type != BlockType::kTitle) || !StartsCaption(b.content, &body))
      continue;
    if (b.content.starts_with("\u56fe\u8868") || b.content.starts_with("\u56f3\u8868"))
      body = NearestFloat(blocks, k);
    if (!has[body == BlockType::kImage ? 0 : 1]) continue;
    b.type = body == BlockType::kImage ? BlockType::kImageCaption : BlockType::kTableCaption;
    b.title_level = 0;
  }
  MarkFloatNotes(blocks);
  JoinBrokenParagraphs(blocks, block_lines, lines);
  JoinCaptionText(blocks, pr);
  PairCaptions(blocks);
  if (ends != nullptr) *ends = FindFlowEnds(blocks, block_lines, lines);
  return blocks;
}

}  // namespace mineru::document
