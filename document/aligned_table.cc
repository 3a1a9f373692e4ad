#include "document/aligned_table.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <string_view>

#include "document/aligned_rows.h"
#include "document/text_layout.h"
#include "document/word_gutters.h"

namespace mineru::document {
namespace {

constexpr size_t kMaxMeanCellChars = 20;
constexpr size_t kMaxLabelChars = 80;         // a row's first cell (a label) may be longer than the others
constexpr size_t kMaxDescriptionChars = 200;  // a description column's line between rules, at most
constexpr double kMinDescriptionIndent = 20;  // points right of the first column's left edge
constexpr double kColumnGapEm =
    1.0;  // a gap this wide (in the line's size) inside one text line splits cells
constexpr double kNumberGapEm = 0.5;   // between two numbers, half of it does
constexpr double kAlignedGapEm = 0.2;  // before a figure in a column's line, a space (PartAlignedFigures)
constexpr double kGutterGapEm = 0.6;   // and inside a gutter of the table's columns, this (SplitAtGutters)
constexpr size_t kMaxColumns = 100;
constexpr double kMinGutter = 1.5;         // points: no cell of any row inside it
constexpr size_t kMaxHeaderRowsAbove = 2;  // header rows over the columns taken above a table's rows
constexpr double kItemGapEm = 2;           // a list's bullet stands this close before its item, at most

using Piece = RowPiece;
using Row = TextRow;

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

// A figure with thousands separators ("29,760,021"): two of them side by side are two cells however
// tight their columns are.
bool Grouped(const std::string& text) {
  return IsNumericCell(text) && text.find(',') != std::string::npos && text.find(' ') == std::string::npos;
}

// The pieces of a right-to-left line. Its characters are in logical order, which runs leftwards and left
// to right again inside numbers and Latin words, so the gaps are found between its glyphs taken by x;
// each piece gets the characters that stand in it, in logical order.
std::vector<AlignedPiece> SplitRightToLeft(const TextLine& line, double size) {
  std::vector<Rect> glyphs;
  for (const TextChar& c : line.chars) {
    if (c.rune != ' ') glyphs.push_back(c.box);
  }
  std::sort(glyphs.begin(), glyphs.end(), [](const Rect& a, const Rect& b) { return a.x0 < b.x0; });
  // Runs of glyphs at least half a column gap apart, then the texts of runs that stand a gap apart.
  std::vector<AlignedPiece> runs;
  for (const Rect& g : glyphs) {
    if (runs.empty() || g.x0 - runs.back().x1 >= kNumberGapEm * size) {
      runs.push_back({g.x0, g.x1, {}});
    } else {
      runs.back().x1 = std::max(runs.back().x1, g.x1);
    }
  }
  auto texts = [&](std::vector<AlignedPiece>& pieces) {
    size_t last = SIZE_MAX;
    bool space = false;
    for (const TextChar& c : line.chars) {
      if (c.rune == ' ') {
        space = true;
        continue;
      }
      auto at = std::upper_bound(pieces.begin(), pieces.end(), c.box.cx(),
                                 [](double x, const AlignedPiece& p) { return x < p.x0; });
      size_t k = at == pieces.begin() ? 0 : static_cast<size_t>(at - pieces.begin()) - 1;
      if (space && k == last && !pieces[k].text.empty()) pieces[k].text.push_back(' ');
      AppendUtf8(pieces[k].text, c.rune);
      last = k;
      space = false;
    }
  };
  texts(runs);
  std::vector<AlignedPiece> out;
  for (size_t i = 0; i < runs.size(); ++i) {
    const double gap = i == 0 ? 0 : runs[i].x0 - runs[i - 1].x1;
    const bool apart = i == 0 || gap >= kColumnGapEm * size ||
                       (IsNumericCell(runs[i - 1].text) && IsNumericCell(runs[i].text));
    if (apart) {
      out.push_back({runs[i].x0, runs[i].x1, {}});
    } else {
      out.back().x1 = runs[i].x1;
    }
  }
  if (out.size() <= 1) return {{line.box.x0, line.box.x1, line.text}};
  texts(out);
  return out;
}

}  // namespace

namespace {

// The first character of a figure: a digit, a currency sign, an opening parenthesis.
bool IsFigureStart(char32_t c) {
  return (c >= '0' && c <= '9') || c == '$' || c == '(' || c == 0x20AC || c == 0x00A3 || c == 0x00A5;
}

}  // namespace

std::vector<AlignedPiece> SplitAtColumnGaps(const TextLine& line) {
  const double size = std::max(line.font_size > 0 ? line.font_size : line.box.height(), 1.0);
  if (line.rtl) return SplitRightToLeft(line, size);
  struct Word {
    double x0, x1;
    std::string text;
    std::string spaces_before;
    bool parted = false;        // after a space that parts two figures set with no gap
    bool after_leader = false;  // right after a dot leader, no space between (a figure's, or no cell)
  };
  std::vector<Word> words;
  std::string pending_spaces;
  bool parted = false;
  for (const TextChar& ch : line.chars) {
    if (ch.rune == ' ') {
      if (!words.empty()) pending_spaces.push_back(' ');
      parted = parted || ch.parts_numbers;
      continue;
    }
    // A figure right after a dot leader of four dots or more ("taxes.........898,549", a tab stop's
    // leader run up to it) is a word of its own, and a cell when the word is a figure.
    const bool after_leader =
        !words.empty() && pending_spaces.empty() && IsFigureStart(ch.rune) &&
        (words.back().text.ends_with("....") || words.back().text.ends_with("\u2026\u2026"));
    if (words.empty() || !pending_spaces.empty() || ch.box.x0 - words.back().x1 >= kColumnGapEm * size ||
        after_leader) {
      words.push_back({ch.box.x0, ch.box.x1, {}, std::move(pending_spaces), parted, after_leader});
      pending_spaces.clear();
      parted = false;
    }
    AppendUtf8(words.back().text, ch.rune);
    words.back().x1 = std::max(words.back().x1, ch.box.x1);
  }
  // Cells part at a gap of the line's size, or of half of it between two numbers (tight columns of
  // figures: "29,760,021  33,871,648"), or at any space between two figures with thousands separators;
  // never between a caption's label and its number ("图表　1：...", a full-width space after the label).
  std::vector<AlignedPiece> out;
  BlockType captioned;
  for (size_t i = 0; i < words.size(); ++i) {
    const Word& w = words[i];
    const double gap = i == 0 ? 0 : w.x0 - words[i - 1].x1;
    const bool apart =
        i == 0 ||
        (!(i == 1 && StartsCaption(words[0].text + " " + w.text, &captioned)) &&
         (w.parted || (w.after_leader && IsNumericCell(w.text)) || gap >= kColumnGapEm * size ||
          (Grouped(words[i - 1].text) && Grouped(w.text)) ||
          (gap >= kNumberGapEm * size && IsNumericCell(words[i - 1].text) && IsNumericCell(w.text))));
    if (apart) {
      out.push_back({w.x0, w.x1, w.text});
    } else {
      out.back().text += w.spaces_before + w.text;
      out.back().x1 = std::max(out.back().x1, w.x1);
    }
  }
  if (out.size() <= 1) return {{line.box.x0, line.box.x1, line.text}};
  return out;
}

namespace {

// Rows with two pieces or more inside [lo, hi].
size_t RowsWithTwoPiecesIn(const std::vector<std::vector<AlignedPiece>>& rows, double lo, double hi) {
  size_t n = 0;
  for (const auto& row : rows) {
    int inside = 0;
    for (const AlignedPiece& p : row) inside += p.x0 >= lo - 0.5 && p.x1 <= hi + 0.5;
    n += inside >= 2;
  }
  return n;
}

}  // namespace

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
  struct Run {
    size_t begin, end;
    std::vector<std::pair<double, double>> least;  // its parts crossed by fewest, each kMinGutter wide
  };
  std::vector<Run> runs;
  for (size_t i = 0; i < covering.size();) {
    if (covering[i] > allowed) {
      ++i;
      continue;
    }
    size_t j = i;
    size_t least = covering[i];
    while (j < covering.size() && covering[j] <= allowed) least = std::min(least, covering[j++]);
    Run run{i, j, {}};
    for (size_t k = i; k < j;) {
      if (covering[k] != least) {
        ++k;
        continue;
      }
      size_t m = k;
      while (m < j && covering[m] == least) ++m;
      if (xs[m] - xs[k] >= kMinGutter) run.least.push_back({xs[k], xs[m]});
      k = m;
    }
    runs.push_back(std::move(run));
    i = j;
  }
  std::vector<std::pair<double, double>> gutters;
  for (size_t r = 0; r < runs.size(); ++r) {
    const Run& run = runs[r];
    if (run.least.empty()) {
      gutters.push_back({xs[run.begin], xs[run.end]});
      continue;
    }
    // Of several such parts (a header set in the run, between a column's values and the next one's),
    // the one that leaves no row two cells in one column beside it, then the widest.
    const double left = gutters.empty() ? -1e9 : gutters.back().second;
    const double right = r + 1 < runs.size() ? xs[runs[r + 1].begin] : 1e9;
    auto crowding = [&](const std::pair<double, double>& g) {
      return RowsWithTwoPiecesIn(rows, left, g.first) + RowsWithTwoPiecesIn(rows, g.second, right);
    };
    auto better = [&](const auto& a, const auto& b) {
      size_t ca = crowding(a), cb = crowding(b);
      return ca != cb ? ca < cb : a.second - a.first > b.second - b.first;
    };
    gutters.push_back(*std::min_element(run.least.begin(), run.least.end(), better));
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

constexpr size_t kFromAbove = SIZE_MAX - 1;  // a slot under a cell that spans rows

// Which rows that leave the first column empty continue the row above (text wrapped inside its cells).
enum class Wrapped {
  kRows,       // none: each is a row
  kSparse,     // those that fill at most half as many columns as the row above
  kUnlabelled  // all of them (a table whose every row has a label)
};

// Whether row `r` of `rows` stands apart from the row above by a blank of half its height or more (rows
// padded apart, as a word processor's cells are; a cell's lines, and rows set at the line spacing, stand
// closer).
bool SetApart(const std::vector<Row>& rows, size_t begin, size_t r) {
  return r > begin && rows[r].box.y0 - rows[r - 1].box.y1 >= 0.5 * rows[r].box.height();
}

// The grid of rows [begin, end) split by `gutters`, rows without a label joined up as `wrapped` says (not
// a row set apart from the one above: a cell merged down beside it). A piece's rowspan covers the slots
// under it.
RuledTable EmitTable(const std::vector<Row>& rows, size_t begin, size_t end,
                     const std::vector<std::pair<double, double>>& gutters, Wrapped wrapped) {
  size_t num_cols = gutters.size() + 1;
  struct GridRow {
    std::vector<std::string> cells;
    std::vector<size_t> span, owner;  // owner: the column of the cell covering the slot
  };
  std::vector<GridRow> grid;
  std::vector<bool> merged_down;                // of each grid row: its first cell is the label's above
  std::vector<int> covered_below(num_cols, 0);  // rows still under a cell that spans rows
  RuledTable table;
  table.num_cols = static_cast<int>(num_cols);
  auto use_line = [&](size_t line) {
    if (std::find(table.line_indices.begin(), table.line_indices.end(), line) == table.line_indices.end())
      table.line_indices.push_back(line);
  };
  for (size_t r = begin; r < end; ++r) {
    GridRow row{std::vector<std::string>(num_cols), std::vector<size_t>(num_cols, 0),
                std::vector<size_t>(num_cols, SIZE_MAX)};
    for (size_t c = 0; c < num_cols; ++c) {
      if (covered_below[c] > 0) --covered_below[c], row.owner[c] = kFromAbove;
    }
    for (const Piece& p : rows[r].pieces) {
      size_t c0 = ColumnOf(gutters, p.x0), c1 = ColumnOf(gutters, p.x1);
      // The free columns under the piece (a neighbour may already hold the first of them).
      while (c0 < c1 && row.owner[c0] != SIZE_MAX) ++c0;
      while (c1 > c0 && row.owner[c1] != SIZE_MAX) --c1;
      bool free = true;
      for (size_t c = c0; c <= c1; ++c) free = free && row.owner[c] == SIZE_MAX;
      use_line(p.line);
      if (!free && row.owner[c0] == kFromAbove) {  // text under a spanning cell: it is that cell's
        size_t g = grid.size();
        while (g > 0 && grid[g - 1].owner[c0] == kFromAbove) --g;
        if (g > 0 && grid[g - 1].owner[c0] < kFromAbove) {
          JoinLine(grid[g - 1].cells[grid[g - 1].owner[c0]], p.text);
          continue;
        }
        c1 = c0;  // no cell above after all: the slot is free
        row.owner[c0] = SIZE_MAX;
        free = true;
      }
      if (!free) c0 = c1 = row.owner[c0];
      if (free) {
        for (size_t c = c0; c <= c1; ++c) row.owner[c] = c0;
        row.span[c0] = c1 - c0 + 1;
        for (size_t c = c0; c <= c1; ++c) covered_below[c] = std::max(covered_below[c], p.rowspan - 1);
      }
      if (!row.cells[c0].empty()) row.cells[c0].push_back(' ');
      row.cells[c0] += p.text;
    }
    for (size_t line : rows[r].joined_lines) use_line(line);
    table.box = table.box.Union(rows[r].box);
    auto filled = [](const GridRow& g) {
      size_t n = 0;
      for (const std::string& c : g.cells) n += !c.empty();
      return n;
    };
    // (Not into slots under a cell that spans rows: such a row stays a row.)
    auto under_span = [&](const GridRow& g) {
      for (size_t c = 0; c < num_cols; ++c) {
        if (g.owner[c] == kFromAbove) return true;
      }
      return false;
    };
    // (A row set apart under a label alone is its values: the label set above them.)
    const bool apart = !grid.empty() && filled(grid.back()) >= 2 && SetApart(rows, begin, r);
    if (wrapped != Wrapped::kRows && !grid.empty() && row.cells[0].empty() && !under_span(row) &&
        !under_span(grid.back()) && (!grid.back().cells[0].empty() || merged_down.back()) && !apart &&
        (wrapped == Wrapped::kUnlabelled || filled(row) * 2 <= std::max<size_t>(filled(grid.back()), 2))) {
      GridRow& above = grid.back();
      for (size_t c = 0; c < num_cols; ++c) {
        if (row.cells[c].empty()) continue;
        size_t into = above.owner[c] != SIZE_MAX ? above.owner[c] : c;
        if (above.owner[c] == SIZE_MAX) {
          above.owner[c] = c;
          above.span[c] = 1;
        }
        JoinLine(above.cells[into], row.cells[c]);
      }
      continue;
    }
    // A row set apart under a label, its own first cell empty: the label's cell is merged down beside it.
    merged_down.push_back(wrapped != Wrapped::kRows && apart && row.cells[0].empty() &&
                          row.owner[0] == SIZE_MAX && (!grid.back().cells[0].empty() || merged_down.back()));
    grid.push_back(std::move(row));
  }
  for (size_t r = 0; r < grid.size(); ++r) {
    if (merged_down[r] && grid[r].cells[0].empty()) grid[r].owner[0] = kFromAbove;
  }
  table.num_rows = static_cast<int>(grid.size());
  std::string html = "<table>";
  for (size_t r = 0; r < grid.size(); ++r) {
    const GridRow& row = grid[r];
    html += "<tr>";
    for (size_t c = 0; c < num_cols; ++c) {
      if (row.owner[c] != SIZE_MAX && row.owner[c] != c) continue;
      size_t down = 1;
      while (r + down < grid.size() && grid[r + down].owner[c] == kFromAbove) ++down;
      html += "<td";
      if (down > 1) html += " rowspan=\"" + std::to_string(down) + "\"";
      if (row.span[c] > 1) html += " colspan=\"" + std::to_string(row.span[c]) + "\"";
      html += ">";
      AppendEscaped(html, row.cells[c]);
      html += "</td>";
    }
    html += "</tr>";
  }
  html += "</table>";
  table.html = std::move(html);
  return table;
}

// FindColumnGutters of `rows` (only those of two cells or more when `multi_only`); a heading over a rule
// reaches across gutters on purpose and does not count.
std::vector<std::pair<double, double>> GuttersOf(const std::vector<Row>& rows, bool multi_only) {
  std::vector<std::vector<AlignedPiece>> spans;
  for (const Row& row : rows) {
    if (multi_only && row.pieces.size() < 2) continue;
    spans.emplace_back();
    for (const Piece& p : row.pieces) {
      if (!p.over_rule) spans.back().push_back({p.x0, p.x1, {}});
    }
  }
  return FindColumnGutters(spans);
}

// Whether `row` has cells in two columns or more of `gutters`, each in one column of its own.
bool FitsColumns(const Row& row, const std::vector<std::pair<double, double>>& gutters) {
  if (gutters.empty() || row.pieces.size() < 2) return false;
  size_t next_free = 0;
  for (const Piece& p : row.pieces) {
    const size_t c = ColumnOf(gutters, p.x0);
    if (c < next_free || ColumnOf(gutters, p.x1) != c) return false;
    next_free = c + 1;
  }
  return true;
}

// A table of text without numbers, told by its header: a first row of bold lines at body size with a
// heading over every column (the first may have none), then rows not in bold, each column's cells
// starting where the column starts (text set flush left), every row with a label in the first column
// and text beside it (the lines of a wrapped cell leave the first column empty).
bool IsTextTable(const std::vector<Row>& rows, const std::vector<std::pair<double, double>>& gutters,
                 const std::vector<TextLine>& lines) {
  const size_t num_cols = gutters.size() + 1;
  if (rows.size() < kMinRows || !FitsColumns(rows[0], gutters)) return false;
  const Row& header = rows[0];
  std::vector<bool> headed(num_cols, false);
  for (const Piece& p : header.pieces) {
    if (!lines[p.line].bold) return false;
    headed[ColumnOf(gutters, p.x0)] = true;
  }
  for (size_t c = 1; c < num_cols; ++c) {
    if (!headed[c]) return false;
  }
  std::vector<double> first_x(num_cols, 1e18), last_x(num_cols, -1e18);  // cells' left edges
  size_t labelled = 0, bold = 0, pieces = 0;
  double body_size = 0;
  for (size_t r = 1; r < rows.size(); ++r) {
    for (const Piece& p : rows[r].pieces) {
      const size_t c = ColumnOf(gutters, p.x0);
      if (ColumnOf(gutters, p.x1) != c) return false;
      first_x[c] = std::min(first_x[c], p.x0);
      last_x[c] = std::max(last_x[c], p.x0);
      bold += lines[p.line].bold;
      ++pieces;
      body_size = std::max(body_size, lines[p.line].font_size);
    }
    for (size_t li : rows[r].joined_lines) {  // lines of wrapped cells joined into the row
      const size_t c = ColumnOf(gutters, lines[li].box.x0);
      first_x[c] = std::min(first_x[c], lines[li].box.x0);
      last_x[c] = std::max(last_x[c], lines[li].box.x0);
    }
    const bool label = !rows[r].pieces.empty() && ColumnOf(gutters, rows[r].pieces[0].x0) == 0;
    labelled += label && rows[r].pieces.size() >= 2;
  }
  if (labelled + 1 < kMinRows || bold * 5 > pieces) return false;
  for (const Piece& p : header.pieces) {
    if (std::fabs(lines[p.line].font_size - body_size) > 1) return false;  // a row of headings over columns
  }
  for (size_t c = 1; c < num_cols; ++c) {
    if (last_x[c] - first_x[c] > 2) return false;  // not flush left: prose or a layout, not a column
  }
  return true;
}

// A header row over the columns only (a heading across two of them), the first column left empty; not
// the table's caption centred above it.
bool OverColumns(const Row& row, const std::vector<std::pair<double, double>>& gutters) {
  BlockType captions = BlockType::kText;
  for (const Piece& p : row.pieces) {
    if (ColumnOf(gutters, p.x0) == 0 || StartsCaption(p.text, &captions)) return false;
  }
  return !row.pieces.empty();
}

// A header row with a heading over the labels too ("Program", "Agency", "Funding"): a heading in at
// least half of the columns, none across a gutter; one reaching into a gutter is set flush with its
// column's other side (a heading set flush right over narrower figures), `right` the last column's.
bool HeadsColumns(const Row& row, const std::vector<std::pair<double, double>>& gutters, double right) {
  if (row.pieces.size() < 2 || row.pieces.size() * 2 < gutters.size() + 1) return false;
  constexpr double kFlush = 1.0;  // points
  for (const Piece& p : row.pieces) {
    for (size_t g = 0; g < gutters.size(); ++g) {
      const auto& [x0, x1] = gutters[g];
      if (p.x0 < x0 && p.x1 > x1) return false;
      const double far_right = g + 1 < gutters.size() ? gutters[g + 1].first : right;
      const double far_left = g > 0 ? gutters[g - 1].second : -1e18;
      if (p.x0 > x0 && p.x0 < x1 - kFlush && std::fabs(p.x1 - far_right) > kFlush) return false;
      if (p.x1 > x0 + kFlush && p.x1 < x1 && g > 0 && std::fabs(p.x0 - far_left) > kFlush) return false;
    }
  }
  return true;
}

// Header rows right above the first rule of a table in `region` whose first row is no header (the rule
// is under the header, none above it): rows of short cells over the columns or heading them, each close
// above the one below, at most kMaxHeaderRowsAbove of them.
void TakeHeaderAbove(std::vector<Row>& rows, const std::vector<TextLine>& lines,
                     const std::vector<bool>& used, const Rect& region) {
  std::vector<std::pair<double, double>> gutters = GuttersOf(rows, false);
  if (gutters.empty() || rows.empty() || OverColumns(rows.front(), gutters)) return;
  std::vector<bool> outside = used;
  for (size_t li = 0; li < lines.size(); ++li) {
    const Rect& b = lines[li].box;
    const double reach = (kMaxHeaderRowsAbove + 1) * 1.5 * std::max(1.0, lines[li].font_size);
    outside[li] = outside[li] || b.x0 < region.x0 - 4 || b.x1 > region.x1 + 4 || b.y1 > region.y0 + 1 ||
                  b.y1 < region.y0 - reach;
  }
  std::vector<Row> above = BuildRows(lines, outside);
  double right = -1e18;  // the last column's right side
  for (const Row& row : rows) right = std::max(right, row.box.x1);
  double below = region.y0;
  for (size_t taken = 0; taken < kMaxHeaderRowsAbove && !above.empty(); ++taken) {
    Row& row = above.back();
    bool short_cells = true;
    for (const Piece& p : row.pieces) short_cells = short_cells && Utf8Length(p.text) <= kMaxCellChars;
    if (below - row.box.y1 > 1.5 * std::max(row.box.height(), 1.0) || !short_cells ||
        !(OverColumns(row, gutters) || HeadsColumns(row, gutters, right))) {
      return;
    }
    below = row.box.y0;
    rows.insert(rows.begin(), std::move(row));
    above.pop_back();
  }
}

// Drops the leading rows of `rows` that are a caption ("Table 7. ...") set inside the table's rules,
// moving the top of `region` under them; true when there was one.
bool DropCaptionRows(std::vector<Row>& rows, Rect& region) {
  BlockType captions = BlockType::kText;
  size_t n = 0;
  while (n < rows.size() && rows[n].pieces.size() == 1 && StartsCaption(rows[n].pieces[0].text, &captions)) {
    region.y0 = std::max(region.y0, rows[n].box.y1);
    ++n;
  }
  rows.erase(rows.begin(), rows.begin() + static_cast<std::ptrdiff_t>(n));
  return n > 0;
}

// Emits a table of `rows` when their cells fall into >= 2 consistent columns; a cell across a column
// gutter spans those columns (a header over two columns).
// Whether every column but the first of `rows` below their first (a header, whose headings may be
// centred) keeps its cells' left edges, or their right edges, in line: columns, not prose cut at gaps.
bool ColumnsAligned(const std::vector<Row>& rows, const std::vector<std::pair<double, double>>& gutters) {
  const size_t num_cols = gutters.size() + 1;
  std::vector<double> x0_min(num_cols, 1e18), x0_max(num_cols, -1e18), x1_min(num_cols, 1e18),
      x1_max(num_cols, -1e18);
  for (size_t r = 1; r < rows.size(); ++r) {
    for (const Piece& p : rows[r].pieces) {
      const size_t c = ColumnOf(gutters, p.x0);
      if (ColumnOf(gutters, p.x1) != c) return false;
      x0_min[c] = std::min(x0_min[c], p.x0);
      x0_max[c] = std::max(x0_max[c], p.x0);
      x1_min[c] = std::min(x1_min[c], p.x1);
      x1_max[c] = std::max(x1_max[c], p.x1);
    }
  }
  for (size_t c = 1; c < num_cols; ++c) {
    if (x0_max[c] - x0_min[c] > 2 && x1_max[c] - x1_min[c] > 2) return false;
  }
  return true;
}

// Whether the piece `k` of `row`, a mark, stands before its item: text (no mark, no figure) follows it
// within two ems (a list's bullet, a check box before its option), as no mark of a matrix of options
// ticked does.
bool BeforeItsItem(const Row& row, size_t k, const std::vector<TextLine>& lines) {
  if (k + 1 >= row.pieces.size()) return false;
  const Piece& mark = row.pieces[k];
  const Piece& next = row.pieces[k + 1];
  return !IsMarkCell(next.text, lines[next.line].font) && !IsNumericCell(next.text) &&
         next.x0 - mark.x1 <= kItemGapEm * std::max(lines[mark.line].font_size, 1.0);
}

// Whether column `c` only counts the rows: whole numbers going up by one from each to the next, as a
// listing numbers its lines ("1400 }%", "1401 \\let#2\\let", "1041:"), a list its items ("1.", "2)") and a
// paper its equations ("(3)", "(4)") or references ("[7]"); not figures of a step of their own (10, 20, 30).
// Beside one column of text, or beside code (CodeBeside), such numbers do not make the rows a table's (a
// numbered listing, or a list); a column of figures does, and so do columns of text beside them (items
// numbered in a table).
constexpr size_t kMaxRowNumberDigits = 6;
bool CountsRows(const std::vector<Row>& rows, const std::vector<std::pair<double, double>>& gutters,
                size_t c) {
  std::vector<long> numbers;
  for (const Row& row : rows) {
    for (const Piece& p : row.pieces) {
      if (ColumnOf(gutters, p.x0) != c || ColumnOf(gutters, p.x1) != c) continue;
      std::string_view t = p.text;
      if (t.size() >= 3 && ((t.front() == '(' && t.back() == ')') || (t.front() == '[' && t.back() == ']'))) {
        t = t.substr(1, t.size() - 2);
      } else if (t.size() >= 2 && (t.back() == '.' || t.back() == ')' || t.back() == ':')) {
        t.remove_suffix(1);
      }
      if (!IsBareNumber(t, kMaxRowNumberDigits)) {
        if (IsNumericCell(p.text)) return false;  // a figure
        continue;
      }
      numbers.push_back(std::stol(std::string(t)));
    }
  }
  if (numbers.size() < kMinRows) return false;
  for (size_t i = 1; i < numbers.size(); ++i) {
    if (numbers[i] != numbers[i - 1] + 1) return false;
  }
  return true;
}

// Whether two thirds or more of the rows' cells outside column `c` are set in a monospaced face, two a
// row at most on average: code, whose indents and aligned comments part it into columns of their own
// beside its line numbers (a table of character codes in a typewriter face fills more columns a row).
constexpr size_t kMaxCodeCellsPerRow = 2;
bool CodeBeside(const std::vector<Row>& rows, const std::vector<std::pair<double, double>>& gutters,
                const std::vector<TextLine>& lines, size_t c) {
  size_t code = 0, cells = 0;
  for (const Row& row : rows) {
    for (const Piece& p : row.pieces) {
      if (ColumnOf(gutters, p.x0) == c) continue;
      ++cells;
      code += lines[p.line].monospace;
    }
  }
  return cells > 0 && code * 3 >= cells * 2 && cells <= kMaxCodeCellsPerRow * rows.size();
}

// An index set in columns: half its cells or more are entries with their page numbers, or lines of
// page numbers (IsIndexEntry). Its columns are text, each read down (the entries of one column have
// nothing to do with those beside them); their page numbers made a "numeric column".
bool IsIndexInColumns(const std::vector<Row>& rows) {
  size_t entries = 0, cells = 0;
  for (const Row& row : rows) {
    for (const Piece& p : row.pieces) {
      ++cells;
      entries += IsIndexEntry(p.text);
    }
  }
  return entries >= kMinRows && entries * 2 >= cells;
}

// `announced`: a table's caption ("Table 4: ...") sits right above the rows, which then need no number
// to be a table when their columns are aligned.
void TryTable(const std::vector<Row>& rows, const std::vector<TextLine>& lines, bool announced,
              std::vector<RuledTable>& out) {
  if (rows.size() < kMinRows || IsIndexInColumns(rows)) return;
  std::vector<std::pair<double, double>> gutters = GuttersOf(rows, false);
  size_t num_cols = gutters.size() + 1;
  if (num_cols < 2) return;
  if (IsTextTable(rows, gutters, lines)) {
    out.push_back(EmitTable(rows, 0, rows.size(), gutters, Wrapped::kUnlabelled));
    return;
  }
  // Most rows must fill at least two columns (a section's heading, or a label left alone, fills one).
  size_t full = 0;
  for (const Row& row : rows) full += row.pieces.size() >= 2;
  if (full * 5 < rows.size() * 3) return;
  // Cells of tables are short: numbers, names; labels in the first column a little longer. Narrow columns
  // of prose have longer lines.
  size_t chars = 0, count = 0, label_chars = 0, labels = 0;
  for (const Row& row : rows) {
    for (const Piece& p : row.pieces) {
      const bool label = ColumnOf(gutters, p.x0) == 0;
      (label ? label_chars : chars) += Utf8Length(p.text);
      ++(label ? labels : count);
    }
  }
  // (The labels' allowance only widens the rule: cells as short as ever on the whole are short.)
  const bool short_overall = chars + label_chars <= kMaxMeanCellChars * (count + labels);
  const bool short_besides_labels =
      chars <= kMaxMeanCellChars * count && label_chars <= kMaxCellChars * labels;
  if (count == 0 || !(short_overall || short_besides_labels)) return;
  // Without rules, only numbers make the grid unmistakable: some column must be mostly numeric, or
  // made of marks (a matrix of options ticked, a form's check boxes).
  std::vector<size_t> numeric(num_cols, 0), filled(num_cols, 0), cells(num_cols, 0), marks(num_cols, 0);
  for (const Row& row : rows) {
    for (size_t k = 0; k < row.pieces.size(); ++k) {
      const Piece& p = row.pieces[k];
      size_t c0 = ColumnOf(gutters, p.x0), c1 = ColumnOf(gutters, p.x1);
      if (c0 != c1) continue;  // a spanning cell
      ++cells[c0];
      marks[c0] += IsMarkCell(p.text, lines[p.line].font) && !BeforeItsItem(row, k, lines);
      if (IsPlaceholderCell(p.text)) continue;  // no value ("-", "n/a")
      ++filled[c0];
      numeric[c0] += IsNumericCell(p.text);
    }
  }
  bool has_numeric_column = false;
  for (size_t c = 0; c < num_cols; ++c) {
    has_numeric_column =
        has_numeric_column ||
        (filled[c] >= kMinRows && numeric[c] * 10 >= filled[c] * 6 &&
         !(CountsRows(rows, gutters, c) && (num_cols == 2 || CodeBeside(rows, gutters, lines, c)))) ||
        (marks[c] >= kMinRows && marks[c] * 10 >= cells[c] * 6);
  }
  if (!has_numeric_column && !(announced && ColumnsAligned(rows, gutters))) return;
  // Entries with a dot leader to one column of numbers are a table of contents, not a table.
  size_t leaders = 0;
  for (const Row& row : rows) leaders += !row.pieces.empty() && row.pieces[0].leader;
  if (num_cols == 2 && leaders * 2 >= rows.size()) return;
  out.push_back(EmitTable(rows, 0, rows.size(), gutters, Wrapped::kRows));
}

// `rows` as they stand, or, when their first row is two captions or more side by side ("Table 1: Staff"
// and "Table 2: Sites"), the rows under them cut where each caption starts (a piece goes with the caption
// it starts under), the captions left out.
std::vector<std::vector<Row>> SplitUnderCaptions(const std::vector<Row>& rows,
                                                 const std::vector<TextLine>& lines) {
  BlockType captions;
  if (rows.empty() || rows.front().pieces.size() < 2) return {rows};
  for (const Piece& p : rows.front().pieces) {
    if (!StartsCaption(p.text, &captions)) return {rows};
  }
  const std::vector<Piece>& heads = rows.front().pieces;
  std::vector<std::vector<Row>> parts(heads.size());
  for (size_t r = 1; r < rows.size(); ++r) {
    std::vector<Row> split(heads.size());
    for (const Piece& p : rows[r].pieces) {
      size_t k = heads.size() - 1;
      while (k > 0 && p.x0 < heads[k].x0 - 1) --k;
      Row& part = split[k];
      part.box = part.pieces.empty() ? lines[p.line].box : part.box.Union(lines[p.line].box);
      part.pieces.push_back(p);
    }
    for (size_t k = 0; k < heads.size(); ++k) {
      if (!split[k].pieces.empty()) parts[k].push_back(std::move(split[k]));
    }
  }
  return parts;
}

// The words of `p`, a piece of `line`, where they make its text (a piece read right to left, in a
// monospaced face, whose spaces are as wide as a gutter, or drawn over a rule of its own is cut no more):
// none otherwise.
std::vector<LineWord> WordsToCut(const Piece& p, const TextLine& line) {
  if (p.over_rule || line.rtl || line.monospace) return {};
  std::vector<LineWord> words = WordsOf(line, p.x0 - 0.5, p.x1 + 0.5);
  std::string joined;
  for (const LineWord& w : words) joined += (joined.empty() || !w.spaced ? "" : " ") + w.text;
  return joined == p.text ? words : std::vector<LineWord>{};
}

// Whether `next` goes on with the digits of `number`, grouped by threes with a space: "1 234", "12 345.6".
bool DigitGroup(const std::string& number, const std::string& next) {
  if (!IsBareNumber(number, 3)) return false;
  const size_t digits = std::min(next.find_first_not_of("0123456789"), next.size());
  return digits == 3 && (next.size() == 3 || next[3] == '.' || next[3] == ',');
}

// Figures set a mere space after a row's label or another figure in a table whose columns stand that
// close (LNCS sets 1.4 points either side of a column): a figure ending where figures of half the other
// rows end (a column set flush right), two of them at least, is a cell of its own ("Bruno-8 10.004
// 47.2" under "Method Recall Accuracy"), but for a group of a number's digits ("1 234"). (A column of
// figures all as wide after labels all as wide is not told from a phrase repeated and stays whole.)
void PartAlignedFigures(std::vector<Row>& rows, const std::vector<TextLine>& lines) {
  // Per row, per piece, its words (cut once, read twice).
  std::vector<std::vector<std::vector<LineWord>>> piece_words(rows.size());
  for (size_t r = 0; r < rows.size(); ++r) {
    for (const Piece& p : rows[r].pieces) piece_words[r].push_back(WordsToCut(p, lines[p.line]));
  }
  // Per row, its figures: where each starts and ends, and the gap before it (0 for a piece of its own).
  struct Figure {
    double x0, x1, gap;
  };
  std::vector<std::vector<Figure>> figures(rows.size());
  for (size_t r = 0; r < rows.size(); ++r) {
    for (size_t i = 0; i < rows[r].pieces.size(); ++i) {
      const Piece& p = rows[r].pieces[i];
      const std::vector<LineWord>& words = piece_words[r][i];
      if (IsNumericCell(p.text) || (words.size() > 1 && IsNumericCell(words[0].text))) {
        const double x1 = words.size() > 1 ? words[0].x1 : p.x1;
        figures[r].push_back({p.x0, x1, 0});  // (a piece's first figure, the others after it)
      }
      for (size_t k = 1; k < words.size(); ++k) {
        if (IsNumericCell(words[k].text))
          figures[r].push_back({words[k].x0, words[k].x1, words[k].x0 - words[k - 1].x1});
      }
    }
  }
  // A column: figures of two rows or more, half the others, end within a point of `f`, and they are
  // of other widths or stand other gaps after what comes before them (a phrase repeated row after row,
  // "when hyphenationbounds 2 or 3", lines up its figures as well, each as wide and as far from its words).
  auto aligned = [&](size_t r, const Figure& f) {
    size_t n = 0;
    double x0_lo = f.x0, x0_hi = f.x0, gap_lo = f.gap, gap_hi = f.gap;
    for (size_t o = 0; o < rows.size(); ++o) {
      if (o == r) continue;
      const auto at =
          std::ranges::find_if(figures[o], [&](const Figure& g) { return std::fabs(g.x1 - f.x1) <= 1.0; });
      if (at == figures[o].end()) continue;
      ++n;
      x0_lo = std::min(x0_lo, at->x0);
      x0_hi = std::max(x0_hi, at->x0);
      if (at->gap > 0) {
        gap_lo = std::min(gap_lo, at->gap);
        gap_hi = std::max(gap_hi, at->gap);
      }
    }
    return n >= 2 && 2 * n >= rows.size() - 1 && (x0_hi - x0_lo > 1.0 || gap_hi - gap_lo > 1.0);
  };
  for (size_t r = 0; r < rows.size(); ++r) {
    std::vector<Piece> out;
    for (size_t i = 0; i < rows[r].pieces.size(); ++i) {
      Piece& p = rows[r].pieces[i];
      const std::vector<LineWord>& words = piece_words[r][i];
      const double em = std::max(lines[p.line].font_size, 1.0);
      Piece part = p;
      for (size_t k = 0; k < words.size(); ++k) {
        const bool apart = k > 0 && words[k].spaced && words[k].x0 - words[k - 1].x1 >= kAlignedGapEm * em &&
                           IsNumericCell(words[k].text) && !DigitGroup(words[k - 1].text, words[k].text) &&
                           aligned(r, {words[k].x0, words[k].x1, words[k].x0 - words[k - 1].x1});
        if (k == 0 || apart) {
          if (k > 0) out.push_back(part);
          part.x0 = words[k].x0;
          part.text = words[k].text;
        } else {
          part.text += (words[k].spaced ? " " : "") + words[k].text;
        }
        part.x1 = words[k].x1;
      }
      if (words.empty()) part = p;
      out.push_back(std::move(part));
    }
    rows[r].pieces = std::move(out);
  }
}

// Whether three words or more stand each over a column of its own (its middle there; a heading may be
// wider than its column's figures), the next word over the next column: the headings of a table set with
// little room between its columns ("Method Recall Accuracy"), one a column. (Two words over two columns
// are as likely one heading spanning them: "(million euro)".)
bool OneWordAColumn(const std::vector<LineWord>& words,
                    const std::vector<std::pair<double, double>>& gutters) {
  if (words.size() < 3) return false;
  for (size_t k = 1; k < words.size(); ++k) {
    if (ColumnOf(gutters, (words[k].x0 + words[k].x1) / 2) !=
        ColumnOf(gutters, (words[k - 1].x0 + words[k - 1].x1) / 2) + 1)
      return false;
  }
  return true;
}

// A piece across a gutter whose words stand apart right in it (a gap of kGutterGapEm or more, wider than
// a space of a proportional face, its middle inside the gutter) is a piece each side: headings of tight
// columns set closer than the em that parts cells in a line ("Q1 Rate Planned" over three columns of
// figures). A heading spanning columns keeps its words' ordinary spaces and stays whole; so does a
// monospaced line, whose spaces are as wide. The first row's words, one over each column, part at their
// spaces (OneWordAColumn; a note under the rows does not), and so does a piece of it whose words are each
// flush with their column when all the row's words stand so ("Method Accuracy" in one piece before "F1"
// and "F1", "Method" flush left with the labels, "Accuracy" flush right with its figures).
void SplitAtGutters(std::vector<Row>& rows, const std::vector<TextLine>& lines,
                    const std::vector<std::pair<double, double>>& gutters) {
  // Each row's words, all its pieces' (a piece that cannot be cut one word).
  auto words_of_row = [&](const Row& row) {
    std::vector<LineWord> all;
    for (const Piece& p : row.pieces) {
      std::vector<LineWord> words = WordsToCut(p, lines[p.line]);
      if (words.empty()) words.push_back({p.x0, p.x1, p.text});
      all.insert(all.end(), words.begin(), words.end());
    }
    return all;
  };
  const bool row_apart = !rows.empty() && OneWordAColumn(words_of_row(rows.front()), gutters);
  // Where the words of the rows under the first start and end, by column.
  std::vector<std::vector<std::pair<double, double>>> edges(gutters.size() + 1);
  for (size_t r = 1; row_apart && r < rows.size(); ++r) {
    for (const LineWord& w : words_of_row(rows[r]))
      edges[ColumnOf(gutters, (w.x0 + w.x1) / 2)].emplace_back(w.x0, w.x1);
  }
  // A heading set flush with its column: starting or ending within a point of where a word under it does
  // (a stub's heading flush left, a heading of figures flush right).
  auto flush = [&](const LineWord& w) {
    return std::ranges::any_of(edges[ColumnOf(gutters, (w.x0 + w.x1) / 2)], [&](const auto& e) {
      return std::fabs(e.first - w.x0) <= 1.0 || std::fabs(e.second - w.x1) <= 1.0;
    });
  };
  for (Row& row : rows) {
    std::vector<Piece> out;
    for (Piece& p : row.pieces) {
      const TextLine& line = lines[p.line];
      const std::vector<LineWord> words =
          ColumnOf(gutters, p.x0) != ColumnOf(gutters, p.x1) ? WordsToCut(p, line) : std::vector<LineWord>{};
      if (words.size() < 2) {
        out.push_back(std::move(p));
        continue;
      }
      const double em = std::max(line.font_size, 1.0);
      // (Across pieces only for a piece whose words are each flush with their columns: the words of a
      // heading spanning columns of figures, "Sales (k)", "Eastern region", may each fall over one.)
      const bool first_row_apart =
          &row == &rows.front() &&
          (OneWordAColumn(words, gutters) || (row_apart && std::ranges::all_of(words, flush)));
      Piece part = p;
      part.text = words[0].text;
      part.x1 = words[0].x1;
      for (size_t k = 1; k < words.size(); ++k) {
        const double mid = (words[k - 1].x1 + words[k].x0) / 2;
        const bool in_gutter = std::ranges::any_of(
            gutters, [&](const std::pair<double, double>& g) { return mid >= g.first && mid <= g.second; });
        // (Words one over each column part wherever the gutter between them lies: "Method" ends where a
        // label does, "Error" starts a space on, past the gutter that a wider figure leaves.)
        if ((in_gutter && words[k].x0 - words[k - 1].x1 >= kGutterGapEm * em) || first_row_apart) {
          part.leader = false;
          out.push_back(part);
          part.x0 = words[k].x0;
          part.text = words[k].text;
        } else {
          part.text += (words[k].spaced ? " " : "") + words[k].text;
        }
        part.x1 = words[k].x1;
      }
      part.leader = p.leader;
      out.push_back(std::move(part));
    }
    row.pieces = std::move(out);
  }
}

// A heading with a rule of its own right under it, shorter than the table's (a booktabs cmidrule under
// "Fiscal 2021" over "Actual" and "Budget"), spans what the rule spans: its piece takes the rule's extent.
// A rule under two headings of the row is neither's (a word processor's border under merged cells side
// by side runs on as one line).
void MarkHeadingsOverRules(std::vector<Row>& rows, const std::vector<TextLine>& lines,
                           const std::vector<RulingSegment>& rules, const Rect& region) {
  for (Row& row : rows) {
    std::vector<const RulingSegment*> under(row.pieces.size(), nullptr);
    for (size_t k = 0; k < row.pieces.size(); ++k) {
      const Piece& p = row.pieces[k];
      const Rect& box = lines[p.line].box;
      const double centre = (p.x0 + p.x1) / 2;
      for (const RulingSegment& r : rules) {
        const double below = r.box.cy() - box.y1;
        if (!r.horizontal || r.box.width() > region.width() - 8 || r.box.width() < p.x1 - p.x0 ||
            r.box.x0 > centre || r.box.x1 < centre || below < -1 || below > 0.8 * box.height()) {
          continue;
        }
        under[k] = &r;
        break;
      }
    }
    for (size_t k = 0; k < row.pieces.size(); ++k) {
      if (under[k] == nullptr || std::ranges::count(under, under[k]) > 1) continue;
      row.pieces[k].x0 = under[k]->box.x0;
      row.pieces[k].x1 = under[k]->box.x1;
      row.pieces[k].over_rule = true;
    }
  }
}

}  // namespace

std::vector<RuledTable> FindAlignedTables(const std::vector<TextLine>& lines, const std::vector<bool>& used,
                                          const Rect& page) {
  // A line set on its side is no cell of rows aligned on whitespace (a chart's axis title beside its tick
  // values, an archive's stamp up the margin).
  std::vector<bool> upright = used;
  for (size_t li = 0; li < lines.size(); ++li) upright[li] = upright[li] || lines[li].sideways;
  std::vector<Row> rows = BuildRows(lines, upright);
  // (`long_cells`: every cell may be as long as a label, under a header of a table of text.)
  auto short_row = [&](const Row& row, bool long_cells = false) {
    // The label: the first cell, after the marks of a column of check boxes before it.
    size_t first_text = 0;
    while (first_text + 1 < row.pieces.size() &&
           IsMarkCell(row.pieces[first_text].text, lines[row.pieces[first_text].line].font))
      ++first_text;
    for (size_t i = 0; i < row.pieces.size(); ++i) {
      const Piece& p = row.pieces[i];
      const bool label = i == first_text || long_cells;
      if (Utf8Length(p.text) > (label ? kMaxLabelChars : kMaxCellChars) ||
          p.x1 - p.x0 > (i == first_text ? 0.5 : 0.3) * page.width()) {
        return false;
      }
    }
    return true;
  };
  // Runs of consecutive short rows with at most a line and a half of space between them (or a blank line
  // before rows in the same columns); a run starts and continues only on rows of two or more cells
  // (single-cell rows may sit inside it, and are joined to their row when they are a wrapped cell's line).
  auto close_above = [&](size_t r) {
    return rows[r + 1].box.y0 - rows[r].box.y1 <= 1.5 * std::max(rows[r].box.height(), 1.0);
  };
  auto blank_line_above = [&](size_t r) {
    return rows[r + 1].box.y0 - rows[r].box.y1 <= 3.0 * std::max(rows[r].box.height(), 1.0);
  };
  // A caption alone on its row ("Table 2: ...") is no row: the table above ends there (the next one's
  // title, or this one's set under it).
  auto caption = [&](const Row& row) {
    BlockType body = BlockType::kText;
    return row.pieces.size() == 1 && StartsCaption(row.pieces[0].text, &body);
  };
  std::vector<RuledTable> out;
  size_t begin = 0, taken = 0;
  while (begin < rows.size()) {
    if (rows[begin].pieces.size() < 2 || !short_row(rows[begin])) {
      ++begin;
      continue;
    }
    // Under a header of bold headings, cells of a table of text may be long (IsTextTable tells it).
    const bool bold_header =
        std::ranges::all_of(rows[begin].pieces, [&](const Piece& p) { return lines[p.line].bold; });
    size_t end = begin + 1;
    for (;;) {
      while (end < rows.size() && short_row(rows[end], bold_header) && !caption(rows[end]) &&
             close_above(end - 1))
        ++end;
      // A blank line between groups of rows: the rows after it go on when they fit the same columns.
      if (end == rows.size() || !short_row(rows[end], bold_header) || caption(rows[end]) ||
          !blank_line_above(end - 1) ||
          !FitsColumns(rows[end],
                       GuttersOf(std::vector<Row>(rows.begin() + static_cast<std::ptrdiff_t>(begin),
                                                  rows.begin() + static_cast<std::ptrdiff_t>(end)),
                                 true))) {
        break;
      }
      ++end;
    }
    std::vector<Row> run(rows.begin() + static_cast<std::ptrdiff_t>(begin),
                         rows.begin() + static_cast<std::ptrdiff_t>(end));
    // (The first row is the header, if any: its headings may span columns.)
    const double first_bottom = run.front().box.y1;
    CutAtOwnWordGutters(run, lines, first_bottom);
    std::vector<std::pair<double, double>> gutters = GuttersOf(run, true);
    // Header lines over the columns only (a heading across two of them), the first column left empty.
    for (size_t top = begin; top > taken && begin - top < kMaxHeaderRowsAbove && !gutters.empty() &&
                             close_above(top - 1) && short_row(rows[top - 1]);
         --top) {
      if (!OverColumns(rows[top - 1], gutters)) break;
      run.insert(run.begin(), rows[top - 1]);
    }
    // Lines set smaller than the row above, alone on their baselines, end the table: notes under it ("a
    // Restated."), not a wrapped label.
    auto note = [&](const Row& row, const Row& above) {
      return row.pieces.size() == 1 && !above.pieces.empty() &&
             lines[row.pieces[0].line].font_size < 0.9 * lines[above.pieces[0].line].font_size;
    };
    while (run.size() > 1 && note(run.back(), run[run.size() - 2])) {
      run.pop_back();
      --end;
    }
    // A table's caption right above the rows (and their header lines).
    const size_t top = end - run.size();
    BlockType captioned = BlockType::kText;
    const bool announced = top > 0 && rows[top - 1].pieces.size() == 1 && close_above(top - 1) &&
                           StartsCaption(rows[top - 1].pieces[0].text, &captioned) &&
                           captioned == BlockType::kTable;
    // Captions side by side over the rows ("Table 1: ..." and "Table 2: ...") head as many tables side
    // by side: each is read alone, its caption left to the text.
    std::vector<std::vector<Row>> parts = SplitUnderCaptions(run, lines);
    for (std::vector<Row>& part : parts) {
      const std::vector<std::pair<double, double>> part_gutters =
          parts.size() == 1 ? gutters : GuttersOf(part, true);
      SplitAtGutters(part, lines, part_gutters);
      JoinWrappedRows(part, part_gutters);
      while (part.size() > 1 && part.back().pieces.size() < 2) {  // no trailing single-cell rows
        part.pop_back();
        if (parts.size() == 1) --end;
      }
      TryTable(part, lines, announced && parts.size() == 1, out);
    }
    begin = taken = end;
  }
  return out;
}

namespace {

// The left edge of the leftmost piece of `rows` (where their first column starts).
double LeftEdge(const std::vector<Row>& rows) {
  double left = 1e18;
  for (const Row& row : rows) {
    if (!row.pieces.empty()) left = std::min(left, row.pieces.front().x0);
  }
  return left;
}

// Whether `p` is the text of a row's description column: the row's last piece, starting right of the
// first column (whose left edge is `left`) by more than a gutter (an option and what it does, a term and
// its definition, set between rules with the text wrapped in the last column).
bool Describes(const Piece& p, const Row& row, double left) {
  return &p == &row.pieces.back() && p.x0 > left + kMinDescriptionIndent;
}

}  // namespace

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
        bool crossed = false;
        for (size_t li = 0; li < lines.size(); ++li) {
          if (band_used[li] || !band.ContainsCenterOf(lines[li].box, 0)) continue;
          if (lines[li].box.x0 < band.x0 || lines[li].box.x1 > band.x1) {
            // Prose running past the rules' ends lies between two tables whose rules happen to be as long:
            // a line longer than two cells, or than one past both ends (a column's line of prose between
            // two tables a little narrower than the column; a row's last cell may run past one end).
            const Rect& box = lines[li].box;
            const size_t chars = Utf8Length(lines[li].text);
            crossed = crossed || chars > 2 * kMaxCellChars ||
                      (chars > kMaxCellChars && box.x0 < band.x0 && box.x1 > band.x1);
            continue;
          }
          outside[li] = false;
          ++count;
        }
        if (count == 0 || crossed) break;
        std::vector<Row> band_rows = BuildRows(lines, outside);
        const double left = LeftEdge(band_rows);
        bool band_short = true;
        for (const Row& row : band_rows) {
          for (const Piece& p : row.pieces) {
            band_short =
                band_short && (Utf8Length(p.text) <= 2 * kMaxCellChars ||
                               (Describes(p, row, left) && Utf8Length(p.text) <= kMaxDescriptionChars));
          }
          multi += row.pieces.size() >= 2;
        }
        if (!band_short) break;
        num_rows += band_rows.size();
        for (size_t li = 0; li < lines.size(); ++li) in_table[li] = in_table[li] && outside[li];
        last = k + 1;
      }
      Rect region{stack[first].x0, stack[first].cy(), stack[first].x1, stack[last].cy()};
      // Rules across and down (a grid) are FindRuledTables' to read, but for a frame's sides (a box with
      // rules between its rows and none between its columns); labels over a picture are its own.
      bool clear = last > first;
      for (const RulingSegment& r : rules) {
        const bool side =
            std::fabs(r.box.cx() - region.x0) <= kTol || std::fabs(r.box.cx() - region.x1) <= kTol;
        clear = clear && (r.horizontal || side || !region.ContainsCenterOf(r.box, 0));
      }
      for (const Rect& image : images) clear = clear && image.Intersect(region).area() < 0.2 * region.area();
      if (clear && num_rows >= 2 && multi * 2 >= num_rows) {
        std::vector<Row> table_rows = BuildRows(lines, in_table);
        // The table's caption set between its rules is no row (the header is under it, not above).
        if (!DropCaptionRows(table_rows, region)) TakeHeaderAbove(table_rows, lines, band_used, region);
        // (A description column's text is as long as it needs.)
        size_t chars = 0, pieces = 0;
        const double table_left = LeftEdge(table_rows);
        for (const Row& row : table_rows) {
          for (const Piece& p : row.pieces) {
            if (Describes(p, row, table_left)) continue;
            chars += Utf8Length(p.text);
            ++pieces;
          }
        }
        MarkHeadingsOverRules(table_rows, lines, rules, region);
        std::vector<double> rule_ys;
        for (size_t k = first; k <= last; ++k) rule_ys.push_back(stack[k].cy());
        // The first rule under the first row ends the header.
        const auto under_first = std::ranges::upper_bound(rule_ys, table_rows.front().box.cy());
        const double header_bottom = under_first == rule_ys.end() ? 1e18 : *under_first;
        CutAtOwnWordGutters(table_rows, lines, header_bottom);
        PartAlignedFigures(table_rows, lines);
        std::vector<std::pair<double, double>> gutters = GuttersOf(table_rows, false);
        if (!gutters.empty()) {
          SplitAtGutters(table_rows, lines, gutters);
          JoinRowsBetweenRules(table_rows, rule_ys, gutters);
          JoinWrappedRows(table_rows, gutters, header_bottom);
          gutters = GuttersOf(table_rows, false);
        }
        if (!gutters.empty() && chars <= kMaxCellChars * pieces) {
          RuledTable table = EmitTable(table_rows, 0, table_rows.size(), gutters, Wrapped::kSparse);
          table.box = table.box.Union(region);
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
