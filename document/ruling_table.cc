#include "document/ruling_table.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <numeric>
#include <optional>

#include "document/aligned_rows.h"
#include "document/aligned_table.h"
#include "document/text_layout.h"
#include "document/word_gutters.h"

namespace mineru::document {
namespace {

constexpr double kTol = 2.5;        // points: rules this close are one rule; ends this close touch
constexpr size_t kMaxRules = 4000;  // hostile pages: ignore the rest
constexpr int kMaxCells = 10000;
constexpr double kOverhang = 2.0;      // points: glyphs reaching this far past a cell's side are still in it
constexpr double kCentredSpan = 0.05;  // of a drawn column's width: a lone cell this near its middle spans it

struct Seg {
  double pos;  // y of a horizontal rule, x of a vertical one
  double a;    // extent along the rule
  double b;
};

class UnionFind {
 public:
  explicit UnionFind(size_t n) : parent_(n) { std::iota(parent_.begin(), parent_.end(), 0); }
  size_t Find(size_t x) {
    while (parent_[x] != x) x = parent_[x] = parent_[parent_[x]];
    return x;
  }
  void Join(size_t a, size_t b) { parent_[Find(a)] = Find(b); }

 private:
  std::vector<size_t> parent_;
};

// Merges collinear, touching segments.
std::vector<Seg> MergeSegments(std::vector<Seg> segs) {
  std::sort(segs.begin(), segs.end(), [](const Seg& x, const Seg& y) {
    return std::fabs(x.pos - y.pos) > kTol ? x.pos < y.pos : x.a < y.a;
  });
  std::vector<Seg> out;
  for (const Seg& s : segs) {
    bool merged = false;
    for (auto it = out.rbegin(); it != out.rend() && std::fabs(it->pos - s.pos) <= kTol; ++it) {
      if (s.a <= it->b + kTol && s.b >= it->a - kTol) {
        it->a = std::min(it->a, s.a);
        it->b = std::max(it->b, s.b);
        merged = true;
        break;
      }
    }
    if (!merged) out.push_back(s);
  }
  return out;
}

std::vector<double> ClusterPositions(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  std::vector<double> out;
  for (double x : v) {
    if (out.empty() || x - out.back() > 2 * kTol) out.push_back(x);
  }
  return out;
}

bool Covered(const std::vector<Seg>& segs, double pos, double along) {
  for (const Seg& s : segs) {
    if (std::fabs(s.pos - pos) <= 2 * kTol && along >= s.a - kTol && along <= s.b + kTol) return true;
  }
  return false;
}

// A table drawn without its outer frame (rules between the columns, none at the sides; common in papers
// and reports) has its outermost columns past the last crossing rule: where at least two rules running
// across reach past the outermost boundary by more than a cell's padding, their common reach is a
// boundary too. `across` are the rules running across `bounds` (horizontal rules for column bounds).
void ExtendOpenSides(const std::vector<Seg>& across, std::vector<double>& bounds) {
  constexpr double kMinReach = 4 * kTol;  // past the last boundary: room for a column
  if (bounds.empty()) return;
  std::vector<double> lows, highs;
  for (const Seg& s : across) {
    if (s.a < bounds.front() - kMinReach) lows.push_back(s.a);
    if (s.b > bounds.back() + kMinReach) highs.push_back(s.b);
  }
  // The second-farthest reach: two rules must get there (one long rule alone may be a page's border).
  if (lows.size() >= 2) {
    std::sort(lows.begin(), lows.end());
    bounds.insert(bounds.begin(), lows[1]);
  }
  if (highs.size() >= 2) {
    std::sort(highs.begin(), highs.end(), std::greater<>());
    bounds.push_back(highs[1]);
  }
}

struct GridText {
  int num_cells = 0;     // after merges
  int filled_cells = 0;  // with text
  int words = 0;
  int split_words = 0;  // words whose letters fell into two cells
  int num_cols = 0;
  size_t lines = 0, code_lines = 0;  // its lines, and those in a monospaced face
};

// A frame or a drawing without text, a single labelled box, boxes of paragraphs (a cover, a text frame),
// diagrams of boxes and arrows (words cut by the grid's lines, most cells empty) and a listing framed or
// shaded line by line (one column, two thirds of its lines in a monospaced face) are no tables.
bool LooksLikeTable(const GridText& g) {
  if (g.filled_cells < 2) return false;
  if (g.num_cols == 1 && g.code_lines * 3 >= g.lines * 2) return false;
  if (g.words > 30 * g.filled_cells) return false;
  if (g.split_words > 2 && g.split_words * 20 > g.words) return false;
  return !(g.split_words > 0 && g.filled_cells * 3 <= g.num_cells);
}

// The cells of a baseline of text and where it is.
struct Baseline {
  double cy = 0;
  std::vector<AlignedPiece> cells;
};

// The cells of `inside` lines (`pieces`, in the same order) gathered by baseline, top to bottom: the line
// builder parts a row's cells set far apart into lines of their own.
std::vector<Baseline> BaselineCells(const std::vector<TextLine>& lines, const std::vector<size_t>& inside,
                                    const std::vector<std::vector<AlignedPiece>>& pieces) {
  std::vector<size_t> order(inside.size());
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(),
            [&](size_t a, size_t b) { return lines[inside[a]].box.cy() < lines[inside[b]].box.cy(); });
  std::vector<Baseline> out;
  const TextLine* first = nullptr;  // of the baseline being gathered
  for (size_t k : order) {
    const TextLine& line = lines[inside[k]];
    if (first == nullptr || VerticalOverlap(first->box, line.box) < 0.5) {
      out.push_back({line.box.cy(), {}});
      first = &line;
    }
    out.back().cells.insert(out.back().cells.end(), pieces[k].begin(), pieces[k].end());
  }
  for (Baseline& b : out) {
    std::sort(b.cells.begin(), b.cells.end(),
              [](const AlignedPiece& x, const AlignedPiece& y) { return x.x0 < y.x0; });
    // A bullet set apart from its item's text is no cell of its own (a list inside a cell).
    for (size_t k = 0; k + 1 < b.cells.size();) {
      bool numbered = false;
      AlignedPiece& p = b.cells[k];
      if (ListMarkerLength(p.text + " x", &numbered) == p.text.size() + 1 && !numbered) {
        p.text += " " + b.cells[k + 1].text;
        p.x1 = b.cells[k + 1].x1;
        b.cells.erase(b.cells.begin() + static_cast<long>(k + 1));
        continue;
      }
      ++k;
    }
  }
  return out;
}

// Columns a grid draws no rule between (a frame with rules between its rows only, a rule between groups
// of columns and none inside a group): for each drawn column (between `xs`), the whitespace gutters the
// cells of its baselines leave (FindColumnGutters), where at least two of them have two cells or more in
// it. Returns the x of each such gutter's middle.
std::vector<double> UnruledColumnBounds(const std::vector<Baseline>& baselines,
                                        const std::vector<double>& xs) {
  std::vector<double> bounds;
  for (size_t c = 0; c + 1 < xs.size(); ++c) {
    std::vector<std::vector<AlignedPiece>> rows;
    size_t split = 0;
    for (const Baseline& b : baselines) {
      std::vector<AlignedPiece> in_column;
      for (const AlignedPiece& p : b.cells) {
        const double cx = (p.x0 + p.x1) / 2;
        if (cx > xs[c] && cx < xs[c + 1]) in_column.push_back(p);
      }
      if (in_column.empty()) continue;
      split += in_column.size() >= 2;
      rows.push_back(std::move(in_column));
    }
    if (split < 2 || rows.size() < 3) continue;
    for (const auto& [x0, x1] : FindColumnGutters(rows)) bounds.push_back((x0 + x1) / 2);
  }
  return bounds;
}

// Whether a drawn row of the grid (between `ys`) holds `least` baselines or more that `counts` accepts.
template <typename Counts>
bool DrawnRowHolds(const std::vector<Baseline>& baselines, const std::vector<double>& ys, int least,
                   Counts counts) {
  if (ys.size() < 2) return false;
  std::vector<int> held(ys.size() - 1, 0);  // of drawn row r, between ys[r] and ys[r + 1]
  for (const Baseline& b : baselines) {
    if (b.cy <= ys.front() || b.cy >= ys.back() || !counts(b)) continue;
    const size_t r = static_cast<size_t>(std::ranges::upper_bound(ys, b.cy) - ys.begin()) - 1;
    if (++held[r] >= least) return true;
  }
  return false;
}

// Whether a drawn row of the grid holds two baselines or more of several cells each: its rows are not
// ruled either (a frame around a table, a rule under its header only), and the table is the
// whitespace's to read (FindRuleBandTables, FindAlignedTables).
bool RowsUnruled(const std::vector<Baseline>& baselines, const std::vector<double>& ys) {
  return DrawnRowHolds(baselines, ys, 2, [](const Baseline& b) { return b.cells.size() >= 2; });
}

// Whether a drawn row of the grid holds three baselines or more with a figure right of the first drawn
// column (between `xs`): rules between the columns and none between the rows (only over and under the
// header and at the foot); the table is the whitespace's to read (FindAlignedTables), whose rows are the
// baselines, wrapped labels joined. (A cell of a figure over its share, two baselines, is no such row.)
bool RowsOfFigures(const std::vector<Baseline>& baselines, const std::vector<double>& ys,
                   const std::vector<double>& xs) {
  if (xs.size() < 2) return false;
  return DrawnRowHolds(baselines, ys, 3, [&](const Baseline& b) {
    return std::ranges::any_of(
        b.cells, [&](const AlignedPiece& p) { return (p.x0 + p.x1) / 2 > xs[1] && IsNumericCell(p.text); });
  });
}

// The drawn column (between `xs`) the middle of `p` is in, or -1 outside them.
std::ptrdiff_t DrawnColumnOf(const AlignedPiece& p, const std::vector<double>& xs) {
  const auto c = std::ranges::upper_bound(xs, (p.x0 + p.x1) / 2) - xs.begin() - 1;
  return c + 1 < static_cast<std::ptrdiff_t>(xs.size()) ? c : -1;
}

// How many of the drawn columns (between `xs`) baseline `b` has a cell in.
size_t DrawnColumnsFilled(const Baseline& b, const std::vector<double>& xs) {
  if (xs.size() < 2) return 0;
  std::vector<bool> filled(xs.size() - 1, false);
  for (const AlignedPiece& p : b.cells) {
    const auto c = DrawnColumnOf(p, xs);
    if (c >= 0) filled[static_cast<size_t>(c)] = true;
  }
  return static_cast<size_t>(std::ranges::count(filled, true));
}

// Whether the first cell of `below` in each drawn column goes on from the last cell of `above` in it
// (GoesOnFrom: text wrapped in every cell of a row at once).
bool GoesOnFromAbove(const Baseline& below, const Baseline& above, const std::vector<double>& xs) {
  std::ptrdiff_t seen = -1;
  for (const AlignedPiece& p : below.cells) {
    const std::ptrdiff_t c = DrawnColumnOf(p, xs);
    if (c == seen) continue;
    seen = c;
    const AlignedPiece* cell = nullptr;
    for (const AlignedPiece& q : above.cells) {
      if (DrawnColumnOf(q, xs) == c) cell = &q;
    }
    if (c < 0 || cell == nullptr || !GoesOnFrom(cell->text, p.text)) return false;
  }
  return !below.cells.empty();
}

// Whether the rule at height y is drawn across every column of a grid of three or more (between `xs`)
// but the first: a style that rules the rows and leaves the first column, its groups' names merged down
// over their rows, unruled.
bool RuledButTheFirstColumn(const std::vector<Seg>& hs, const std::vector<double>& xs, double y) {
  if (xs.size() < 4) return false;
  for (size_t c = 1; c + 1 < xs.size(); ++c) {
    if (!Covered(hs, y, (xs[c] + xs[c + 1]) / 2)) return false;
  }
  return true;
}

// Whether the first-column text of drawn row `r` + 1 (columns between `xs`) starts a cell of its own:
// the row holds text in every column, and its first column's first line sits on the row's first
// baseline and does not go on from the nearest line above it in the column (GoesOnFrom; `rows`: each
// drawn row's lines, each by itself). A name wrapped onto the next row goes on ("Objective 1: better"
// over "schools").
bool StartsAnotherCell(const std::vector<std::vector<Baseline>>& rows, size_t r,
                       const std::vector<double>& xs) {
  // (A full row: a group's first row holds text in every column.)
  for (size_t c = 1; c + 1 < xs.size(); ++c) {
    const bool held = std::ranges::any_of(rows[r + 1], [&](const Baseline& b) {
      return std::ranges::any_of(b.cells, [&](const AlignedPiece& p) {
        return DrawnColumnOf(p, xs) == static_cast<std::ptrdiff_t>(c);
      });
    });
    if (!held) return false;
  }
  const double x0 = xs[0], x1 = xs[1];
  auto in = [&](const AlignedPiece& p) { return (p.x0 + p.x1) / 2 > x0 && (p.x0 + p.x1) / 2 < x1; };
  const Baseline* first = nullptr;  // of row r + 1, in the column
  double row_top = 1e18;            // row r + 1's first baseline
  for (const Baseline& b : rows[r + 1]) {
    row_top = std::min(row_top, b.cy);
    if (std::ranges::any_of(b.cells, in) && (first == nullptr || b.cy < first->cy)) first = &b;
  }
  if (first == nullptr || first->cy > row_top + 2) return false;
  const Baseline* last = nullptr;  // the nearest above, in the column
  for (size_t k = r + 1; k-- > 0 && last == nullptr;) {
    for (const Baseline& b : rows[k]) {
      if (std::ranges::any_of(b.cells, in) && (last == nullptr || b.cy > last->cy)) last = &b;
    }
  }
  if (last == nullptr) return false;
  const auto last_piece = std::ranges::find_if(last->cells.rbegin(), last->cells.rend(), in);
  const auto first_piece = std::ranges::find_if(first->cells, in);
  return !GoesOnFrom(last_piece->text, first_piece->text);
}

// Rows a grid draws no rule between whose every line fills every drawn column (between `xs`): in a drawn
// row (between `ys`) of two baselines or more, each with a cell in each of three drawn columns or more
// ("100% | 1340 | 2210" over "50% | 670 | 1105", no rule between them; a cell wrapped onto a second line
// leaves the other columns empty there, and so do text cells all wrapped at once, each line going on
// from the one above it: "system | regions have reported"). Returns the y between each two such
// baselines.
std::vector<double> FullRowBounds(const std::vector<Baseline>& baselines, const std::vector<double>& ys,
                                  const std::vector<double>& xs) {
  std::vector<double> bounds;
  if (xs.size() < 4) return bounds;
  for (size_t r = 0; r + 1 < ys.size(); ++r) {
    std::vector<const Baseline*> in;
    bool full = true;
    for (const Baseline& b : baselines) {
      if (b.cy <= ys[r] || b.cy >= ys[r + 1]) continue;
      in.push_back(&b);
      full = full && DrawnColumnsFilled(b, xs) == xs.size() - 1;
    }
    if (!full || in.size() < 2) continue;
    for (size_t k = 1; k < in.size(); ++k) {
      if (!GoesOnFromAbove(*in[k], *in[k - 1], xs)) bounds.push_back((in[k - 1]->cy + in[k]->cy) / 2);
    }
  }
  return bounds;
}

// Rows a grid draws no rule between (rules between its columns, and over and under its header and at its
// foot only: three drawn rows at most): in a drawn row of three baselines or more under another (two
// frames of text side by side have none over them), a row starts after a blank line (a gap between
// baselines 1.4 times the least one), where two such gaps or more part its rows; else at each baseline
// with cells in two drawn columns or more (between `xs`), a baseline with one cell going on the row
// above (a wrapped cell). Returns the y of each such row's top bound.
std::vector<double> UnruledRowBounds(const std::vector<Baseline>& baselines, const std::vector<double>& ys,
                                     const std::vector<double>& xs) {
  if (xs.size() < 3 || ys.size() < 2 || ys.size() > 4) return {};
  auto columns = [&](const Baseline& b) { return DrawnColumnsFilled(b, xs); };
  std::vector<double> bounds;
  for (size_t r = 1; r + 1 < ys.size(); ++r) {
    std::vector<const Baseline*> in;
    for (const Baseline& b : baselines) {
      if (b.cy > ys[r] && b.cy < ys[r + 1]) in.push_back(&b);
    }
    if (in.size() < 3) continue;
    double least = 1e18;
    for (size_t k = 1; k < in.size(); ++k) least = std::min(least, in[k]->cy - in[k - 1]->cy);
    std::vector<double> after_gaps, at_cells;
    for (size_t k = 1; k < in.size(); ++k) {
      const double mid = (in[k - 1]->cy + in[k]->cy) / 2;
      if (columns(*in[k]) < 2) continue;
      at_cells.push_back(mid);
      if (in[k]->cy - in[k - 1]->cy >= 1.4 * least) after_gaps.push_back(mid);
    }
    const std::vector<double>& starts = after_gaps.size() >= 2 ? after_gaps : at_cells;
    if (starts.size() >= 2) bounds.insert(bounds.end(), starts.begin(), starts.end());
  }
  return bounds;
}

// Whether the gutter at x, inside the drawn column [a, b], parts the cells of a row of the grid (`row`,
// its lines' cells): not where a cell reaches across it, nor where the row's one cell in the drawn
// column is centred on it (a heading over the columns it holds, "2022" over "Q1 Q2 Q3").
bool GutterParts(const std::vector<AlignedPiece>& row, double x, double a, double b) {
  int in_column = 0;
  double centre = 0;
  for (const AlignedPiece& p : row) {
    if (p.x0 < x && p.x1 > x) return false;
    const double cx = (p.x0 + p.x1) / 2;
    if (cx > a && cx < b) {
      ++in_column;
      centre = cx;
    }
  }
  return !(in_column == 1 && std::fabs(centre - (a + b) / 2) <= kCentredSpan * (b - a));
}

// The tops of up to two rows of short cells (two or more each) set right over a grid's top edge `top`,
// within its sides [x0, x1] and with nothing beside them, bottom up: a header row drawn with a rule under
// it only (a word processor's table styles), and a row of group headings over it.
std::vector<double> HeaderRowsAbove(const std::vector<TextLine>& lines, const std::vector<bool>& used,
                                    double x0, double x1, double top) {
  std::vector<double> tops;
  for (int level = 0; level < 2; ++level) {
    const TextLine* next = nullptr;  // the line closest over `top`
    for (size_t i = 0; i < lines.size(); ++i) {
      const Rect& b = lines[i].box;
      if (used[i] || b.y1 > top + 1 || b.x1 < x0 || b.x0 > x1) continue;
      if (next == nullptr || b.y1 > next->box.y1) next = &lines[i];
    }
    if (next == nullptr || top - next->box.y1 > 0.8 * next->box.height()) break;
    size_t cells = 0;
    bool fits = true;
    double row_top = next->box.y0;
    for (size_t i = 0; i < lines.size() && fits; ++i) {
      const TextLine& l = lines[i];
      if (VerticalOverlap(l.box, next->box) <= 0.5) continue;
      fits = !used[i] && l.box.x0 >= x0 - kTol && l.box.x1 <= x1 + kTol;
      for (const AlignedPiece& p : SplitAtColumnGaps(l)) {
        ++cells;
        fits = fits && Utf8Length(p.text) <= kMaxCellChars;
      }
      row_top = std::min(row_top, l.box.y0);
    }
    if (!fits || cells < 2) break;
    top = row_top - 1;
    tops.push_back(top);
  }
  return tops;
}

// Of a header row of a grid (`row`, its cells; `next`, the row under it; `xs`, the columns' sides;
// `drawn`, whether the side right of each column is drawn in the row, `merged`, whether it is a side the
// grid draws in other rows left out of this one, both empty over the grid): whether each
// column's side to its right lies inside the run of a group's name (GroupNameRuns, aligned_rows.h:
// "Primary" centred over three columns, narrower than the middle one, or a name across sides that a
// style's cell shading draws between its columns). Inside the grid a name is over the columns its cell
// merges (`merged` sides, no other name in them). A row holding a figure or a mark, or a drawn side in
// a space of a piece (`words`: the spans of the row's words), has no groups' names.
std::vector<bool> InsideGroupNames(const std::vector<AlignedPiece>& row,
                                   const std::vector<AlignedPiece>& next, const std::vector<double>& xs,
                                   const std::vector<bool>& drawn, const std::vector<bool>& merged,
                                   const std::vector<std::pair<double, double>>& words) {
  const std::ptrdiff_t cols = static_cast<std::ptrdiff_t>(xs.size()) - 1;
  std::vector<bool> inside(static_cast<size_t>(cols), false);
  for (const AlignedPiece& p : row) {
    if (IsNumericCell(p.text) || IsMarkCell(p.text, "")) return inside;
  }
  auto column = [&](double x) {
    return static_cast<size_t>(
        std::clamp<std::ptrdiff_t>(std::upper_bound(xs.begin(), xs.end(), x) - xs.begin() - 1, 0, cols - 1));
  };
  std::vector<int> held(static_cast<size_t>(cols), 0);  // the names in each column
  for (const AlignedPiece& p : row) {
    for (size_t c = column(p.x0); c <= column(p.x1); ++c) ++held[c];
  }
  std::vector<HeadingAt> names;
  for (const AlignedPiece& p : row) {
    // (Glyphs may overhang a side by a point or two; a drawn side in a space between the words of a
    // piece parts cells of their own, headings the extractor ran into one line.)
    HeadingAt h{column(p.x0 + kOverhang), column(p.x1 - kOverhang), (p.x0 + p.x1) / 2};
    if (h.first > h.last) h.first = h.last = column(h.centre);
    for (size_t c = h.first; !drawn.empty() && c < h.last; ++c) {
      const double side = xs[c + 1];
      const bool in_a_word = std::ranges::any_of(words, [&](const std::pair<double, double>& w) {
        return w.first + kOverhang < side && w.second - kOverhang > side;
      });
      if (drawn[c] && !in_a_word) return inside;
    }
    while (!merged.empty() && h.first > 0 && merged[h.first - 1] && held[h.first - 1] == 0) --h.first;
    while (!merged.empty() && h.last + 1 < held.size() && merged[h.last] && held[h.last + 1] == 0) ++h.last;
    names.push_back(h);
  }
  std::vector<bool> headed(static_cast<size_t>(cols), false);
  for (const AlignedPiece& p : next) {
    if (column(p.x0) == column(p.x1)) headed[column(p.x0)] = true;
  }
  std::vector<std::pair<double, double>> columns;
  for (std::ptrdiff_t c = 0; c < cols; ++c) columns.push_back({xs[c], xs[c + 1]});
  for (const auto& [a, b] : GroupNameRuns(names, columns, headed)) {
    for (size_t c = a; c < b; ++c) inside[c] = true;
  }
  return inside;
}

// Whether the cells of a row (`row`) stand in both columns [a, x] and [x, b], none across x.
bool PartedAt(const std::vector<AlignedPiece>& row, double a, double x, double b) {
  bool left = false, right = false;
  for (const AlignedPiece& p : row) {
    if (p.x0 < x && p.x1 > x) return false;
    left = left || (p.x0 >= a && p.x1 <= x);
    right = right || (p.x0 >= x && p.x1 <= b);
  }
  return left && right;
}

// The words of `line` into the cells' texts (`cell_of` gives a character's cell): a word goes whole to
// the cell that holds most of its characters (a word set across a rule: a figure overflowing its cell, a
// note laid over the table), its line's words in one cell joined by spaces. Counts the words and those
// set across cells (`split`).
template <typename CellOf>
void WordsIntoCells(const TextLine& line, CellOf cell_of, std::vector<std::vector<std::string>>& text,
                    int& words, int& split) {
  size_t current = SIZE_MAX;  // the cell the run goes to
  std::string run;
  auto flush = [&]() {
    if (current != SIZE_MAX && !run.empty()) text[current].push_back(run);
    run.clear();
  };
  std::vector<std::pair<char32_t, size_t>> word;  // its characters, each with its cell
  auto end_word = [&]() {
    if (word.empty()) return;
    std::map<size_t, size_t> votes;
    for (const auto& [rune, cell] : word) ++votes[cell];
    size_t cell = word.front().second;
    for (const auto& [c, n] : votes) {
      if (n > votes[cell]) cell = c;
    }
    ++words;
    split += votes.size() > 1;
    if (cell != current) {
      flush();
      current = cell;
    }
    if (!run.empty()) run.push_back(' ');
    for (const auto& [rune, c] : word) AppendUtf8(run, rune);
    word.clear();
  };
  for (const TextChar& ch : line.chars) {
    if (ch.rune == ' ') {
      end_word();
    } else {
      word.push_back({ch.rune, cell_of(ch)});
    }
  }
  end_word();
  flush();
}

void AppendEscaped(std::string& out, const std::string& text) {
  for (char c : text) {
    if (c == '<') {
      out += "&lt;";
    } else if (c == '>') {
      out += "&gt;";
    } else if (c == '&') {
      out += "&amp;";
    } else {
      out.push_back(c);
    }
  }
}

// A cell's lines joined as a paragraph's are: "Agricul-" "ture" is one word, and Chinese wrapped in a
// narrow column takes no space.
std::string CellText(std::vector<std::string>& parts) {
  std::string out;
  for (const std::string& p : parts) JoinLine(out, p);
  return out;
}

}  // namespace

namespace {

// Whether the line right under a shaded band `band` (within a line's height) carries on its columns:
// cells each under one of the band's bottom cells (`bottom`), two of those cells or more. The band is then a
// table's shaded header over rows left unshaded, not a grid of its own.
bool RowsCarryOnUnder(const Rect& band, const std::vector<Rect>& bottom, const std::vector<TextLine>& lines) {
  const TextLine* next = nullptr;
  for (const TextLine& l : lines) {
    if (l.box.y0 < band.y1 - 1 || l.box.x0 < band.x0 - kTol || l.box.x1 > band.x1 + kTol) continue;
    if (next == nullptr || l.box.y0 < next->box.y0) next = &l;
  }
  if (next == nullptr || next->box.y0 - band.y1 > 1.5 * next->box.height()) return false;
  std::vector<AlignedPiece> pieces;  // of every line on the row's baseline (a cell may be a line)
  for (const TextLine& l : lines) {
    if (l.box.x0 < band.x0 - kTol || l.box.x1 > band.x1 + kTol || VerticalOverlap(l.box, next->box) <= 0.5)
      continue;
    for (AlignedPiece& p : SplitAtColumnGaps(l)) pieces.push_back(std::move(p));
  }
  std::vector<bool> under(bottom.size(), false);
  for (const AlignedPiece& p : pieces) {
    const double cx = 0.5 * (p.x0 + p.x1);
    const auto cell = std::ranges::find_if(bottom, [&](const Rect& c) { return cx >= c.x0 && cx <= c.x1; });
    if (cell == bottom.end()) return false;
    under[static_cast<size_t>(cell - bottom.begin())] = true;
  }
  return std::ranges::count(under, true) >= 2;
}

// Shaded cells that tile (share an edge, or leave a hairline between them): their extent and their
// rows' height (the median cell's: a cell merged down over several rows is no row).
struct TileGroup {
  Rect box;
  std::vector<Rect> cells;
  double row_height = 0;
};

std::vector<TileGroup> TileGroups(const std::vector<Rect>& fills, const Rect& page) {
  std::vector<Rect> cells;
  auto same = [](const Rect& a, const Rect& b) {
    return std::fabs(a.x0 - b.x0) <= 0.5 && std::fabs(a.y0 - b.y0) <= 0.5 && std::fabs(a.x1 - b.x1) <= 0.5 &&
           std::fabs(a.y1 - b.y1) <= 0.5;
  };
  for (const Rect& f : fills) {
    // (A cell filled twice, as some writers draw it, counts once.)
    if (f.width() < 0.9 * page.width() && f.height() < 0.5 * page.height() &&
        std::ranges::none_of(cells, [&](const Rect& c) { return same(c, f); }))
      cells.push_back(f);
  }
  auto touch = [](const Rect& a, const Rect& b) {
    bool side = std::fabs(a.x1 - b.x0) <= kTol || std::fabs(b.x1 - a.x0) <= kTol;
    bool stack = std::fabs(a.y1 - b.y0) <= kTol || std::fabs(b.y1 - a.y0) <= kTol;
    double over_y = std::min(a.y1, b.y1) - std::max(a.y0, b.y0);
    double over_x = std::min(a.x1, b.x1) - std::max(a.x0, b.x0);
    return (side && over_y > kTol) || (stack && over_x > kTol);
  };
  std::vector<bool> tiles(cells.size(), false);
  UnionFind groups(cells.size());
  for (size_t i = 0; i < cells.size(); ++i) {
    for (size_t j = i + 1; j < cells.size(); ++j) {
      if (!touch(cells[i], cells[j])) continue;
      tiles[i] = tiles[j] = true;
      groups.Join(i, j);
    }
  }
  std::map<size_t, TileGroup> by_root;
  for (size_t i = 0; i < cells.size(); ++i) {
    if (!tiles[i]) continue;
    TileGroup& g = by_root[groups.Find(i)];
    g.box = g.cells.empty() ? cells[i] : g.box.Union(cells[i]);
    g.cells.push_back(cells[i]);
  }
  std::vector<TileGroup> out;
  for (auto& [root, g] : by_root) {
    std::vector<double> heights;
    for (const Rect& c : g.cells) heights.push_back(c.height());
    g.row_height = Median(std::move(heights));
    out.push_back(std::move(g));
  }
  std::ranges::sort(out, {}, [](const TileGroup& g) { return g.box.y0; });
  return out;
}

// Whether a group is stripes joined by a cell merged down beside them: one of its cells is as tall as
// the group, and the others leave a hole (an unshaded row between the stripes). A shaded header covers
// its extent.
bool JoinedStripes(const TileGroup& g) {
  double area = 0;
  bool merged = false;
  for (const Rect& c : g.cells) {
    area += c.area();
    merged =
        merged || (c.y0 <= g.box.y0 + kTol && c.y1 >= g.box.y1 - kTol && c.height() > 1.5 * g.row_height);
  }
  return merged && area < 0.98 * g.box.area();
}

// Whether a drawn vertical rule goes on down from the bottom of the group at the side of one of its
// cells inside it (a grid's column rule under its shaded header).
bool InnerSidesRuledUnder(const TileGroup& g, const std::vector<RulingSegment>& rules) {
  return std::ranges::any_of(rules, [&](const RulingSegment& r) {
    const double x = r.box.cx();
    return !r.horizontal && x > g.box.x0 + kTol && x < g.box.x1 - kTol && r.box.y0 <= g.box.y1 + kTol &&
           r.box.y1 > g.box.y1 + kTol && std::ranges::any_of(g.cells, [&](const Rect& c) {
             return c.y1 >= g.box.y1 - kTol && (std::fabs(c.x0 - x) <= kTol || std::fabs(c.x1 - x) <= kTol);
           });
  });
}

// How many of a group's cells hold the middle of a line of `lines` (a table's cells do; shapes of an
// icon or a drawing hold none).
size_t TilesHoldingText(const TileGroup& g, const std::vector<TextLine>& lines) {
  return static_cast<size_t>(std::ranges::count_if(g.cells, [&](const Rect& c) {
    return std::ranges::any_of(lines, [&](const TextLine& l) { return c.ContainsCenterOf(l.box, 0); });
  }));
}

bool HasSideAt(const TileGroup& g, double x) {
  return std::ranges::any_of(
      g.cells, [&](const Rect& c) { return std::fabs(c.x0 - x) <= kTol || std::fabs(c.x1 - x) <= kTol; });
}

// Whether two groups are stripes of one table (rows shaded in turn, each cell on its own): as wide, or
// one short of the other's first or last columns (a cell merged down over the narrower one's rows, a
// group's name in the first column), at most three of their rows' heights apart, every line between
// them inset from both sides of the wider as a cell's text is (a heading at the margin between two
// tables of one width is no row of theirs) and none as wide as half the table across a column side both
// have (a paragraph between two tables, set as wide as they are).
bool StripesOfOneTable(const TileGroup& a, const TileGroup& b, const std::vector<TextLine>& lines) {
  const TileGroup& wide = a.box.width() >= b.box.width() ? a : b;
  const TileGroup& narrow = &wide == &a ? b : a;
  const bool left = std::fabs(a.box.x0 - b.box.x0) <= kTol, right = std::fabs(a.box.x1 - b.box.x1) <= kTol;
  if (!(left && right) && !(left && HasSideAt(wide, narrow.box.x1)) &&
      !(right && HasSideAt(wide, narrow.box.x0)))
    return false;
  const double top = std::min(a.box.y1, b.box.y1), bottom = std::max(a.box.y0, b.box.y0);
  if (bottom - top > 3 * std::max(a.row_height, b.row_height)) return false;
  // (A line across a column side both have, as wide as half the table, is prose between two tables.)
  auto crosses_a_side = [&](const Rect& box) {
    return box.width() > 0.5 * wide.box.width() && std::ranges::any_of(narrow.cells, [&](const Rect& c) {
             return (box.x0 < c.x0 - 1 && box.x1 > c.x0 + 1 && HasSideAt(wide, c.x0)) ||
                    (box.x0 < c.x1 - 1 && box.x1 > c.x1 + 1 && HasSideAt(wide, c.x1));
           });
  };
  return std::ranges::none_of(lines, [&](const TextLine& l) {
    const double cy = l.box.cy();
    return cy > top && cy < bottom && l.box.x1 > wide.box.x0 && l.box.x0 < wide.box.x1 &&
           (l.box.x0 <= wide.box.x0 + 1 || l.box.x1 >= wide.box.x1 - 1 || crosses_a_side(l.box));
  });
}

// The rows between y0 and y1 set across the whole of a group's table: one cell, centred on the table
// and clear of its first column (a group's name in a merged row, between two stripes). Their spans.
std::vector<std::pair<double, double>> RowsAcross(const TileGroup& g, double y0, double y1,
                                                  const std::vector<TextLine>& lines) {
  double first_column = g.box.x1;
  for (const Rect& c : g.cells) {
    if (std::fabs(c.x0 - g.box.x0) <= kTol) first_column = std::min(first_column, c.x1);
  }
  std::vector<std::pair<double, double>> rows;
  for (const TextLine& l : lines) {
    if (l.box.cy() <= y0 || l.box.cy() >= y1 || l.box.x0 < g.box.x0 || l.box.x1 > g.box.x1) continue;
    bool alone = true;  // nothing else on its baseline in the table
    for (const TextLine& m : lines) {
      alone = alone && (&m == &l || VerticalOverlap(m.box, l.box) <= 0.5 || m.box.x1 < g.box.x0 ||
                        m.box.x0 > g.box.x1);
    }
    if (alone && SplitAtColumnGaps(l).size() == 1 && l.box.x0 > first_column &&
        std::fabs(l.box.cx() - g.box.cx()) <= 0.1 * g.box.width())
      rows.emplace_back(l.box.y0, l.box.y1);
  }
  return rows;
}

}  // namespace

std::vector<RulingSegment> CellFillEdges(const std::vector<Rect>& fills,
                                         const std::vector<RulingSegment>& rules,
                                         const std::vector<TextLine>& lines, const Rect& page) {
  const std::vector<TileGroup> groups = TileGroups(fills, page);
  std::vector<RulingSegment> out;
  auto vertical = [&](double x, double y0, double y1) { out.push_back({{x - 0.5, y0, x + 0.5, y1}, false}); };
  for (size_t g = 0; g < groups.size(); ++g) {
    const TileGroup& group = groups[g];
    for (const Rect& r : group.cells) {
      out.push_back({{r.x0, r.y0 - 0.5, r.x1, r.y0 + 0.5}, true});
      out.push_back({{r.x0, r.y1 - 0.5, r.x1, r.y1 + 0.5}, true});
    }
    std::vector<size_t> partners;
    for (size_t h = 0; h < groups.size(); ++h) {
      if (h != g && StripesOfOneTable(group, groups[h], lines)) partners.push_back(h);
    }
    std::vector<Rect> bottom;
    for (const Rect& c : group.cells) {
      if (std::fabs(c.y1 - group.box.y1) <= kTol) bottom.push_back(c);
    }
    // A shaded header alone: its rows' edges bound bands; its columns are the text's. (Not a group of
    // cells holding text with a hole in it, stripes joined by a cell merged down beside them, nor a
    // header over rows ruled down its cells' sides.)
    const bool joined_stripes = JoinedStripes(group) && TilesHoldingText(group, lines) >= 2;
    if (partners.empty() && !joined_stripes && !InnerSidesRuledUnder(group, rules) &&
        RowsCarryOnUnder(group.box, bottom, lines))
      continue;
    for (const Rect& r : group.cells) {
      vertical(r.x0, r.y0, r.y1);
      vertical(r.x1, r.y0, r.y1);
    }
    // Stripes of one table: a side both have is a column's, across the unshaded rows between them too,
    // and under the last stripe (or under stripes joined by a merged cell) down to a rule across the
    // table (its frame) within three rows.
    if ((!partners.empty() && partners.back() < g) || (partners.empty() && joined_stripes)) {
      double foot = -1;
      for (const RulingSegment& r : rules) {
        const double y = r.box.cy();
        if (r.horizontal && r.box.x0 <= group.box.x0 + kTol && r.box.x1 >= group.box.x1 - kTol &&
            y > group.box.y1 + kTol && y <= group.box.y1 + 3 * group.row_height && (foot < 0 || y < foot))
          foot = y;
      }
      for (const Rect& r : group.cells) {
        if (foot < 0) break;
        vertical(r.x0, group.box.y1, foot);
        vertical(r.x1, group.box.y1, foot);
      }
    }
    // (Not across a row set across the whole table between them: a merged cell.)
    for (size_t h : partners) {
      if (h < g) continue;
      const TileGroup& other = groups[h];
      const std::vector<std::pair<double, double>> across =
          RowsAcross(group, group.box.y1, other.box.y0, lines);
      for (const Rect& r : group.cells) {
        for (double x : {r.x0, r.x1}) {
          if (!HasSideAt(other, x)) continue;
          double from = group.box.y0;
          for (const auto& [a, b] : across) {
            vertical(x, from, a);
            from = b;
          }
          vertical(x, from, other.box.y1);
        }
      }
    }
  }
  return out;
}

namespace {

// The lines of `lines` under `top` and within the extent of `stripe`, top to bottom.
std::vector<const TextLine*> LinesUnder(const Rect& stripe, double top, const std::vector<TextLine>& lines) {
  std::vector<const TextLine*> out;
  for (const TextLine& l : lines) {
    if (l.box.y0 >= top - 1 && l.box.x0 >= stripe.x0 - kTol && l.box.x1 <= stripe.x1 + kTol)
      out.push_back(&l);
  }
  std::ranges::sort(out, {}, [](const TextLine* l) { return l->box.y0; });
  return out;
}

// The bottom of the unshaded row under the last stripe of a zebra run (`pad`: the most space the run's
// unshaded rows leave between a stripe and their first line), or none: the row's first line sits as far
// under the stripe as theirs do and holds cells in two columns (a note under the table does not), and
// the lines that follow it as close as a wrapped cell's lines, in a type as large, are the row's.
std::optional<double> RowUnderLastStripe(const Rect& stripe, double pad, const std::vector<TextLine>& lines) {
  const std::vector<const TextLine*> under = LinesUnder(stripe, stripe.y1, lines);
  if (under.empty() || under[0]->box.y0 > stripe.y1 + pad + 1) return std::nullopt;
  size_t cells = 0;
  for (const TextLine* l : under) {
    if (VerticalOverlap(l->box, under[0]->box) > 0.5) cells += SplitAtColumnGaps(*l).size();
  }
  if (cells < 2) return std::nullopt;
  double bottom = under[0]->box.y1;
  for (const TextLine* l : under) {
    if (l->box.y0 > bottom + 0.2 * l->box.height() || l->font_size < 0.9 * under[0]->font_size ||
        l->box.y1 > stripe.y1 + kMaxStripeHeight)
      break;
    bottom = std::max(bottom, l->box.y1);
  }
  return bottom + 1;
}

}  // namespace

std::vector<RulingSegment> ShadedRowEdges(const std::vector<Rect>& fills, const std::vector<TextLine>& lines,
                                          const Rect& page) {
  std::vector<Rect> rows;  // row-shaped fills, top to bottom
  for (const Rect& f : fills) {
    if (f.width() >= 0.15 * page.width() && f.height() <= kMaxStripeHeight) rows.push_back(f);
  }
  std::sort(rows.begin(), rows.end(), [](const Rect& a, const Rect& b) { return a.y0 < b.y0; });
  // Stripes of the same extent a row or two apart (zebra rows): next[i] is the stripe after row i in its
  // run. (Rows start in order: the neighbours within reach are few.)
  std::vector<size_t> next(rows.size(), SIZE_MAX);
  std::vector<bool> striped(rows.size(), false);
  for (size_t i = 0; i < rows.size(); ++i) {
    for (size_t j = i + 1; j < rows.size() && rows[j].y0 <= rows[i].y1 + 2 * kMaxStripeHeight; ++j) {
      const Rect& f = rows[i];
      const Rect& g = rows[j];
      if (std::fabs(g.x0 - f.x0) > kTol || std::fabs(g.x1 - f.x1) > kTol) continue;
      const double gap = g.y0 - f.y1;
      if (gap >= -kTol && gap <= 2 * std::max(f.height(), g.height())) {
        striped[i] = striped[j] = true;
        next[i] = j;
        break;
      }
    }
  }
  std::vector<RulingSegment> out;
  auto edge = [&](double y, const Rect& r) { out.push_back({{r.x0, y - 0.5, r.x1, y + 0.5}, true}); };
  for (size_t i = 0; i < rows.size(); ++i) {
    if (!striped[i] && rows[i].height() > kMaxShadedRowHeight) continue;
    edge(rows[i].y0, rows[i]);
    edge(rows[i].y1, rows[i]);
  }
  // Under each zebra run's last stripe, its last row when unshaded.
  std::vector<bool> has_prev(rows.size(), false);
  for (size_t i = 0; i < rows.size(); ++i) {
    if (next[i] != SIZE_MAX) has_prev[next[i]] = true;
  }
  for (size_t first = 0; first < rows.size(); ++first) {
    if (!striped[first] || has_prev[first]) continue;
    double pad = -1;
    size_t last = first;
    for (; next[last] != SIZE_MAX; last = next[last]) {
      const std::vector<const TextLine*> under = LinesUnder(rows[last], rows[last].y1, lines);
      if (!under.empty() && under[0]->box.y1 <= rows[next[last]].y0 + 1)
        pad = std::max(pad, under[0]->box.y0 - rows[last].y1);
    }
    if (pad < 0) continue;
    if (std::optional<double> bottom = RowUnderLastStripe(rows[last], pad, lines)) edge(*bottom, rows[last]);
  }
  return out;
}

std::vector<RuledTable> FindRuledTables(const std::vector<RulingSegment>& rules,
                                        const std::vector<TextLine>& lines) {
  std::vector<Seg> hs, vs;
  for (size_t i = 0; i < rules.size() && i < kMaxRules; ++i) {
    const Rect& r = rules[i].box;
    if (rules[i].horizontal) {
      hs.push_back({r.cy(), r.x0, r.x1});
    } else {
      vs.push_back({r.cx(), r.y0, r.y1});
    }
  }
  hs = MergeSegments(std::move(hs));
  vs = MergeSegments(std::move(vs));
  if (hs.size() < 2 || vs.size() < 2) return {};

  // Components of crossing rules.
  UnionFind uf(hs.size() + vs.size());
  for (size_t i = 0; i < hs.size(); ++i) {
    for (size_t j = 0; j < vs.size(); ++j) {
      const Seg& h = hs[i];
      const Seg& v = vs[j];
      if (v.pos >= h.a - kTol && v.pos <= h.b + kTol && h.pos >= v.a - kTol && h.pos <= v.b + kTol) {
        uf.Join(i, hs.size() + j);
      }
    }
  }
  std::vector<RuledTable> tables;
  std::vector<bool> line_used(lines.size(), false);
  std::vector<bool> done(hs.size() + vs.size(), false);
  for (size_t root_seed = 0; root_seed < hs.size(); ++root_seed) {
    size_t root = uf.Find(root_seed);
    if (done[root]) continue;
    done[root] = true;
    std::vector<Seg> ch, cv;
    for (size_t i = 0; i < hs.size(); ++i) {
      if (uf.Find(i) == root) ch.push_back(hs[i]);
    }
    for (size_t j = 0; j < vs.size(); ++j) {
      if (uf.Find(hs.size() + j) == root) cv.push_back(vs[j]);
    }
    if (ch.size() < 2 || cv.empty()) continue;
    std::vector<double> ys, xs;
    for (const Seg& s : ch) ys.push_back(s.pos);
    for (const Seg& s : cv) xs.push_back(s.pos);
    ys = ClusterPositions(std::move(ys));
    xs = ClusterPositions(std::move(xs));
    size_t drawn = xs.size() + ys.size();
    ExtendOpenSides(ch, xs);
    ExtendOpenSides(cv, ys);
    // Open sides only for a grid of rows (a divider crossed by a header and a footer rule is no table).
    if (xs.size() < 2 || ys.size() < 2 || (xs.size() + ys.size() > drawn && ys.size() < 3)) continue;
    // Header rows over the grid's top edge: their cells part wherever none reaches across a column's side.
    const double grid_top = ys.front();
    const std::vector<double> header_tops =
        HeaderRowsAbove(lines, line_used, xs.front(), xs.back(), grid_top);
    for (double top : header_tops) ys.insert(ys.begin(), top);
    // The lines inside the grid, with their cells set apart by whitespace; columns they leave gutters in.
    const Rect box{xs.front(), ys.front(), xs.back(), ys.back()};
    std::vector<size_t> inside;
    std::vector<std::vector<AlignedPiece>> pieces;
    for (size_t li = 0; li < lines.size(); ++li) {
      if (line_used[li] || !box.ContainsCenterOf(lines[li].box, 1)) continue;
      inside.push_back(li);
      pieces.push_back(SplitAtColumnGaps(lines[li]));
    }
    const std::vector<Baseline> baselines = BaselineCells(lines, inside, pieces);
    const std::vector<double> unruled = UnruledColumnBounds(baselines, xs);
    const std::vector<double> drawn_xs = xs;
    if ((!unruled.empty() && RowsUnruled(baselines, ys)) || RowsOfFigures(baselines, ys, xs)) continue;
    std::vector<double> unruled_rows =
        unruled.empty() ? UnruledRowBounds(baselines, ys, xs) : std::vector<double>{};
    if (unruled.empty() && unruled_rows.empty()) unruled_rows = FullRowBounds(baselines, ys, xs);
    xs.insert(xs.end(), unruled.begin(), unruled.end());
    std::sort(xs.begin(), xs.end());
    ys.insert(ys.end(), unruled_rows.begin(), unruled_rows.end());
    std::sort(ys.begin(), ys.end());
    int rows = static_cast<int>(ys.size()) - 1;
    int cols = static_cast<int>(xs.size()) - 1;
    if (rows < 1 || cols < 1 || rows * cols < 2 || rows * cols > kMaxCells) continue;

    // The cells of the lines in each row of the grid, where gutters of whitespace part its columns.
    std::vector<std::vector<AlignedPiece>> row_cells(static_cast<size_t>(rows));
    std::vector<std::vector<Baseline>> row_lines(static_cast<size_t>(rows));  // each line's, by itself
    std::vector<std::vector<std::pair<double, double>>> row_words(static_cast<size_t>(rows));  // words' spans
    for (size_t k = 0; k < inside.size(); ++k) {
      const long r = std::upper_bound(ys.begin(), ys.end(), lines[inside[k]].box.cy()) - ys.begin() - 1;
      const size_t row_index = static_cast<size_t>(std::clamp(r, 0L, static_cast<long>(rows) - 1));
      row_cells[row_index].insert(row_cells[row_index].end(), pieces[k].begin(), pieces[k].end());
      row_lines[row_index].push_back({lines[inside[k]].box.cy(), pieces[k]});
      for (const LineWord& w : WordsOf(lines[inside[k]], -1e18, 1e18))
        row_words[row_index].push_back({w.x0, w.x1});
    }
    // Merge cells whose shared boundary is not drawn (a gutter of whitespace is, where no cell crosses it).
    auto cell = [&](int r, int c) { return static_cast<size_t>(r * cols + c); };
    std::vector<int> ruled_rows(xs.size(), 0);  // the rows each column side is drawn in
    for (size_t i = 0; i < xs.size(); ++i) {
      for (int k = 0; k < rows; ++k) ruled_rows[i] += Covered(cv, xs[i], (ys[k] + ys[k + 1]) / 2);
    }
    // (The first two rows, over the first row of figures: groups' names part no columns of their runs,
    // whatever a style's cell shading draws between them.)
    std::vector<std::vector<bool>> in_group_name(static_cast<size_t>(rows));
    for (int r = 0; r + 1 < rows && r < 2; ++r) {
      const std::vector<AlignedPiece>& row = row_cells[static_cast<size_t>(r)];
      if (std::ranges::any_of(
              row, [](const AlignedPiece& p) { return IsNumericCell(p.text) && !IsYearLike(p.text); }))
        break;
      std::vector<bool> drawn, merged;  // (over the grid, none)
      for (int c = 0; ys[r] >= grid_top && c < cols; ++c) {
        drawn.push_back(Covered(cv, xs[c + 1], (ys[r] + ys[r + 1]) / 2));
        merged.push_back(!drawn.back() && std::ranges::find(drawn_xs, xs[c + 1]) != drawn_xs.end());
      }
      in_group_name[static_cast<size_t>(r)] = InsideGroupNames(
          row, row_cells[static_cast<size_t>(r) + 1], xs, drawn, merged, row_words[static_cast<size_t>(r)]);
    }
    auto bounded = [&](int r, int c) {  // whether the boundary right of column c is there in row r
      const std::vector<bool>& named = in_group_name[static_cast<size_t>(r)];
      if (static_cast<size_t>(c) < named.size() && named[static_cast<size_t>(c)]) return false;
      const double x = xs[c + 1];
      if (std::find(unruled.begin(), unruled.end(), x) != unruled.end()) {
        const auto b = std::upper_bound(drawn_xs.begin(), drawn_xs.end(), x);
        return GutterParts(row_cells[static_cast<size_t>(r)], x, *(b - 1), *b);
      }
      if (Covered(cv, x, (ys[r] + ys[r + 1]) / 2)) return true;
      if (ys[r] < grid_top) {
        return std::ranges::none_of(row_cells[static_cast<size_t>(r)],
                                    [&](const AlignedPiece& p) { return p.x0 < x && p.x1 > x; });
      }
      // A column's rule drawn in a third of the rows or more but left out of this one (a style's banded
      // rows): the row's cells still part there when none reaches across it and both columns beside it hold
      // one.
      const int drawn_rows = ruled_rows[static_cast<size_t>(c) + 1];
      return drawn_rows >= 2 && 3 * drawn_rows >= rows &&
             PartedAt(row_cells[static_cast<size_t>(r)], xs[c], x, xs[c + 2]);
    };
    UnionFind cells(static_cast<size_t>(rows * cols));
    for (int r = 0; r < rows; ++r) {
      for (int c = 0; c < cols; ++c) {
        double xmid = (xs[c] + xs[c + 1]) / 2;
        if (c + 1 < cols && !bounded(r, c)) cells.Join(cell(r, c), cell(r, c + 1));
        if (r + 1 < rows && !Covered(ch, ys[r + 1], xmid) &&
            std::ranges::find(unruled_rows, ys[r + 1]) == unruled_rows.end() &&
            std::ranges::find(header_tops, ys[r + 1]) == header_tops.end() &&
            !(c == 0 && RuledButTheFirstColumn(ch, xs, ys[r + 1]) &&
              StartsAnotherCell(row_lines, static_cast<size_t>(r), xs)))
          cells.Join(cell(r, c), cell(r + 1, c));
      }
    }
    struct Span {
      int r0 = 1 << 30, c0 = 1 << 30, r1 = -1, c1 = -1, count = 0;
    };
    std::vector<Span> spans(static_cast<size_t>(rows * cols));
    for (int r = 0; r < rows; ++r) {
      for (int c = 0; c < cols; ++c) {
        Span& s = spans[cells.Find(cell(r, c))];
        s.r0 = std::min(s.r0, r);
        s.c0 = std::min(s.c0, c);
        s.r1 = std::max(s.r1, r);
        s.c1 = std::max(s.c1, c);
        ++s.count;
      }
    }
    // A merged group that is not a rectangle is split back into single cells.
    std::vector<size_t> owner(static_cast<size_t>(rows * cols));
    for (int r = 0; r < rows; ++r) {
      for (int c = 0; c < cols; ++c) {
        size_t g = cells.Find(cell(r, c));
        const Span& s = spans[g];
        bool rect = s.count == (s.r1 - s.r0 + 1) * (s.c1 - s.c0 + 1);
        owner[cell(r, c)] = rect ? cell(s.r0, s.c0) : cell(r, c);
      }
    }

    // Words into cells, line by line (lines are in reading order top to bottom).
    std::vector<std::vector<std::string>> text(static_cast<size_t>(rows * cols));
    RuledTable table;
    table.box = box;
    table.num_rows = rows;
    table.num_cols = cols;
    int words = 0, split_words = 0;
    for (size_t li : inside) {
      line_used[li] = true;
      table.line_indices.push_back(li);
      WordsIntoCells(
          lines[li],
          [&](const TextChar& ch) {
            const int c =
                static_cast<int>(std::upper_bound(xs.begin(), xs.end(), ch.box.cx()) - xs.begin()) - 1;
            const int r =
                static_cast<int>(std::upper_bound(ys.begin(), ys.end(), ch.box.cy()) - ys.begin()) - 1;
            return owner[cell(std::clamp(r, 0, rows - 1), std::clamp(c, 0, cols - 1))];
          },
          text, words, split_words);
    }
    int num_cells = 0, filled_cells = 0;
    for (size_t id = 0; id < owner.size(); ++id) {
      if (owner[id] != id) continue;
      ++num_cells;
      filled_cells += !text[id].empty();
    }
    size_t code_lines = 0;
    for (size_t li : table.line_indices) code_lines += lines[li].monospace;
    if (!LooksLikeTable(
            {num_cells, filled_cells, words, split_words, cols, table.line_indices.size(), code_lines})) {
      for (size_t li : table.line_indices) line_used[li] = false;
      continue;
    }
    // On a right-to-left page a row's first cell is its rightmost (a spanning cell comes where its
    // leftmost column is met).
    size_t rtl_lines = 0;
    for (size_t li : table.line_indices) rtl_lines += lines[li].rtl;
    const bool rtl = rtl_lines * 2 > table.line_indices.size();
    std::string html = "<table>";
    for (int r = 0; r < rows; ++r) {
      html += "<tr>";
      for (int k = 0; k < cols; ++k) {
        const int c = rtl ? cols - 1 - k : k;
        size_t id = cell(r, c);
        if (owner[id] != id) continue;
        const Span& s = spans[cells.Find(id)];
        bool rect = s.count == (s.r1 - s.r0 + 1) * (s.c1 - s.c0 + 1);
        int rowspan = rect ? s.r1 - s.r0 + 1 : 1;
        int colspan = rect ? s.c1 - s.c0 + 1 : 1;
        html += "<td";
        if (rowspan > 1) html += " rowspan=\"" + std::to_string(rowspan) + "\"";
        if (colspan > 1) html += " colspan=\"" + std::to_string(colspan) + "\"";
        html += ">";
        AppendEscaped(html, CellText(text[id]));
        html += "</td>";
      }
      html += "</tr>";
    }
    html += "</table>";
    table.html = std::move(html);
    tables.push_back(std::move(table));
  }
  return tables;
}

}  // namespace mineru::document
