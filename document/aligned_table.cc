#include "document/aligned_table.h"

#include <algorithm>
#include <cmath>
#include <string_view>

namespace mineru::document {
namespace {

constexpr size_t kMinRows = 3;
constexpr size_t kMaxCellChars = 40;
constexpr size_t kMaxMeanCellChars = 20;
constexpr double kColumnGapEm =
    1.0;  // a gap this wide (in the line's size) inside one text line splits cells
constexpr size_t kMaxColumns = 100;
constexpr double kMinGutter = 1.5;  // points: no cell of any row inside it

// A cell's text as set on the page: a line, or a piece of one set apart from the rest by a wide gap.
struct Piece {
  size_t line;
  double x0, x1;
  std::string text;
};

struct Row {
  std::vector<Piece> pieces;  // left to right
  Rect box;
};

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

// "1,234", "-5.6", "12%", "$3", "(4)": digits with number punctuation only.
bool IsNumeric(const std::string& text) {
  int digits = 0;
  for (char c : text) {
    if (c >= '0' && c <= '9') {
      ++digits;
    } else if (std::string_view(" .,-+%$()/:").find(c) == std::string_view::npos) {
      return false;
    }
  }
  return digits > 0;
}

}  // namespace

std::vector<AlignedPiece> SplitAtColumnGaps(const TextLine& line) {
  // Characters in logical order run leftwards on a right-to-left line: it stays whole.
  if (line.rtl) return {{line.box.x0, line.box.x1, line.text}};
  std::vector<AlignedPiece> out;
  double size = line.font_size > 0 ? line.font_size : line.box.height();
  double gap = kColumnGapEm * std::max(size, 1.0);
  double last_x1 = 0;
  std::string pending_spaces;
  for (const TextChar& ch : line.chars) {
    if (ch.rune == ' ') {
      if (!out.empty()) pending_spaces.push_back(' ');
      continue;
    }
    if (out.empty() || ch.box.x0 - last_x1 >= gap) {
      out.push_back({ch.box.x0, ch.box.x1, {}});
    } else {
      out.back().text += pending_spaces;
    }
    pending_spaces.clear();
    AppendUtf8(out.back().text, ch.rune);
    out.back().x1 = std::max(out.back().x1, ch.box.x1);
    last_x1 = ch.box.x1;
  }
  if (out.empty() || out.size() == 1) return {{line.box.x0, line.box.x1, line.text}};
  return out;
}

std::vector<std::pair<double, double>> FindColumnGutters(const std::vector<std::vector<AlignedPiece>>& rows) {
  // Elementary x intervals between piece ends, each with the number of rows that cover it.
  std::vector<double> xs;
  for (const auto& row : rows) {
    for (const AlignedPiece& p : row) {
      xs.push_back(p.x0);
      xs.push_back(p.x1);
    }
  }
  if (xs.size() < 4) return {};
  std::sort(xs.begin(), xs.end());
  xs.erase(std::unique(xs.begin(), xs.end()), xs.end());
  // A header cell over two columns crosses their gutter: a quarter of the rows (of four or more) may.
  size_t allowed = rows.size() >= 4 ? rows.size() / 4 : 0;
  // Rows covering each interval: per row, its pieces' index ranges merged, added to a difference array.
  std::vector<long> diff(xs.size(), 0);
  auto index_of = [&](double x) {
    return static_cast<size_t>(std::lower_bound(xs.begin(), xs.end(), x) - xs.begin());
  };
  for (const auto& row : rows) {
    std::vector<std::pair<size_t, size_t>> ranges;
    for (const AlignedPiece& p : row) ranges.push_back({index_of(p.x0), index_of(p.x1)});
    std::sort(ranges.begin(), ranges.end());
    size_t open = 0, close = 0;
    bool any = false;
    for (const auto& [a, b] : ranges) {
      if (any && a <= close) {
        close = std::max(close, b);
        continue;
      }
      if (any) ++diff[open], --diff[close];
      open = a;
      close = b;
      any = true;
    }
    if (any) ++diff[open], --diff[close];
  }
  std::vector<size_t> covering(xs.size() - 1, 0);
  long running = 0;
  for (size_t i = 0; i + 1 < xs.size(); ++i) {
    running += diff[i];
    covering[i] = static_cast<size_t>(std::max(running, 0L));
  }
  // Runs of intervals crossed by few rows; within each, the part crossed by fewest (when wide enough) is
  // the gutter, so that a long value reaching into it is not read as crossing into the next column.
  std::vector<std::pair<double, double>> gutters;
  for (size_t i = 0; i < covering.size();) {
    if (covering[i] > allowed) {
      ++i;
      continue;
    }
    size_t j = i;
    size_t least = covering[i];
    while (j < covering.size() && covering[j] <= allowed) least = std::min(least, covering[j++]);
    std::pair<double, double> gutter{xs[i], xs[j]}, best{0, 0};
    for (size_t k = i; k < j;) {
      if (covering[k] != least) {
        ++k;
        continue;
      }
      size_t m = k;
      while (m < j && covering[m] == least) ++m;
      if (xs[m] - xs[k] > best.second - best.first) best = {xs[k], xs[m]};
      k = m;
    }
    gutters.push_back(best.second - best.first >= kMinGutter ? best : gutter);
    i = j;
  }
  std::erase_if(gutters, [](const auto& g) { return g.second - g.first < kMinGutter; });
  if (gutters.size() >= kMaxColumns) return {};  // no table: a hostile page's scattered glyphs
  // Each column between gutters holds pieces of its own (at least two not spanning into a neighbour): a
  // column of short values beside a few long ones is one column, not two.
  for (bool changed = true; changed && !gutters.empty();) {
    changed = false;
    for (size_t g = 0; g <= gutters.size(); ++g) {
      double lo = g == 0 ? -1e9 : gutters[g - 1].second;
      double hi = g == gutters.size() ? 1e9 : gutters[g].first;
      int inside = 0;
      for (const auto& row : rows) {
        for (const AlignedPiece& p : row) inside += p.x0 >= lo - 0.5 && p.x1 <= hi + 0.5;
      }
      if (inside >= 2) continue;
      // Drop the narrower of the gutters around this column.
      size_t drop =
          g == 0 ? 0
          : g == gutters.size()
              ? g - 1
              : (gutters[g - 1].second - gutters[g - 1].first < gutters[g].second - gutters[g].first ? g - 1
                                                                                                     : g);
      gutters.erase(gutters.begin() + static_cast<std::ptrdiff_t>(drop));
      changed = true;
      break;
    }
  }
  return gutters;
}

namespace {

// The grid of rows [begin, end) split by `gutters`. With `join_wrapped`, a row that leaves the first
// column empty and fills at most half as many columns as the row above continues that row's cells (text
// wrapped inside its cells).
RuledTable EmitTable(const std::vector<Row>& rows, size_t begin, size_t end,
                     const std::vector<std::pair<double, double>>& gutters, bool join_wrapped) {
  size_t num_cols = gutters.size() + 1;
  auto column_of = [&](double x) {
    size_t c = 0;
    while (c < gutters.size() && x > (gutters[c].first + gutters[c].second) / 2) ++c;
    return c;
  };
  struct GridRow {
    std::vector<std::string> cells;
    std::vector<size_t> span, owner;
  };
  std::vector<GridRow> grid;
  RuledTable table;
  table.num_cols = static_cast<int>(num_cols);
  for (size_t r = begin; r < end; ++r) {
    GridRow row{std::vector<std::string>(num_cols), std::vector<size_t>(num_cols, 0),
                std::vector<size_t>(num_cols, SIZE_MAX)};
    for (const Piece& p : rows[r].pieces) {
      size_t c0 = column_of(p.x0), c1 = column_of(p.x1);
      // The free columns under the piece (a neighbour may already hold the first of them).
      while (c0 < c1 && row.owner[c0] != SIZE_MAX) ++c0;
      while (c1 > c0 && row.owner[c1] != SIZE_MAX) --c1;
      bool free = true;
      for (size_t c = c0; c <= c1; ++c) free = free && row.owner[c] == SIZE_MAX;
      if (!free) c0 = c1 = row.owner[c0];
      if (free) {
        for (size_t c = c0; c <= c1; ++c) row.owner[c] = c0;
        row.span[c0] = c1 - c0 + 1;
      }
      if (!row.cells[c0].empty()) row.cells[c0].push_back(' ');
      row.cells[c0] += p.text;
      if (std::find(table.line_indices.begin(), table.line_indices.end(), p.line) == table.line_indices.end())
        table.line_indices.push_back(p.line);
    }
    table.box = table.box.Union(rows[r].box);
    auto filled = [](const GridRow& g) {
      size_t n = 0;
      for (const std::string& c : g.cells) n += !c.empty();
      return n;
    };
    if (join_wrapped && !grid.empty() && row.cells[0].empty() && !grid.back().cells[0].empty() &&
        filled(row) * 2 <= std::max<size_t>(filled(grid.back()), 2)) {
      GridRow& above = grid.back();
      for (size_t c = 0; c < num_cols; ++c) {
        if (row.cells[c].empty()) continue;
        size_t into = above.owner[c] != SIZE_MAX ? above.owner[c] : c;
        if (above.owner[c] == SIZE_MAX) {
          above.owner[c] = c;
          above.span[c] = 1;
        }
        if (!above.cells[into].empty()) above.cells[into].push_back(' ');
        above.cells[into] += row.cells[c];
      }
      continue;
    }
    grid.push_back(std::move(row));
  }
  table.num_rows = static_cast<int>(grid.size());
  std::string html = "<table>";
  for (const GridRow& row : grid) {
    html += "<tr>";
    for (size_t c = 0; c < num_cols; ++c) {
      if (row.owner[c] != SIZE_MAX && row.owner[c] != c) continue;
      html += row.span[c] > 1 ? "<td colspan=\"" + std::to_string(row.span[c]) + "\">" : std::string("<td>");
      AppendEscaped(html, row.cells[c]);
      html += "</td>";
    }
    html += "</tr>";
  }
  html += "</table>";
  table.html = std::move(html);
  return table;
}

// Emits a table for rows [begin, end) when their cells fall into >= 2 consistent columns; a cell across a
// column gutter spans those columns (a header over two columns).
void TryTable(const std::vector<Row>& rows, size_t begin, size_t end, std::vector<RuledTable>& out) {
  if (end - begin < kMinRows) return;
  std::vector<std::vector<AlignedPiece>> spans;
  for (size_t r = begin; r < end; ++r) {
    spans.emplace_back();
    for (const Piece& p : rows[r].pieces) spans.back().push_back({p.x0, p.x1, {}});
  }
  std::vector<std::pair<double, double>> gutters = FindColumnGutters(spans);
  size_t num_cols = gutters.size() + 1;
  if (num_cols < 2) return;
  // Most rows must fill at least two columns.
  size_t full = 0;
  for (size_t r = begin; r < end; ++r) full += rows[r].pieces.size() >= 2;
  if (full * 4 < (end - begin) * 3) return;
  // Cells of tables are short: numbers, names, labels. Narrow columns of prose have longer lines.
  size_t chars = 0, count = 0;
  for (size_t r = begin; r < end; ++r) {
    for (const Piece& p : rows[r].pieces) {
      chars += p.text.size();
      ++count;
    }
  }
  if (count == 0 || chars > kMaxMeanCellChars * count) return;
  auto column_of = [&](double x) {
    size_t c = 0;
    while (c < gutters.size() && x > (gutters[c].first + gutters[c].second) / 2) ++c;
    return c;
  };
  // Without rules, only numbers make the grid unmistakable: some column must be mostly numeric.
  std::vector<size_t> numeric(num_cols, 0), filled(num_cols, 0);
  for (size_t r = begin; r < end; ++r) {
    for (const Piece& p : rows[r].pieces) {
      size_t c0 = column_of(p.x0), c1 = column_of(p.x1);
      if (c0 != c1) continue;  // a spanning cell
      ++filled[c0];
      numeric[c0] += IsNumeric(p.text);
    }
  }
  bool has_numeric_column = false;
  for (size_t c = 0; c < num_cols; ++c) {
    has_numeric_column = has_numeric_column || (filled[c] >= kMinRows && numeric[c] * 10 >= filled[c] * 6);
  }
  if (!has_numeric_column) return;
  out.push_back(EmitTable(rows, begin, end, gutters, false));
}

// Rows: lines (not `used`) sharing a baseline band, top to bottom, each cut into pieces left to right.
std::vector<Row> BuildRows(const std::vector<TextLine>& lines, const std::vector<bool>& used) {
  std::vector<size_t> order;
  for (size_t i = 0; i < lines.size(); ++i) {
    if (!used[i]) order.push_back(i);
  }
  std::sort(order.begin(), order.end(),
            [&](size_t a, size_t b) { return lines[a].box.cy() < lines[b].box.cy(); });
  std::vector<Row> rows;
  for (size_t li : order) {
    const Rect& b = lines[li].box;
    if (rows.empty() || VerticalOverlap(rows.back().box, b) <= 0.5) rows.push_back({{}, b});
    rows.back().box = rows.back().box.Union(b);
    for (AlignedPiece& p : SplitAtColumnGaps(lines[li]))
      rows.back().pieces.push_back({li, p.x0, p.x1, std::move(p.text)});
  }
  for (Row& row : rows) {
    std::sort(row.pieces.begin(), row.pieces.end(),
              [](const Piece& a, const Piece& b) { return a.x0 < b.x0; });
  }
  return rows;
}

}  // namespace

std::vector<RuledTable> FindAlignedTables(const std::vector<TextLine>& lines, const std::vector<bool>& used,
                                          const Rect& page) {
  std::vector<Row> rows = BuildRows(lines, used);
  auto short_row = [&](const Row& row) {
    for (const Piece& p : row.pieces) {
      if (p.text.size() > kMaxCellChars || p.x1 - p.x0 > 0.3 * page.width()) return false;
    }
    return true;
  };
  // Runs of consecutive short rows with at most a line and a half of space between them; a run starts
  // and continues only on rows of two or more cells (single-cell rows may sit inside it).
  std::vector<RuledTable> out;
  size_t begin = 0;
  while (begin < rows.size()) {
    if (rows[begin].pieces.size() < 2 || !short_row(rows[begin])) {
      ++begin;
      continue;
    }
    size_t end = begin + 1;
    while (end < rows.size() && short_row(rows[end])) {
      double h = std::max(rows[end - 1].box.height(), 1.0);
      if (rows[end].box.y0 - rows[end - 1].box.y1 > 1.5 * h) break;
      ++end;
    }
    while (end > begin + 1 && rows[end - 1].pieces.size() < 2) --end;  // no trailing single-cell rows
    TryTable(rows, begin, end, out);
    begin = end;
  }
  return out;
}

std::vector<RuledTable> FindRuleBandTables(const std::vector<RulingSegment>& rules,
                                           const std::vector<TextLine>& lines, const std::vector<bool>& used,
                                           const std::vector<Rect>& images, const Rect& page) {
  constexpr double kTol = 4;  // points: rules of one table start and end together within this
  std::vector<Rect> hs;
  for (const RulingSegment& r : rules) {
    if (r.horizontal && r.box.width() >= 0.15 * page.width()) hs.push_back(r.box);
  }
  std::sort(hs.begin(), hs.end(), [](const Rect& a, const Rect& b) { return a.cy() < b.cy(); });
  std::vector<RuledTable> out;
  std::vector<bool> taken(lines.size(), false);
  std::vector<bool> rule_done(hs.size(), false);
  for (size_t i = 0; i < hs.size() && i < 400; ++i) {
    if (rule_done[i]) continue;
    // Rules of the same extent below this one, a rule drawn twice (or thick, as two) counted once.
    std::vector<Rect> stack = {hs[i]};
    for (size_t j = i + 1; j < hs.size() && j < 400; ++j) {
      if (std::fabs(hs[j].x0 - hs[i].x0) > kTol || std::fabs(hs[j].x1 - hs[i].x1) > kTol) continue;
      rule_done[j] = true;
      if (hs[j].cy() - stack.back().cy() > kTol) stack.push_back(hs[j]);
    }
    // Bands between consecutive rules; a table is a run of bands whose rows are all short cells.
    std::vector<bool> band_used = used;
    for (size_t li = 0; li < lines.size(); ++li) band_used[li] = band_used[li] || taken[li];
    size_t first = 0;
    while (first + 1 < stack.size()) {
      size_t last = first;
      std::vector<bool> in_table(lines.size(), true);
      size_t multi = 0, num_rows = 0;
      for (size_t k = first; k + 1 < stack.size(); ++k) {
        Rect band{stack[k].x0 - kTol, stack[k].cy(), stack[k].x1 + kTol, stack[k + 1].cy()};
        std::vector<bool> outside(lines.size(), true);
        size_t count = 0;
        for (size_t li = 0; li < lines.size(); ++li) {
          if (band_used[li] || !band.ContainsCenterOf(lines[li].box, 0)) continue;
          if (lines[li].box.x0 < band.x0 || lines[li].box.x1 > band.x1) continue;
          outside[li] = false;
          ++count;
        }
        if (count == 0) break;
        std::vector<Row> band_rows = BuildRows(lines, outside);
        bool band_short = true;
        for (const Row& row : band_rows) {
          for (const Piece& p : row.pieces) band_short = band_short && p.text.size() <= 2 * kMaxCellChars;
          multi += row.pieces.size() >= 2;
        }
        if (!band_short) break;
        num_rows += band_rows.size();
        for (size_t li = 0; li < lines.size(); ++li) in_table[li] = in_table[li] && outside[li];
        last = k + 1;
      }
      Rect region{stack[first].x0, stack[first].cy(), stack[first].x1, stack[last].cy()};
      // Rules across and down (a grid) are FindRuledTables' to read; labels over a picture are its own.
      bool clear = last > first;
      for (const RulingSegment& r : rules) {
        clear = clear && (r.horizontal || !region.ContainsCenterOf(r.box, 0));
      }
      for (const Rect& image : images) clear = clear && image.Intersect(region).area() < 0.2 * region.area();
      if (clear && num_rows >= 2 && multi * 2 >= num_rows) {
        std::vector<Row> table_rows = BuildRows(lines, in_table);
        std::vector<std::vector<AlignedPiece>> spans;
        size_t chars = 0, pieces = 0;
        for (const Row& row : table_rows) {
          spans.emplace_back();
          for (const Piece& p : row.pieces) {
            spans.back().push_back({p.x0, p.x1, {}});
            chars += p.text.size();
            ++pieces;
          }
        }
        std::vector<std::pair<double, double>> gutters = FindColumnGutters(spans);
        if (!gutters.empty() && chars <= kMaxCellChars * pieces) {
          RuledTable table = EmitTable(table_rows, 0, table_rows.size(), gutters, true);
          table.box =
              table.box.Union({stack[first].x0, stack[first].cy(), stack[first].x1, stack[last].cy()});
          for (size_t li : table.line_indices) taken[li] = true;
          out.push_back(std::move(table));
        }
      }
      first = std::max(last, first + 1);
    }
  }
  return out;
}

}  // namespace mineru::document
