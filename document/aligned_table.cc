#include "document/aligned_table.h"

#include <algorithm>
#include <cmath>
#include <string_view>

namespace mineru::document {
namespace {

constexpr size_t kMinRows = 3;
constexpr size_t kMaxCellChars = 40;
constexpr size_t kMaxMeanCellChars = 20;

struct Row {
  std::vector<size_t> cells;  // line indices, left to right
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

// Emits a table for rows [begin, end) when their cells fall into >= 2 consistent columns.
void TryTable(const std::vector<TextLine>& lines, const std::vector<Row>& rows, size_t begin, size_t end,
              std::vector<RuledTable>& out) {
  if (end - begin < kMinRows) return;
  std::vector<std::pair<double, double>> spans;
  for (size_t r = begin; r < end; ++r) {
    for (size_t li : rows[r].cells) spans.push_back({lines[li].box.x0, lines[li].box.x1});
  }
  std::sort(spans.begin(), spans.end());
  std::vector<std::pair<double, double>> columns;
  for (const auto& s : spans) {
    if (!columns.empty() && s.first <= columns.back().second + 2) {
      columns.back().second = std::max(columns.back().second, s.second);
    } else {
      columns.push_back(s);
    }
  }
  if (columns.size() < 2) return;
  // Most rows must fill at least two columns.
  size_t full = 0;
  for (size_t r = begin; r < end; ++r) full += rows[r].cells.size() >= 2;
  if (full * 4 < (end - begin) * 3) return;
  // Cells of tables are short: numbers, names, labels. Narrow columns of prose have longer lines.
  size_t chars = 0, count = 0;
  for (size_t r = begin; r < end; ++r) {
    for (size_t li : rows[r].cells) {
      chars += lines[li].text.size();
      ++count;
    }
  }
  if (count == 0 || chars > kMaxMeanCellChars * count) return;
  // Without rules, only numbers make the grid unmistakable: some column must be mostly numeric.
  std::vector<size_t> numeric(columns.size(), 0), filled(columns.size(), 0);
  for (size_t r = begin; r < end; ++r) {
    for (size_t li : rows[r].cells) {
      size_t c = 0;
      while (c + 1 < columns.size() && lines[li].box.cx() > columns[c].second) ++c;
      ++filled[c];
      numeric[c] += IsNumeric(lines[li].text);
    }
  }
  bool has_numeric_column = false;
  for (size_t c = 0; c < columns.size(); ++c) {
    has_numeric_column = has_numeric_column || (filled[c] >= kMinRows && numeric[c] * 10 >= filled[c] * 6);
  }
  if (!has_numeric_column) return;
  RuledTable table;
  table.num_rows = static_cast<int>(end - begin);
  table.num_cols = static_cast<int>(columns.size());
  std::string html = "<table>";
  for (size_t r = begin; r < end; ++r) {
    std::vector<std::string> cells(columns.size());
    for (size_t li : rows[r].cells) {
      const TextLine& line = lines[li];
      size_t c = 0;
      while (c + 1 < columns.size() && line.box.cx() > columns[c].second) ++c;
      if (!cells[c].empty()) cells[c].push_back(' ');
      cells[c] += line.text;
      table.line_indices.push_back(li);
      table.box = table.box.Union(line.box);
    }
    html += "<tr>";
    for (const std::string& cell : cells) {
      html += "<td>";
      AppendEscaped(html, cell);
      html += "</td>";
    }
    html += "</tr>";
  }
  html += "</table>";
  table.html = std::move(html);
  out.push_back(std::move(table));
}

}  // namespace

std::vector<RuledTable> FindAlignedTables(const std::vector<TextLine>& lines, const std::vector<bool>& used,
                                          const Rect& page) {
  // Rows: lines sharing a baseline band, sorted top to bottom.
  std::vector<size_t> order;
  for (size_t i = 0; i < lines.size(); ++i) {
    if (!used[i]) order.push_back(i);
  }
  std::sort(order.begin(), order.end(),
            [&](size_t a, size_t b) { return lines[a].box.cy() < lines[b].box.cy(); });
  std::vector<Row> rows;
  for (size_t li : order) {
    const Rect& b = lines[li].box;
    if (!rows.empty() && VerticalOverlap(rows.back().box, b) > 0.5) {
      rows.back().cells.push_back(li);
      rows.back().box = rows.back().box.Union(b);
    } else {
      rows.push_back({{li}, b});
    }
  }
  for (Row& row : rows) {
    std::sort(row.cells.begin(), row.cells.end(),
              [&](size_t a, size_t b) { return lines[a].box.x0 < lines[b].box.x0; });
  }
  auto short_row = [&](const Row& row) {
    for (size_t li : row.cells) {
      if (lines[li].text.size() > kMaxCellChars || lines[li].box.width() > 0.3 * page.width()) return false;
    }
    return true;
  };
  // Runs of consecutive short rows with at most a line and a half of space between them; a run starts
  // and continues only on rows of two or more cells (single-cell rows may sit inside it).
  std::vector<RuledTable> out;
  size_t begin = 0;
  while (begin < rows.size()) {
    if (rows[begin].cells.size() < 2 || !short_row(rows[begin])) {
      ++begin;
      continue;
    }
    size_t end = begin + 1;
    while (end < rows.size() && short_row(rows[end])) {
      double h = std::max(rows[end - 1].box.height(), 1.0);
      if (rows[end].box.y0 - rows[end - 1].box.y1 > 1.5 * h) break;
      ++end;
    }
    while (end > begin + 1 && rows[end - 1].cells.size() < 2) --end;  // no trailing single-cell rows
    TryTable(lines, rows, begin, end, out);
    begin = end;
  }
  return out;
}

}  // namespace mineru::document
