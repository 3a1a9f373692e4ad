// OTSL -> HTML. OTSL writes a table as a grid of cell tokens, row by row, each row ended by <nl>:
//   <fcel>text  a cell with content      <ecel>  an empty cell
//   <lcel>      continues the cell on its left (colspan)
//   <ucel>      continues the cell above (rowspan)
//   <xcel>      continues both (a 2-D span)
#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

#include "document/model_output_parser.h"

namespace mineru::document {
namespace {

enum class CellKind { kFull, kEmpty, kLeft, kUp, kCross };

struct Cell {
  CellKind kind = CellKind::kEmpty;
  std::string text;
};

std::string Trim(std::string_view s) {
  size_t b = s.find_first_not_of(" \t\r\n");
  if (b == std::string_view::npos) return {};
  size_t e = s.find_last_not_of(" \t\r\n");
  return std::string(s.substr(b, e - b + 1));
}

void AppendEscaped(std::string& out, std::string_view text) {
  for (char c : text) {
    switch (c) {
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '&':
        out += "&amp;";
        break;
      default:
        out.push_back(c);
    }
  }
}

std::vector<std::vector<Cell>> ParseGrid(std::string_view otsl) {
  static constexpr std::pair<std::string_view, CellKind> kTags[] = {
      {"<fcel>", CellKind::kFull}, {"<ecel>", CellKind::kEmpty}, {"<lcel>", CellKind::kLeft},
      {"<ucel>", CellKind::kUp},   {"<xcel>", CellKind::kCross},
  };
  std::vector<std::vector<Cell>> rows(1);
  Cell* current = nullptr;
  size_t i = 0;
  while (i < otsl.size()) {
    if (otsl[i] == '<') {
      bool matched = false;
      if (otsl.compare(i, 4, "<nl>") == 0) {
        rows.emplace_back();
        current = nullptr;
        i += 4;
        continue;
      }
      for (const auto& [tag, kind] : kTags) {
        if (otsl.compare(i, tag.size(), tag) == 0) {
          rows.back().push_back(Cell{kind, {}});
          current = &rows.back().back();
          i += tag.size();
          matched = true;
          break;
        }
      }
      if (matched) continue;
    }
    if (current != nullptr) current->text.push_back(otsl[i]);
    ++i;
  }
  while (!rows.empty() && rows.back().empty()) rows.pop_back();
  return rows;
}

}  // namespace

std::string OtslToHtml(std::string_view otsl) {
  if (otsl.find("<fcel>") == std::string_view::npos && otsl.find("<ecel>") == std::string_view::npos) {
    return std::string(otsl);
  }
  std::vector<std::vector<Cell>> rows = ParseGrid(otsl);
  size_t width = 0;
  for (const auto& r : rows) width = std::max(width, r.size());
  for (auto& r : rows) r.resize(width);  // short rows are padded with empty cells
  auto continues_left = [](CellKind k) { return k == CellKind::kLeft || k == CellKind::kCross; };
  auto continues_up = [](CellKind k) { return k == CellKind::kUp || k == CellKind::kCross; };

  std::string html = "<table>";
  for (size_t r = 0; r < rows.size(); ++r) {
    html += "<tr>";
    for (size_t c = 0; c < width; ++c) {
      const Cell& cell = rows[r][c];
      if (cell.kind != CellKind::kFull && cell.kind != CellKind::kEmpty) {
        // A continuation with no cell to continue (e.g. <lcel> first in a row) is kept as an empty cell.
        bool orphan = (continues_left(cell.kind) && c == 0) || (cell.kind == CellKind::kUp && r == 0);
        if (!orphan) continue;
      }
      size_t colspan = 1;
      while (c + colspan < width && continues_left(rows[r][c + colspan].kind)) ++colspan;
      size_t rowspan = 1;
      while (r + rowspan < rows.size() && continues_up(rows[r + rowspan][c].kind)) ++rowspan;
      html += "<td";
      if (rowspan > 1) html += " rowspan=\"" + std::to_string(rowspan) + "\"";
      if (colspan > 1) html += " colspan=\"" + std::to_string(colspan) + "\"";
      html += ">";
      AppendEscaped(html, Trim(cell.text));
      html += "</td>";
    }
    html += "</tr>";
  }
  html += "</table>";
  return html;
}

}  // namespace mineru::document
