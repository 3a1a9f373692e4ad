#include "document/word_gutters.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "document/page_geometry.h"
#include "document/text_layout.h"

namespace mineru::document {
namespace {

constexpr double kNoteSize = 0.95;  // of the rows' common size: a note under a table is set smaller

constexpr double kWordGapEm = 0.3;     // glyphs this far apart with no space between are two words
constexpr double kSameSpaceEm = 0.05;  // two spaces of a line this close are stretched alike
constexpr double kMaxStretchEm = 3;    // a justified line's space, at most (unless the line fills its cell)
constexpr double kEdgeTolerance = 1;   // points: a line this close to its column's edge reaches it

// A word of a row, or a piece that counts whole (`whole`), with the piece it comes from.
struct Unit {
  double x0 = 0, x1 = 0;
  std::string text;
  size_t line = 0;
  size_t piece = 0;  // index in the row's pieces
  bool whole = false;
  bool last_of_piece = false;
  bool spaced = true;  // a space stands before it in its line (not a gap alone)
};

// A figure or a cell saying there is none ("1,204", "\u2013"): a cell of its own.
bool IsValue(const std::string& text) { return IsNumericCell(text) || IsPlaceholderCell(text); }

// Dots alone, spaced or not: a dot leader ("....", ". . .").
bool IsLeader(const std::string& text) {
  return !text.empty() && text.find_first_not_of(". ") == std::string::npos;
}

// A piece that stays a cell of its own: a value, or a dot leader set apart from its text.
bool OwnCell(const std::string& text) { return IsValue(text) || IsLeader(text); }

std::string WithoutSpaces(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (c != ' ') out.push_back(c);
  }
  return out;
}

// The words of `p` (WordsOf), or the piece whole where its words cannot be told (read right to left,
// monospaced, over a rule, or its text not its glyphs').
std::vector<Unit> UnitsOf(const RowPiece& p, size_t index, const TextLine& line) {
  const Unit whole{p.x0, p.x1, p.text, p.line, index, true, true};
  if (p.over_rule || line.rtl || line.monospace) return {whole};
  std::vector<Unit> words;
  std::string joined;
  for (LineWord& w : WordsOf(line, p.x0 - 0.5, p.x1 + 0.5)) {
    joined += w.text;
    words.push_back({w.x0, w.x1, std::move(w.text), p.line, index, false, false, w.spaced});
  }
  if (words.empty() || WithoutSpaces(joined) != WithoutSpaces(p.text)) return {whole};
  words.back().last_of_piece = true;
  return words;
}

std::vector<Unit> UnitsOf(const TextRow& row, const std::vector<TextLine>& lines) {
  std::vector<Unit> units;
  for (size_t k = 0; k < row.pieces.size(); ++k) {
    std::vector<Unit> more = UnitsOf(row.pieces[k], k, lines[row.pieces[k].line]);
    units.insert(units.end(), more.begin(), more.end());
  }
  std::stable_sort(units.begin(), units.end(), [](const Unit& a, const Unit& b) { return a.x0 < b.x0; });
  return units;
}

// The rows' common size: the median of their pieces' lines' sizes.
double CommonSize(const std::vector<TextRow>& rows, const std::vector<TextLine>& lines) {
  std::vector<double> sizes;
  for (const TextRow& row : rows) {
    for (const RowPiece& p : row.pieces) sizes.push_back(std::max(lines[p.line].font_size, 1.0));
  }
  return sizes.empty() ? 1 : Median(std::move(sizes));
}

// Which rows count for the gutters: all but those centred above `header_bottom`, or where fewer than two
// would be left, all but the first (a header over the rows).
std::vector<bool> CountedRows(const std::vector<TextRow>& rows, double header_bottom) {
  std::vector<bool> counted(rows.size());
  size_t n = 0;
  for (size_t r = 0; r < rows.size(); ++r) n += counted[r] = rows[r].box.cy() > header_bottom;
  if (n >= 2) return counted;
  counted.assign(rows.size(), true);
  if (rows.size() >= 3) counted[0] = false;
  return counted;
}

// What the gutters and the cut read of rows: each row's units, which rows count, their common size.
struct RowWords {
  std::vector<std::vector<Unit>> units;
  std::vector<bool> counted;
  double em = 1;
};

RowWords ReadRows(const std::vector<TextRow>& rows, const std::vector<TextLine>& lines,
                  double header_bottom) {
  RowWords words{{}, CountedRows(rows, header_bottom), CommonSize(rows, lines)};
  for (const TextRow& row : rows) words.units.push_back(UnitsOf(row, lines));
  return words;
}

// Rows of `counted` with a unit centred between `lo` and `hi`.
size_t RowsWithin(const std::vector<std::vector<Unit>>& units, const std::vector<bool>& counted, double lo,
                  double hi) {
  size_t n = 0;
  for (size_t r = 0; r < units.size(); ++r) {
    n += counted[r] && std::ranges::any_of(units[r], [&](const Unit& u) {
           const double cx = (u.x0 + u.x1) / 2;
           return cx > lo && cx < hi;
         });
  }
  return n;
}

// Whether units i < j of a row, words of one line within [lo, hi], stand `gap` apart (within `tol`).
bool GapIs(const std::vector<Unit>& row, size_t i, size_t j, double gap, double lo, double hi, double tol) {
  return j < row.size() && !row[i].whole && !row[j].whole && row[i].line == row[j].line && row[i].x1 >= lo &&
         row[j].x0 <= hi && std::fabs(row[j].x0 - row[i].x1 - gap) <= tol;
}

// Whether the gap before unit `b` of a row (b >= 1) is a justified line's stretched space: as wide as the
// gap before the word left of it or after `b` (a justified line's spaces are stretched alike), within
// [lo, hi].
bool StretchedBefore(const std::vector<Unit>& row, size_t b, double lo, double hi, double tol) {
  const double gap = row[b].x0 - row[b - 1].x1;
  return (b >= 2 && GapIs(row, b - 2, b - 1, gap, lo, hi, tol)) || GapIs(row, b, b + 1, gap, lo, hi, tol);
}

// The x range of column `c` between `gutters`.
std::pair<double, double> ColumnRange(const std::vector<std::pair<double, double>>& gutters, size_t c) {
  return {c == 0 ? -1e18 : gutters[c - 1].second, c == gutters.size() ? 1e18 : gutters[c].first};
}

// Whether the gutter `g` of `gutters` is a space of justified lines: in more rows or as many as not, the
// words either side of it, of one line with no other gutter between them, are a stretched space
// (StretchedBefore); a row of other gaps says it is a gutter. Figures tell nothing (columns of them may
// be set as evenly), nor do rows whose words stand more than twice the gutter's width apart there (a
// short cell).
bool StretchedSpace(const std::vector<std::vector<Unit>>& units, const std::vector<bool>& counted,
                    const std::vector<std::pair<double, double>>& gutters, size_t g, double em) {
  const double lo = ColumnRange(gutters, g).first;
  const double hi = ColumnRange(gutters, g + 1).second;
  size_t spaces = 0, gaps = 0;
  for (size_t r = 0; r < units.size(); ++r) {
    const std::vector<Unit>& row = units[r];
    size_t b = 0;
    while (b < row.size() && row[b].x0 < gutters[g].second) ++b;
    if (!counted[r] || b == 0 || b == row.size()) continue;
    const Unit& left = row[b - 1];
    const Unit& right = row[b];
    auto word = [](const Unit& u) { return !u.whole && !IsNumericCell(u.text); };
    if (!word(left) || !word(right) || left.line != right.line || left.x1 < lo || right.x0 > hi) continue;
    if (right.x0 - left.x1 > 2 * (gutters[g].second - gutters[g].first)) continue;  // a short cell
    if (StretchedBefore(row, b, lo, hi, kSameSpaceEm * em)) {
      ++spaces;
    } else {
      ++gaps;
    }
  }
  return spaces > 0 && spaces >= gaps;
}

// What the counted rows hold in each column between `gutters`: a value (no year: a column of figures,
// whose headings stay apart), and the extent of their words.
struct Columns {
  std::vector<bool> valued;
  std::vector<double> left, right;

  // Whether the units of `row` in column `c` reach from its left edge to its right edge, as a justified
  // line fills its cell.
  bool Filled(const std::vector<Unit>& row, size_t c,
              const std::vector<std::pair<double, double>>& gutters) const {
    double x0 = 1e18, x1 = -1e18;
    for (const Unit& u : row) {
      if (ColumnOf(gutters, (u.x0 + u.x1) / 2) != c) continue;
      x0 = std::min(x0, u.x0);
      x1 = std::max(x1, u.x1);
    }
    return x0 <= left[c] + kEdgeTolerance && x1 >= right[c] - kEdgeTolerance;
  }
};

Columns ColumnsOf(const std::vector<TextRow>& rows, const std::vector<std::vector<Unit>>& units,
                  const std::vector<bool>& counted, const std::vector<std::pair<double, double>>& gutters) {
  Columns columns{std::vector<bool>(gutters.size() + 1, false), std::vector<double>(gutters.size() + 1, 1e18),
                  std::vector<double>(gutters.size() + 1, -1e18)};
  for (size_t r = 0; r < rows.size(); ++r) {
    if (!counted[r]) continue;
    for (const RowPiece& p : rows[r].pieces) {
      if (IsValue(p.text) && !IsYearLike(p.text)) columns.valued[ColumnOf(gutters, (p.x0 + p.x1) / 2)] = true;
    }
    for (const Unit& u : units[r]) {
      const size_t c = ColumnOf(gutters, (u.x0 + u.x1) / 2);
      columns.left[c] = std::min(columns.left[c], u.x0);
      columns.right[c] = std::max(columns.right[c], u.x1);
    }
  }
  return columns;
}

}  // namespace

std::vector<LineWord> WordsOf(const TextLine& line, double x0, double x1) {
  const double gap = kWordGapEm * std::max(line.font_size, 1.0);
  std::vector<LineWord> words;
  bool space = true;
  for (const TextChar& ch : line.chars) {
    if (ch.rune == ' ') {
      space = true;
      continue;
    }
    const double cx = (ch.box.x0 + ch.box.x1) / 2;
    if (cx < x0 || cx > x1) continue;
    // (A dot leader's dots are one word: set on a grid, they would leave gutters between them.)
    const bool leader = ch.rune == '.' && !words.empty() && IsLeader(words.back().text);
    if (!leader && (space || words.empty() || ch.box.x0 - words.back().x1 > gap))
      words.push_back({ch.box.x0, ch.box.x1, {}, space});
    if (leader && space) words.back().text.push_back(' ');
    space = false;
    AppendUtf8(words.back().text, ch.rune);
    words.back().x1 = std::max(words.back().x1, ch.box.x1);
  }
  return words;
}

namespace {

// The gutters of the counted rows (WordGutters).
std::vector<std::pair<double, double>> GuttersOfCounted(const RowWords& words) {
  const auto& [units, counted, em] = words;
  std::vector<std::pair<double, double>> covered;
  for (size_t r = 0; r < units.size(); ++r) {
    if (!counted[r]) continue;
    for (const Unit& u : units[r]) covered.push_back({u.x0, u.x1});
  }
  if (covered.size() < 2) return {};
  std::sort(covered.begin(), covered.end());
  const double min_width = kWordGutterEm * em;
  std::vector<std::pair<double, double>> gutters;
  double reach = covered.front().second;
  for (const auto& [x0, x1] : covered) {
    if (x0 - reach >= min_width) gutters.push_back({reach, x0});
    reach = std::max(reach, x1);
  }
  std::vector<std::pair<double, double>> kept;
  for (size_t g = 0; g < gutters.size(); ++g) {
    if (!StretchedSpace(units, counted, gutters, g, em)) kept.push_back(gutters[g]);
  }
  gutters = std::move(kept);
  // Each column holds words of two rows or more; else the narrower gutter beside it goes.
  for (size_t c = 0; c <= gutters.size() && !gutters.empty();) {
    const double lo = c == 0 ? -1e18 : gutters[c - 1].second;
    const double hi = c == gutters.size() ? 1e18 : gutters[c].first;
    if (RowsWithin(units, counted, lo, hi) >= 2) {
      ++c;
      continue;
    }
    auto width = [&](size_t g) { return gutters[g].second - gutters[g].first; };
    const size_t drop = c == 0 ? 0 : c == gutters.size() ? c - 1 : width(c - 1) < width(c) ? c - 1 : c;
    gutters.erase(gutters.begin() + static_cast<std::ptrdiff_t>(drop));
    c = 0;
  }
  return gutters;
}

// A note under a table read as its last row ("Source: National statistics office.": one line set
// smaller than the rows, its words a space apart, no gap as wide as a gutter) does not count where a word
// of it reaches into a gutter of the rows above, three or more: their gutters are the table's.
void DropNoteUnder(RowWords& words, const std::vector<TextRow>& rows, const std::vector<TextLine>& lines) {
  auto last = std::ranges::find(words.counted.rbegin(), words.counted.rend(), true);
  if (last == words.counted.rend() || std::ranges::count(words.counted, true) < 4) return;
  const size_t r = static_cast<size_t>(words.counted.rend() - last) - 1;
  for (const RowPiece& p : rows[r].pieces) {  // set smaller than the rows
    if (lines[p.line].font_size >= kNoteSize * words.em) return;
  }
  const std::vector<Unit>& row = words.units[r];
  for (size_t k = 1; k < row.size(); ++k) {  // one line, its words a space apart
    if (row[k].line != row[0].line || row[k].x0 - row[k - 1].x1 >= kWordGutterEm * words.em) return;
  }
  words.counted[r] = false;
  for (const std::pair<double, double>& g : GuttersOfCounted(words)) {
    if (std::ranges::any_of(row, [&](const Unit& u) { return u.x0 < g.second && u.x1 > g.first; })) return;
  }
  words.counted[r] = true;
}

// ReadRows, a note under the rows left out of the count.
RowWords ReadTableRows(const std::vector<TextRow>& rows, const std::vector<TextLine>& lines,
                       double header_bottom) {
  RowWords words = ReadRows(rows, lines, header_bottom);
  DropNoteUnder(words, rows, lines);
  return words;
}

// CutAtWordGutters of rows read by ReadTableRows.
void Cut(std::vector<TextRow>& rows, const RowWords& words,
         const std::vector<std::pair<double, double>>& gutters) {
  if (gutters.empty()) return;
  const auto& [all_units, counted, em] = words;
  const double min_gap = kWordGutterEm * em, max_stretch = kMaxStretchEm * em;
  const Columns columns = ColumnsOf(rows, all_units, counted, gutters);
  for (size_t r = 0; r < rows.size(); ++r) {
    TextRow& row = rows[r];
    const std::vector<Unit>& units = all_units[r];
    std::vector<RowPiece> out;
    for (size_t i = 0; i < units.size(); ++i) {
      const Unit& u = units[i];
      const RowPiece& from = row.pieces[u.piece];
      bool apart = i == 0 || u.whole || units[i - 1].whole;
      if (!apart) {
        const Unit& prev = units[i - 1];
        const RowPiece& prev_from = row.pieces[prev.piece];
        const size_t column = ColumnOf(gutters, (u.x0 + u.x1) / 2);
        const bool across = ColumnOf(gutters, (prev.x0 + prev.x1) / 2) != column;
        // (A heading's words over two columns stand closer than a gutter: it spans them.)
        const bool stretched = u.x0 - prev.x1 <= max_stretch || columns.Filled(units, column, gutters);
        apart = (across && u.x0 - prev.x1 >= min_gap) ||
                (u.piece != prev.piece && (across || !counted[r] || columns.valued[column] || !stretched ||
                                           OwnCell(from.text) || OwnCell(prev_from.text)));
      }
      if (apart) {
        RowPiece piece = from;
        piece.x0 = u.x0;
        piece.x1 = u.x1;
        piece.line = u.line;
        piece.text = u.text;
        piece.leader = u.last_of_piece && from.leader;
        out.push_back(std::move(piece));
        continue;
      }
      RowPiece& piece = out.back();
      piece.text += (u.spaced || u.piece != units[i - 1].piece ? " " : "") + u.text;
      piece.x1 = std::max(piece.x1, u.x1);
      piece.leader = u.last_of_piece && from.leader;
      if (u.line != piece.line && std::ranges::find(row.joined_lines, u.line) == row.joined_lines.end())
        row.joined_lines.push_back(u.line);
    }
    row.pieces = std::move(out);
  }
}

}  // namespace

std::vector<std::pair<double, double>> WordGutters(const std::vector<TextRow>& rows,
                                                   const std::vector<TextLine>& lines, double header_bottom) {
  return GuttersOfCounted(ReadTableRows(rows, lines, header_bottom));
}

void CutAtWordGutters(std::vector<TextRow>& rows, const std::vector<TextLine>& lines,
                      const std::vector<std::pair<double, double>>& gutters, double header_bottom) {
  Cut(rows, ReadTableRows(rows, lines, header_bottom), gutters);
}

void CutAtOwnWordGutters(std::vector<TextRow>& rows, const std::vector<TextLine>& lines,
                         double header_bottom) {
  const RowWords words = ReadTableRows(rows, lines, header_bottom);
  Cut(rows, words, GuttersOfCounted(words));
}

}  // namespace mineru::document
