#include "document/aligned_rows.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <string_view>
#include <utility>

#include "document/aligned_table.h"
#include "document/text_layout.h"

namespace mineru::document {
namespace {

constexpr double kIndentEm = 0.8;             // a continuation line indented this much under its label
constexpr size_t kMinWrappedLabelChars = 16;  // a label's line wrapped at its column's measure is longer
constexpr double kCloserLines = 0.25;         // of a line's height: a gap this much smaller ties two rows
constexpr size_t kMaxLocatorChars = 6;        // an index's page number, Arabic or Roman ("xxviii")
constexpr double kSameCentre = 1.0;  // points: ranges of columns centred this close are centred alike

// A section's heading inside a table ("Revenue:"): a row of its own.
bool EndsWithColon(const std::string& text) { return !text.empty() && text.back() == ':'; }

bool StartsLower(const std::string& text) {
  size_t i = 0;
  return !text.empty() && IsLowerLatin(DecodeUtf8(text, i));
}

// Text that goes on in the next line: a hyphen, comma, slash, ampersand or opening bracket at its end,
// or a last word that never ends a label.
bool EndsOpen(const std::string& text) {
  if (text.empty()) return false;
  if (std::string_view("-,/&(").find(text.back()) != std::string_view::npos) return true;
  size_t space = text.find_last_of(' ');
  std::string last = text.substr(space == std::string::npos ? 0 : space + 1);
  std::transform(last.begin(), last.end(), last.begin(), [](unsigned char c) { return std::tolower(c); });
  // (Not "a": "Class A", "Schedule A" end labels.)
  static constexpr std::array<std::string_view, 21> kOpen = {
      "and",  "or", "of",  "for",  "the",       "in",        "to",  "with", "by",    "on",  "at",
      "from", "an", "per", "than", "including", "excluding", "nor", "as",   "under", "into"};
  return std::find(kOpen.begin(), kOpen.end(), last) != kOpen.end();
}

// A word broken at the end of a line: a hyphen right after a letter ("appli-").
bool EndsInBrokenWord(const std::string& text) {
  if (text.size() < 2 || text.back() != '-') return false;
  return std::isalpha(static_cast<unsigned char>(text[text.size() - 2])) != 0;
}

struct Layout {
  const std::vector<std::pair<double, double>>& gutters;
  // Labels that often start in lower case (variable names: "age", "pH"): then a lower-case start
  // tells nothing about a line continuing another.
  bool lower_case_labels = false;

  double label_right = 0;       // where the widest label ends: the label column's measure
  double header_bottom = 1e18;  // a rule under the header: no header row below it

  bool starts_lower(const std::string& text) const { return !lower_case_labels && StartsLower(text); }
  // Whether `line` of a label fills the label column: the first word of `next`, the label's next line at
  // the same indent, would not have fit after it (its width estimated from `next`'s).
  bool fills(const RowPiece& line, const RowPiece& next) const {
    const size_t chars = Utf8Length(next.text);
    // (A line of one word, or a short one, tells nothing: the widest of short labels "fills" its column.)
    if (chars == 0 || std::fabs(next.x0 - line.x0) > 1.5 || line.text.find(' ') == std::string::npos ||
        Utf8Length(line.text) < kMinWrappedLabelChars) {
      return false;
    }
    const size_t space = next.text.find(' ');
    const size_t word = Utf8Length(next.text.substr(0, space)) + 1;
    return line.x1 + (next.x1 - next.x0) * static_cast<double>(word) / static_cast<double>(chars) >
           label_right;
  }

  size_t first(const RowPiece& p) const { return ColumnOf(gutters, p.x0); }
  size_t last(const RowPiece& p) const { return ColumnOf(gutters, p.x1); }
  // A piece in one column only.
  bool single(const RowPiece& p) const { return first(p) == last(p); }
  // The row's first-column label, or null.
  const RowPiece* label(const TextRow& row) const {
    return !row.pieces.empty() && last(row.pieces[0]) == 0 ? &row.pieces[0] : nullptr;
  }
  // A label and something in another column.
  bool has_cells(const TextRow& row) const { return label(row) != nullptr && row.pieces.size() >= 2; }
  // A number (not a year) or a mark ("*", a check mark) outside the first column.
  bool has_values(const TextRow& row) const {
    for (const RowPiece& p : row.pieces) {
      if (first(p) > 0 && ((IsNumericCell(p.text) && !IsYearLike(p.text)) || IsMarkCell(p.text, "")))
        return true;
    }
    return false;
  }
  bool label_only(const TextRow& row) const {
    return row.pieces.size() == 1 && label(row) != nullptr && !IsNumericCell(row.pieces[0].text);
  }
  // Text in some columns but the first, none of it numeric.
  bool wrapped_values(const TextRow& row) const {
    if (row.pieces.empty() || label(row) != nullptr) return false;
    for (const RowPiece& p : row.pieces) {
      if (!single(p) || IsNumericCell(p.text)) return false;
    }
    return true;
  }
  // The piece of `row` in column `c`, or null.
  const RowPiece* in_column(const TextRow& row, size_t c) const {
    for (const RowPiece& p : row.pieces) {
      if (first(p) <= c && c <= last(p)) return &p;
    }
    return nullptr;
  }
  RowPiece* in_column(TextRow& row, size_t c) const {
    return const_cast<RowPiece*>(in_column(std::as_const(row), c));
  }
};

double Gap(const TextRow& above, const TextRow& below) { return below.box.y0 - above.box.y1; }

void Absorb(TextRow& into, const TextRow& row) {
  into.box = into.box.Union(row.box);
  for (const RowPiece& p : row.pieces) into.joined_lines.push_back(p.line);
  into.joined_lines.insert(into.joined_lines.end(), row.joined_lines.begin(), row.joined_lines.end());
}

void AppendPiece(RowPiece& into, const RowPiece& tail) {
  JoinLine(into.text, tail.text);
  into.x0 = std::min(into.x0, tail.x0);
  into.x1 = std::max(into.x1, tail.x1);
}

void PrependPiece(RowPiece& into, const RowPiece& head) {
  std::string text = head.text;
  JoinLine(text, into.text);
  into.text = std::move(text);
  into.x0 = std::min(into.x0, head.x0);
  into.x1 = std::max(into.x1, head.x1);
}

// Whether `row`, `gap_near` from one neighbour, sits clearly closer to it than to `far` (null: none).
bool Closer(const TextRow& row, double gap_near, const TextRow* far, double gap_far) {
  return far != nullptr && gap_near + kCloserLines * row.box.height() < gap_far;
}

// Whether `row` is a header line despite a number in it: no label, and as many cells of words (years
// among them) as of figures or more (a heading wrapped in each column, "Cases per" over "1,000" beside
// "total" or "2020 (%)"); cells saying there is no value count neither way.
bool WordsOverFigures(const TextRow& row, const Layout& L) {
  if (L.label(row) != nullptr) return false;
  size_t words = 0, figures = 0;
  for (const RowPiece& p : row.pieces) {
    if (IsPlaceholderCell(p.text)) continue;
    ++(IsNumericCell(p.text) && !IsYearLike(p.text) ? figures : words);
  }
  return words > 0 && words >= figures;
}

// Whether every piece of `row` is set in a bold face (`bold`) or none is (`!bold`).
bool AllSetBold(const TextRow& row, bool bold) {
  return std::ranges::all_of(row.pieces, [&](const RowPiece& p) { return p.bold == bold; });
}

// The first row of values; rows above it are the header (a label alone ends the header too). In a table
// of text (no values anywhere), the header is its first rows set in bold over rows set in none.
size_t HeaderEnd(const std::vector<TextRow>& rows, const Layout& L) {
  if (std::ranges::none_of(rows, [&](const TextRow& row) { return L.has_values(row); })) {
    size_t bold = 0;
    while (bold < rows.size() && rows[bold].box.cy() <= L.header_bottom && AllSetBold(rows[bold], true))
      ++bold;
    if (bold > 0 && bold < rows.size() && AllSetBold(rows[bold], false)) return bold;
  }
  for (size_t i = 0; i < rows.size(); ++i) {
    if (rows[i].box.cy() > L.header_bottom) return i;
    if ((L.has_values(rows[i]) && !(i > 0 && WordsOverFigures(rows[i], L))) || L.label_only(rows[i]))
      return i;
  }
  return 0;  // no values: no header to tell apart
}

}  // namespace

std::vector<std::pair<size_t, size_t>> GroupNameRuns(const std::vector<HeadingAt>& names,
                                                     const std::vector<std::pair<double, double>>& columns,
                                                     const std::vector<bool>& headed) {
  const size_t num_cols = columns.size();
  std::vector<bool> taken(num_cols, false);
  bool spanning = false;
  for (const HeadingAt& h : names) {
    spanning = spanning || (h.first > 0 && h.last > h.first);
    for (size_t c = h.first; c <= h.last && c < num_cols; ++c) taken[c] = true;
  }
  auto usable = [&](size_t c) {
    return c > 0 && c < num_cols && !taken[c] && headed[c] && columns[c].first <= columns[c].second;
  };
  std::vector<std::pair<size_t, size_t>> runs;
  size_t counted = 0, widened = 0;  // (a heading over the labels is no group's name)
  for (const HeadingAt& h : names) {
    size_t a = h.first, b = h.last;
    counted += a > 0;
    while (h.last - h.first <= 1 && a > 0 && usable(a - 1) && usable(b + 1) &&
           std::fabs(h.centre - (columns[a - 1].first + columns[b + 1].second) / 2) <=
               (columns[b + 1].second - columns[a - 1].first) / 4) {
      taken[--a] = taken[++b] = true;
    }
    widened += b - a > h.last - h.first;
    runs.push_back({a, b});
  }
  if (counted < 2 || (!spanning && widened < counted)) runs.clear();
  return runs;
}

namespace {

// GroupNameRuns on a header line whose headings SnapHeadings placed (`centres`: theirs before), the
// next line's headings heading the columns; each name widened takes its run's extent.
void WidenGroupNames(TextRow& line, const TextRow& next, const std::vector<double>& centres,
                     const std::vector<std::pair<double, double>>& extent, const Layout& L) {
  std::vector<HeadingAt> names;
  for (size_t k = 0; k < line.pieces.size(); ++k)
    names.push_back({L.first(line.pieces[k]), L.last(line.pieces[k]), centres[k]});
  std::vector<bool> headed(extent.size(), false);
  for (const RowPiece& p : next.pieces) {
    if (L.single(p)) headed[L.first(p)] = true;
  }
  const std::vector<std::pair<size_t, size_t>> runs = GroupNameRuns(names, extent, headed);
  for (size_t k = 0; k < runs.size(); ++k) {
    if (runs[k] == std::pair{names[k].first, names[k].last}) continue;  // (its columns' extent may be none)
    line.pieces[k].x0 = extent[runs[k].first].first;
    line.pieces[k].x1 = extent[runs[k].second].second;
  }
}

// Each heading is over the columns whose extent (that of the cells below the header) it is centred on:
// a heading of an upper line centred over several columns spans them although it is narrower than they
// are (it may reach across none of their gutters; one narrower than a column spans only when centred on
// a gutter), and a heading wider than its column, reaching past a gutter's middle, is still that
// column's alone, unless it reaches over the headings of other columns on the next line: it spans at
// least those. Its x range becomes theirs.
void SnapHeadings(std::vector<TextRow>& rows, size_t header_end, const Layout& L) {
  const size_t num_cols = L.gutters.size() + 1;
  std::vector<std::pair<double, double>> extent(num_cols, {1e18, -1e18});
  for (size_t r = header_end; r < rows.size(); ++r) {
    for (const RowPiece& p : rows[r].pieces) {
      if (!L.single(p)) continue;
      auto& [x0, x1] = extent[L.first(p)];
      x0 = std::min(x0, p.x0);
      x1 = std::max(x1, p.x1);
    }
  }
  auto known = [&](size_t c) { return extent[c].first <= extent[c].second; };
  for (size_t r = 0; r < header_end; ++r) {
    // Where the line's headings sit before they move: none spans a column another one sits in.
    std::vector<size_t> sits;
    std::vector<double> centres;
    for (const RowPiece& p : rows[r].pieces) {
      centres.push_back((p.x0 + p.x1) / 2);
      sits.push_back(ColumnOf(L.gutters, centres.back()));
    }
    for (size_t k = 0; k < rows[r].pieces.size(); ++k) {
      RowPiece& p = rows[r].pieces[k];
      auto sibling_in = [&](size_t c, size_t d) {
        for (size_t o = 0; o < sits.size(); ++o) {
          if (o != k && sits[o] >= c && sits[o] <= d) return true;
        }
        return false;
      };
      if (p.over_rule) {  // the columns centred under its rule
        size_t from = num_cols, to = 0;
        for (size_t c = 0; c < num_cols; ++c) {
          const double centre = (extent[c].first + extent[c].second) / 2;
          if (!known(c) || centre < p.x0 || centre > p.x1) continue;
          from = std::min(from, c);
          to = c;
        }
        if (from <= to) {
          p.x0 = extent[from].first;
          p.x1 = extent[to].second;
          continue;
        }
      }
      const double centre = (p.x0 + p.x1) / 2;
      bool over_a_column = false;
      for (size_t c = 0; c < num_cols; ++c)
        over_a_column =
            over_a_column || (known(c) && centre >= extent[c].first && centre <= extent[c].second);
      // The columns of the headings of the next line that it reaches over: a heading over the headings
      // of several columns is over all of those columns.
      size_t lo = num_cols, hi = 0;
      for (size_t q = 0; r + 1 < header_end && q < rows[r + 1].pieces.size(); ++q) {
        const RowPiece& under = rows[r + 1].pieces[q];
        if (under.x1 <= p.x0 || under.x0 >= p.x1) continue;
        const size_t c = ColumnOf(L.gutters, (under.x0 + under.x1) / 2);
        lo = std::min(lo, c);
        hi = std::max(hi, c);
      }
      // A heading between the cells of two columns, over none of them, on the last header line or
      // over one heading only (its own next line), is the column's its gutters put it in: a
      // spreadsheet's heading set flush left in a wide cell over figures set flush right.
      bool touches = false;
      for (size_t c = 0; c < num_cols; ++c)
        touches = touches || (known(c) && p.x1 > extent[c].first && p.x0 < extent[c].second);
      if (!touches && (r + 1 == header_end || lo == hi)) continue;
      if (lo == hi) lo = num_cols, hi = 0;  // over one heading only: no bound
      double best = 1e18;
      size_t from = 0, to = 0;
      for (size_t c = 0; c < num_cols; ++c) {
        double widest = 0;  // of the columns c..d
        for (size_t d = c; d < num_cols && known(c) && known(d); ++d) {
          const double x0 = extent[c].first, x1 = extent[d].second;
          widest = std::max(widest, extent[d].second - extent[d].first);
          if (p.x1 < x0 || p.x0 > x1 || sibling_in(c, d)) continue;  // not over these columns alone
          if (c > lo || d < hi) continue;                            // not over all the headings under it
          // A heading no wider than one of the columns is that column's, unless it is centred on a
          // gutter between columns.
          if (d > c && p.x1 - p.x0 <= widest && over_a_column) continue;
          const double off = std::abs(centre - (x0 + x1) / 2);
          // The fewer columns when two ranges are centred alike (as one column and it with both
          // neighbours are).
          if (off < best - kSameCentre || (off < best + kSameCentre && d - c < to - from)) {
            best = off, from = c, to = d;
          }
        }
      }
      if (best == 1e18) continue;
      p.x0 = extent[from].first;
      p.x1 = extent[to].second;
    }
    if (r + 1 < header_end) WidenGroupNames(rows[r], rows[r + 1], centres, extent, L);
  }
}

// Whether the header lines above `header_end` are a cell's wrapped lines wherever one is over another in
// a column: set flush left, flush right or centred alike. A heading centred over several columns set
// flush right (a group's name over its years) is over them, not the first line of one of theirs. Only a
// header over rows of values (figures) is told so. Read before SnapHeadings moves the headings onto their
// columns.
bool HeaderLinesAligned(const std::vector<TextRow>& rows, size_t header_end, const Layout& L) {
  if (header_end >= rows.size() || !L.has_values(rows[header_end])) return true;  // no values under it
  for (size_t r = 1; r < header_end; ++r) {
    const double tol = 0.5 * rows[r].box.height();
    for (const RowPiece& p : rows[r].pieces) {
      const RowPiece* above = L.in_column(rows[r - 1], ColumnOf(L.gutters, (p.x0 + p.x1) / 2));
      if (above == nullptr) continue;
      if (std::fabs(above->x0 - p.x0) > tol && std::fabs(above->x1 - p.x1) > tol &&
          std::fabs(above->x0 + above->x1 - p.x0 - p.x1) > 2 * tol)
        return false;
    }
  }
  return true;
}

// Header lines with nothing spanning: one row, each column's lines joined top to bottom (when `aligned`,
// as a cell's lines are). With a cell over several columns: a cell of the last header line under nothing
// reaches up to the first (rowspan).
void JoinHeader(std::vector<TextRow>& rows, size_t header_end, const Layout& L, bool aligned) {
  if (header_end < 2) return;
  bool spans = false, tight = true;
  for (size_t r = 0; r < header_end; ++r) {
    for (const RowPiece& p : rows[r].pieces) spans = spans || !L.single(p);
    if (r > 0) tight = tight && Gap(rows[r - 1], rows[r]) < rows[r].box.height();
  }
  if (spans) {
    TextRow& bottom = rows[header_end - 1];
    std::vector<RowPiece> stay;
    for (RowPiece& p : bottom.pieces) {
      bool alone = L.single(p);
      for (size_t r = 0; r + 1 < header_end && alone; ++r)
        alone = L.in_column(rows[r], L.first(p)) == nullptr;
      if (!alone) {
        stay.push_back(std::move(p));
        continue;
      }
      p.rowspan = static_cast<int>(header_end);
      auto& top = rows[0].pieces;
      top.insert(std::upper_bound(top.begin(), top.end(), p,
                                  [](const RowPiece& a, const RowPiece& b) { return a.x0 < b.x0; }),
                 std::move(p));
    }
    bottom.pieces = std::move(stay);
    return;
  }
  if (!tight || !aligned) return;
  TextRow& head = rows[0];
  for (size_t r = 1; r < header_end; ++r) {
    for (const RowPiece& p : rows[r].pieces) {
      if (RowPiece* above = L.in_column(head, L.first(p))) {
        AppendPiece(*above, p);
      } else {
        head.pieces.push_back(p);
      }
    }
    Absorb(head, rows[r]);
  }
  std::sort(head.pieces.begin(), head.pieces.end(),
            [](const RowPiece& a, const RowPiece& b) { return a.x0 < b.x0; });
  rows.erase(rows.begin() + 1, rows.begin() + static_cast<std::ptrdiff_t>(header_end));
}

// Whether every cell of `row`, the label's too, goes on from the text cell right above it: the cell
// above ends open or this one starts in lower case (text wrapped in every column of a row at once, a
// row's label included; a new row starts some cell afresh). A figure goes on only from text that ends
// open ("End of" over "2022"). Where the label is the rest of a word broken at the label above's end
// ("appli-" over "cation form"), the row goes on whatever its other cells say ("March" over "2022").
bool ContinuesEveryCell(const TextRow& row, TextRow& above, const Layout& L) {
  const RowPiece* label = L.label(row);
  const RowPiece* label_above = L.label(above);
  const bool broken_word = label != nullptr && label_above != nullptr && L.starts_lower(label->text) &&
                           EndsInBrokenWord(label_above->text);
  for (const RowPiece& p : row.pieces) {
    const RowPiece* cell = L.in_column(above, L.first(p));
    if (cell == nullptr || !L.single(p) || !L.single(*cell) || IsNumericCell(cell->text)) return false;
    if (!broken_word && !(EndsOpen(cell->text) || (L.starts_lower(p.text) && !IsNumericCell(p.text))))
      return false;
  }
  return true;
}

// Top to bottom: lines that continue the row above (a label's second line, a wrapped text cell).
std::vector<TextRow> JoinUp(std::vector<TextRow>& rows, size_t header_end, const Layout& L) {
  std::vector<TextRow> out;
  for (size_t i = 0; i < rows.size(); ++i) {
    TextRow& row = rows[i];
    TextRow* above = i > header_end && !out.empty() && L.has_cells(out.back()) ? &out.back() : nullptr;
    const TextRow* below = i + 1 < rows.size() ? &rows[i + 1] : nullptr;
    const double gap_above = above ? Gap(*above, row) : 0;
    const double gap_below = below ? Gap(row, *below) : 0;
    bool joined = false;
    if (above != nullptr && L.label_only(row) && !EndsWithColon(row.pieces[0].text)) {
      const RowPiece& piece = row.pieces[0];
      const RowPiece& label = *L.label(*above);
      const RowPiece* next = below ? L.label(*below) : nullptr;
      const double em = row.box.height();
      const bool indented =
          piece.x0 > label.x0 + kIndentEm * em && (next == nullptr || next->x0 < piece.x0 - kIndentEm * em);
      // The label above filled its column and this line is the rest of it (it does not fill the column
      // itself, and no line is indented under it as under a section's heading).
      const bool rest = L.fills(label, piece) && !(next != nullptr && L.fills(piece, *next)) &&
                        (next == nullptr || next->x0 < piece.x0 + kIndentEm * em);
      if (L.starts_lower(piece.text) || EndsOpen(label.text) || indented || rest ||
          (!EndsOpen(piece.text) && Closer(row, gap_above, below, gap_below))) {
        AppendPiece(above->pieces[0], piece);
        joined = true;
      }
    } else if (above != nullptr && L.wrapped_values(row)) {
      bool fits = true, cue = Closer(row, gap_above, below, gap_below);
      for (const RowPiece& p : row.pieces) {
        RowPiece* cell = L.in_column(*above, L.first(p));
        fits = fits && cell != nullptr && L.single(*cell) && !IsNumericCell(cell->text);
        cue = cue || L.starts_lower(p.text) || (cell != nullptr && EndsOpen(cell->text));
      }
      if (fits && cue) {
        for (const RowPiece& p : row.pieces) AppendPiece(*L.in_column(*above, L.first(p)), p);
        joined = true;
      }
    } else if (above != nullptr && L.has_cells(row) && ContinuesEveryCell(row, *above, L)) {
      for (const RowPiece& p : row.pieces) AppendPiece(*L.in_column(*above, L.first(p)), p);
      joined = true;
    }
    if (joined) {
      Absorb(*above, row);
    } else {
      out.push_back(std::move(row));
    }
  }
  return out;
}

// Bottom to top: labels set above the last line of their row (the values on that line), chains of them.
std::vector<TextRow> JoinDown(std::vector<TextRow>& rows, size_t header_end, const Layout& L) {
  std::vector<TextRow> out;  // reversed
  for (size_t k = rows.size(); k-- > 0;) {
    TextRow& row = rows[k];
    TextRow* below = !out.empty() && L.has_cells(out.back()) ? &out.back() : nullptr;
    if (below != nullptr && k + 1 > header_end && L.label_only(row) && !EndsWithColon(row.pieces[0].text)) {
      // Text cues only: a section's heading, too, sits closer to its first row than to the row above.
      const RowPiece& piece = row.pieces[0];
      const RowPiece& next = *L.label(*below);
      // The last line of a label two lines or more long (the line above it goes on into it) is no
      // section's heading either: a spreadsheet's label wrapped over three lines, its values on the last.
      const TextRow* above = k > header_end ? &rows[k - 1] : nullptr;
      const bool goes_on_into = above != nullptr && L.label_only(*above) &&
                                (EndsOpen(above->pieces[0].text) || L.starts_lower(piece.text));
      if (EndsOpen(piece.text) || L.starts_lower(next.text) || L.fills(piece, next) || goes_on_into) {
        PrependPiece(below->pieces[0], piece);
        Absorb(*below, row);
        continue;
      }
    }
    out.push_back(std::move(row));
  }
  std::reverse(out.begin(), out.end());
  return out;
}

}  // namespace

// Currency signs set apart from their figures in a column of their own in financial statements.
constexpr std::string_view kCurrencySigns[] = {"$",      "\u20ac", "\u00a3", "\u00a5",
                                               "\u20b9", "\u20a9", "\u20bd"};

bool IsCurrencySign(std::string_view text) {
  for (std::string_view sign : kCurrencySigns) {
    if (text == sign) return true;
  }
  return false;
}

bool GoesOnFrom(const std::string& above, const std::string& below) {
  return !IsNumericCell(above) && !IsNumericCell(below) && (StartsLower(below) || EndsOpen(above));
}

bool IsYearLike(std::string_view t) {
  if (t.starts_with("FY")) t.remove_prefix(t.size() > 2 && t[2] == ' ' ? 3 : 2);
  if (t.size() < 4) return false;
  for (size_t i = 0; i < 4; ++i) {
    if (t[i] < '0' || t[i] > '9') return false;
  }
  const int year = (t[0] - '0') * 1000 + (t[1] - '0') * 100 + (t[2] - '0') * 10 + (t[3] - '0');
  if (year < 1800 || year > 2199) return false;
  if (t.size() == 4) return true;
  if (t[4] != '-' && t[4] != '/') return false;
  for (size_t i = 5; i < t.size(); ++i) {
    if (t[i] < '0' || t[i] > '9') return false;
  }
  return t.size() == 7 || t.size() == 9;
}

bool IsNumericCell(const std::string& text) {
  std::string_view t = text;
  // A currency sign before the number, a footnote mark after it ("1,234*", "12.5 r", "45\u2020").
  for (std::string_view sign : kCurrencySigns) {
    if (t.starts_with(sign)) t.remove_prefix(sign.size());
  }
  for (std::string_view mark : {"*", "\u2020", "\u2021", "\u00a7"}) {
    if (t.ends_with(mark)) t.remove_suffix(mark.size());
  }
  // Its scale in words or as a letter after a digit ("$2.7 billion", "12 percent", "$3.1B", "45K").
  for (std::string_view scale : {" thousand", " million", " billion", " trillion", " percent"}) {
    if (t.ends_with(scale)) {
      t.remove_suffix(scale.size());
      break;
    }
  }
  if (t.size() >= 2 && std::string_view("KMBT").find(t.back()) != std::string_view::npos &&
      t[t.size() - 2] >= '0' && t[t.size() - 2] <= '9') {
    t.remove_suffix(1);
  }
  if (t.size() >= 2 && t.back() >= 'a' && t.back() <= 'z' &&
      !(t[t.size() - 2] >= 'a' && t[t.size() - 2] <= 'z')) {
    t.remove_suffix(1);  // one letter, not a word's end: "12.5p", "45 e"
  }
  int digits = 0;
  for (size_t i = 0; i < t.size(); ++i) {
    const char c = t[i];
    if (c >= '0' && c <= '9') {
      ++digits;
    } else if (t.substr(i).starts_with("\u2212") || t.substr(i).starts_with("\u2013")) {
      i += 2;  // a minus sign, or an en dash set as one
    } else if (t.substr(i).starts_with("\u00b1")) {
      i += 1;  // a plus-minus sign: "0.81 ± 0.02", a mean and its spread
    } else if (std::string_view(" .,-+%$()/:").find(c) == std::string_view::npos) {
      return false;
    }
  }
  return digits > 0;
}

namespace {

// "330", "317\u2013321", "xxv", "12n", "45ff": a page number or a range of them, in an index.
bool IsLocator(std::string_view t) {
  for (std::string_view dash : {"\u2013", "-"}) {
    if (const size_t at = t.find(dash); at != std::string_view::npos && at > 0) {
      return IsLocator(t.substr(0, at)) && IsLocator(t.substr(at + dash.size()));
    }
  }
  for (std::string_view note : {"ff", "f", "n"}) {
    if (t.size() > note.size() && t.ends_with(note) && t[t.size() - note.size() - 1] >= '0' &&
        t[t.size() - note.size() - 1] <= '9') {
      t.remove_suffix(note.size());
      break;
    }
  }
  if (t.empty() || t.size() > kMaxLocatorChars) return false;
  // Front matter's pages in lower-case Roman numbers, below 400 ("mix" is a word).
  const int roman = t[0] >= 'a' && t[0] <= 'z' ? RomanNumeralValue(t) : 0;
  return IsBareNumber(t, kMaxLocatorChars) || (roman > 0 && roman < 400);
}

}  // namespace

bool IsIndexEntry(std::string_view text) {
  while (!text.empty() && text.back() == ' ') text.remove_suffix(1);
  const bool open = text.ends_with(',');  // the entry goes on on the next line
  if (open) text.remove_suffix(1);
  // Locators from the end back to the comma before the entry's words (or the line's start).
  size_t locators = 0;
  for (;;) {
    const size_t comma = text.rfind(", ");
    const std::string_view last = comma == std::string_view::npos ? text : text.substr(comma + 2);
    if (!IsLocator(last)) {
      // Words before the locators; a line of locators alone goes on from the line above (it has commas).
      return locators > 0 && (comma != std::string_view::npos || !last.empty());
    }
    ++locators;
    if (comma == std::string_view::npos) return locators >= 2 || open;
    text = text.substr(0, comma);
  }
}

bool IsPlaceholderCell(const std::string& text) {
  static constexpr std::array<std::string_view, 16> kNoValue = {
      "-", "\u2013", "\u2014", ".",   "..",  "...",  "\u2026", "*",
      "x", "n/a",    "na",     "nil", "(x)", "(na)", "(d)",    "(z)"};
  std::string lower = text;
  std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
  return std::find(kNoValue.begin(), kNoValue.end(), lower) != kNoValue.end();
}

namespace {

// A font of symbols rather than letters: Wingdings (1 to 3), Webdings, (Zapf) Dingbats, Symbol or
// SymbolMT, by its family's name (after a subset's "ABCDEF+" prefix, before a "-Bold" or ",Bold" style).
bool IsSymbolFont(std::string_view font) {
  const size_t plus = font.find('+');
  if (plus != std::string_view::npos) font.remove_prefix(plus + 1);
  font = font.substr(0, font.find_first_of("-,"));
  for (std::string_view family : {"Wingdings", "Webdings", "ZapfDingbats", "Dingbats"}) {
    if (font.starts_with(family)) return true;
  }
  return font == "Symbol" || font == "SymbolMT";
}

}  // namespace

bool IsMarkCell(const std::string& text, const std::string& font) {
  if (text.empty()) return false;
  size_t i = 0;
  const char32_t c = DecodeUtf8(text, i);
  if (i != text.size()) return false;  // one character
  if (IsSymbolFont(font)) return true;
  return c == '*' || c == 'x' || c == 'X' || c == 0x2022 || c == 0x00D7 || (c >= 0x25A0 && c <= 0x25FF) ||
         (c >= 0x2610 && c <= 0x2612) || (c >= 0x2713 && c <= 0x2718) || (c >= 0xE000 && c <= 0xF8FF);
}

std::vector<TextRow> BuildRows(const std::vector<TextLine>& lines, const std::vector<bool>& used) {
  std::vector<size_t> order;
  for (size_t i = 0; i < lines.size(); ++i) {
    if (!used[i]) order.push_back(i);
  }
  std::sort(order.begin(), order.end(),
            [&](size_t a, size_t b) { return lines[a].box.cy() < lines[b].box.cy(); });
  std::vector<TextRow> rows;
  Rect first;  // the first line of the last row: a line joins the row on its band, not on the row's union
               // (a label centred between two rows, overlapping both, would chain them into one)
  for (size_t li : order) {
    const Rect& b = lines[li].box;
    if (rows.empty() || VerticalOverlap(first, b) <= 0.5) {
      rows.push_back({{}, b, {}});
      first = b;
    }
    rows.back().box = rows.back().box.Union(b);
    for (AlignedPiece& p : SplitAtColumnGaps(lines[li])) {
      RowPiece piece{li, p.x0, p.x1, std::move(p.text)};
      piece.bold = lines[li].bold;
      const size_t length = Utf8Length(piece.text);
      piece.leader = CutTrailingLeader(piece.text);
      // The text's extent without the leader, told by its share of the characters.
      if (piece.leader && length > 0) {
        piece.x1 = piece.x0 + (piece.x1 - piece.x0) * static_cast<double>(Utf8Length(piece.text)) /
                                  static_cast<double>(length);
      }
      rows.back().pieces.push_back(std::move(piece));
    }
  }
  for (TextRow& row : rows) {
    std::sort(row.pieces.begin(), row.pieces.end(),
              [](const RowPiece& a, const RowPiece& b) { return a.x0 < b.x0; });
    // A currency sign set apart before its figure ("$      12,004") is part of it.
    for (size_t i = 0; i + 1 < row.pieces.size(); ++i) {
      RowPiece& sign = row.pieces[i];
      const RowPiece& figure = row.pieces[i + 1];
      if (!IsCurrencySign(sign.text) || !IsNumericCell(figure.text)) continue;
      sign.text += figure.text;
      sign.x1 = figure.x1;
      if (figure.line != sign.line) row.joined_lines.push_back(figure.line);
      row.pieces.erase(row.pieces.begin() + static_cast<std::ptrdiff_t>(i) + 1);
    }
  }
  return rows;
}

void JoinWrappedRows(std::vector<TextRow>& rows, const std::vector<std::pair<double, double>>& gutters,
                     double header_bottom) {
  if (gutters.empty() || rows.size() < 2) return;
  Layout layout{gutters};
  layout.header_bottom = header_bottom;
  // (The rest of a word broken at the label above's end starts in lower case whatever the labels do.)
  size_t labelled = 0, lower = 0;
  const RowPiece* label_above = nullptr;
  for (const TextRow& row : rows) {
    const RowPiece* label = layout.label(row);
    const bool broken = label_above != nullptr && EndsInBrokenWord(label_above->text);
    label_above = label;
    if (!layout.has_cells(row) || broken) continue;
    ++labelled;
    lower += StartsLower(label->text);
  }
  layout.lower_case_labels = lower * 3 >= labelled && lower > 0;
  for (const TextRow& row : rows) {
    const RowPiece* label = layout.label(row);
    if (label != nullptr) layout.label_right = std::max(layout.label_right, label->x1);
  }
  const size_t header_lines = HeaderEnd(rows, layout);
  const bool aligned = HeaderLinesAligned(rows, header_lines, layout);
  SnapHeadings(rows, header_lines, layout);
  JoinHeader(rows, HeaderEnd(rows, layout), layout, aligned);
  const size_t header_end = HeaderEnd(rows, layout);
  std::vector<TextRow> up = JoinUp(rows, header_end, layout);
  rows = JoinDown(up, HeaderEnd(up, layout), layout);
}

namespace {

// The columns of `gutters` that `row` has a piece starting in.
std::vector<bool> FilledColumns(const TextRow& row, const std::vector<std::pair<double, double>>& gutters) {
  std::vector<bool> filled(gutters.size() + 1, false);
  for (const RowPiece& p : row.pieces) filled[ColumnOf(gutters, p.x0)] = true;
  return filled;
}

// Whether rows [begin, end), between two rules, are one row's wrapped lines (JoinRowsBetweenRules).
bool WrappedLinesOfOneRow(const std::vector<TextRow>& rows, size_t begin, size_t end,
                          const std::vector<std::pair<double, double>>& gutters) {
  const size_t first = std::ranges::count(FilledColumns(rows[begin], gutters), true);
  if (end - begin < 2 || first < 2) return false;
  for (size_t r = begin + 1; r < end; ++r) {
    const size_t filled = std::ranges::count(FilledColumns(rows[r], gutters), true);
    if (filled > first || filled > gutters.size()) return false;
    for (const RowPiece& p : rows[r].pieces) {
      if (IsNumericCell(p.text)) return false;
    }
  }
  return true;
}

}  // namespace

void JoinRowsBetweenRules(std::vector<TextRow>& rows, const std::vector<double>& rule_ys,
                          const std::vector<std::pair<double, double>>& gutters) {
  if (rule_ys.size() < 4 || gutters.empty()) return;
  auto band = [&](const TextRow& row) {
    return std::ranges::upper_bound(rule_ys, row.box.cy()) - rule_ys.begin();
  };
  std::vector<TextRow> out;
  for (size_t begin = 0; begin < rows.size();) {
    size_t end = begin + 1;
    while (end < rows.size() && band(rows[end]) == band(rows[begin])) ++end;
    const auto b = band(rows[begin]);
    const bool one_row = b > 0 && b < static_cast<std::ptrdiff_t>(rule_ys.size()) &&
                         WrappedLinesOfOneRow(rows, begin, end, gutters);
    out.push_back(std::move(rows[begin]));
    for (size_t r = begin + 1; r < end; ++r) {
      if (!one_row) {
        out.push_back(std::move(rows[r]));
        continue;
      }
      TextRow& into = out.back();
      for (const RowPiece& p : rows[r].pieces) {
        auto cell = std::ranges::find_if(into.pieces, [&](const RowPiece& q) {
          return ColumnOf(gutters, q.x0) == ColumnOf(gutters, p.x0);
        });
        if (cell != into.pieces.end()) {
          AppendPiece(*cell, p);
        } else {
          into.pieces.push_back(p);
        }
      }
      std::ranges::sort(into.pieces, {}, &RowPiece::x0);
      Absorb(into, rows[r]);
    }
    begin = end;
  }
  rows = std::move(out);
}

size_t ColumnOf(const std::vector<std::pair<double, double>>& gutters, double x) {
  size_t c = 0;
  while (c < gutters.size() && x > (gutters[c].first + gutters[c].second) / 2) ++c;
  return c;
}

}  // namespace mineru::document
