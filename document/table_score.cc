#include "document/table_score.h"

#include <algorithm>
#include <map>

#include "document/markdown_metrics.h"

namespace mineru::document {
namespace {

// A cell while its grid is built: text and the span it covers.
struct RawCell {
  std::string text;
  int rowspan = 1;
  int colspan = 1;
};

// Places rows of cells into a grid, each cell in the first free slot of its row.
TableGrid BuildGrid(const std::vector<std::vector<RawCell>>& rows) {
  TableGrid grid;
  auto slot = [&](size_t r, size_t c) -> int& {
    if (grid.slots.size() <= r) grid.slots.resize(r + 1);
    if (grid.slots[r].size() <= c) grid.slots[r].resize(c + 1, -1);
    return grid.slots[r][c];
  };
  for (size_t r = 0; r < rows.size(); ++r) {
    size_t c = 0;
    for (const RawCell& cell : rows[r]) {
      while (r < grid.slots.size() && c < grid.slots[r].size() && grid.slots[r][c] >= 0) ++c;
      int id = static_cast<int>(grid.cells.size());
      grid.cells.push_back(cell.text);
      for (int dr = 0; dr < cell.rowspan; ++dr) {
        for (int dc = 0; dc < cell.colspan; ++dc)
          slot(r + static_cast<size_t>(dr), c + static_cast<size_t>(dc)) = id;
      }
      c += static_cast<size_t>(cell.colspan);
    }
  }
  size_t width = 0;
  for (const auto& row : grid.slots) width = std::max(width, row.size());
  for (auto& row : grid.slots) row.resize(width, -1);
  return grid;
}

int SpanAttribute(std::string_view tag, std::string_view name) {
  size_t at = tag.find(name);
  if (at == std::string_view::npos) return 1;
  size_t i = at + name.size();
  while (i < tag.size() && (tag[i] == '=' || tag[i] == '"' || tag[i] == '\'' || tag[i] == ' ')) ++i;
  int n = 0;
  while (i < tag.size() && tag[i] >= '0' && tag[i] <= '9' && n < 1000) n = n * 10 + (tag[i++] - '0');
  return std::clamp(n, 1, 1000);
}

void HtmlTables(std::string_view md, std::vector<TableGrid>& out) {
  size_t pos = 0;
  while ((pos = md.find("<table", pos)) != std::string_view::npos) {
    size_t end = md.find("</table>", pos);
    if (end == std::string_view::npos) end = md.size();
    std::string_view table = md.substr(pos, end - pos);
    pos = end;
    std::vector<std::vector<RawCell>> rows;
    size_t i = 0;
    while ((i = table.find("<t", i)) != std::string_view::npos) {
      if (i + 3 > table.size()) break;
      char kind = table[i + 2];
      size_t open_end = table.find('>', i);
      if (open_end == std::string_view::npos) break;
      if (kind == 'r') {
        rows.emplace_back();
      } else if ((kind == 'd' || kind == 'h') && (table[i + 3] == '>' || table[i + 3] == ' ')) {
        std::string_view tag = table.substr(i, open_end - i);
        size_t close = table.find("</t", open_end);
        if (close == std::string_view::npos) close = table.size();
        if (rows.empty()) rows.emplace_back();
        rows.back().push_back({FoldCellText(StripMarkdown(table.substr(open_end + 1, close - open_end - 1))),
                               SpanAttribute(tag, "rowspan"), SpanAttribute(tag, "colspan")});
        open_end = close;
      }
      i = open_end;
    }
    if (!rows.empty()) out.push_back(BuildGrid(rows));
  }
}

bool IsPipeSeparator(std::string_view line) {
  return !line.empty() && line[0] == '|' && line.find_first_not_of("|-: \t") == std::string_view::npos;
}

// Slots with the same text next to each other become one cell spanning them (across, then down).
TableGrid MergeRepeats(const std::vector<std::vector<std::string>>& texts) {
  size_t rows = texts.size(), cols = 0;
  for (const auto& r : texts) cols = std::max(cols, r.size());
  TableGrid grid;
  grid.slots.assign(rows, std::vector<int>(cols, -1));
  auto text = [&](size_t r, size_t c) { return c < texts[r].size() ? texts[r][c] : std::string(); };
  for (size_t r = 0; r < rows; ++r) {
    for (size_t c = 0; c < cols; ++c) {
      if (grid.slots[r][c] >= 0) continue;
      std::string t = text(r, c);
      size_t c1 = c + 1;
      while (!t.empty() && c1 < cols && grid.slots[r][c1] < 0 && text(r, c1) == t) ++c1;
      size_t r1 = r + 1;
      auto row_repeats = [&](size_t rr) {
        if (t.empty()) return false;
        for (size_t cc = c; cc < c1; ++cc) {
          if (grid.slots[rr][cc] >= 0 || text(rr, cc) != t) return false;
        }
        return (c == 0 || text(rr, c - 1) != t) && (c1 >= cols || text(rr, c1) != t);
      };
      while (r1 < rows && row_repeats(r1)) ++r1;
      int id = static_cast<int>(grid.cells.size());
      grid.cells.push_back(t);
      for (size_t rr = r; rr < r1; ++rr) {
        for (size_t cc = c; cc < c1; ++cc) grid.slots[rr][cc] = id;
      }
    }
  }
  return grid;
}

void PipeTables(std::string_view md, std::vector<TableGrid>& out) {
  std::vector<std::vector<std::string>> rows;
  auto flush = [&] {
    if (!rows.empty()) out.push_back(MergeRepeats(rows));
    rows.clear();
  };
  size_t start = 0;
  while (start <= md.size()) {
    size_t nl = md.find('\n', start);
    if (nl == std::string_view::npos) nl = md.size();
    std::string_view line = md.substr(start, nl - start);
    start = nl + 1;
    size_t b = line.find_first_not_of(" \t");
    line = b == std::string_view::npos ? std::string_view() : line.substr(b);
    if (line.empty() || line[0] != '|') {
      flush();
      continue;
    }
    if (IsPipeSeparator(line)) continue;
    std::vector<std::string> cells;
    size_t i = 1;
    while (i < line.size()) {
      size_t e = line.find('|', i);
      if (e == std::string_view::npos) break;
      cells.push_back(FoldCellText(line.substr(i, e - i)));
      i = e + 1;
    }
    rows.push_back(std::move(cells));
  }
  flush();
}

// Punctuation, symbols, spaces and private-use characters outside ASCII (bullets, dashes, quotes, arrows,
// box drawing, CJK and full-width punctuation): not letters or digits.
bool IsSymbol(char32_t c) {
  return (c >= 0xA0 && c <= 0xBF) || c == 0xD7 || c == 0xF7 || (c >= 0x2000 && c <= 0x206F) ||
         (c >= 0x2190 && c <= 0x2BFF) || (c >= 0x3000 && c <= 0x303F) || (c >= 0xE000 && c <= 0xF8FF) ||
         (c >= 0xFF00 && c <= 0xFF0F) || (c >= 0xFF1A && c <= 0xFF20) || (c >= 0xFF3B && c <= 0xFF40) ||
         (c >= 0xFF5B && c <= 0xFF65) || c == 0xFFFD;
}

}  // namespace

std::string FoldCellText(std::string_view text) {
  std::string out;
  for (size_t i = 0; i < text.size();) {
    auto lead = static_cast<unsigned char>(text[i]);
    size_t n = lead < 0x80 ? 1 : lead < 0xE0 ? 2 : lead < 0xF0 ? 3 : 4;
    n = std::min(n, text.size() - i);
    char32_t c = lead < 0x80 ? lead : lead < 0xE0 ? lead & 0x1F : lead < 0xF0 ? lead & 0x0F : lead & 0x07;
    for (size_t k = 1; k < n; ++k) c = (c << 6) | (static_cast<unsigned char>(text[i + k]) & 0x3F);
    if (c >= 'A' && c <= 'Z') {
      out.push_back(static_cast<char>(c - 'A' + 'a'));
    } else if ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || (c >= 0x80 && !IsSymbol(c))) {
      out.append(text.substr(i, n));
    }
    i += n;
  }
  return out;
}

std::vector<TableGrid> ExtractTableGrids(std::string_view markdown) {
  std::vector<TableGrid> out;
  HtmlTables(markdown, out);
  PipeTables(markdown, out);
  return out;
}

std::vector<std::string> AdjacencyRelations(const TableGrid& grid) {
  std::vector<std::string> out;
  size_t rows = grid.slots.size(), cols = rows == 0 ? 0 : grid.slots[0].size();
  std::vector<bool> done(grid.cells.size(), false);
  for (size_t r = 0; r < rows; ++r) {
    for (size_t c = 0; c < cols; ++c) {
      int id = grid.slots[r][c];
      if (id < 0 || done[static_cast<size_t>(id)] || grid.cells[static_cast<size_t>(id)].empty()) continue;
      done[static_cast<size_t>(id)] = true;  // (r, c) is the cell's top-left slot
      const std::string& text = grid.cells[static_cast<size_t>(id)];
      for (size_t cc = c + 1; cc < cols; ++cc) {
        int other = grid.slots[r][cc];
        if (other < 0 || other == id || grid.cells[static_cast<size_t>(other)].empty()) continue;
        out.push_back(text + '\x1f' + grid.cells[static_cast<size_t>(other)] + "\x1fH");
        break;
      }
      for (size_t rr = r + 1; rr < rows; ++rr) {
        int other = grid.slots[rr][c];
        if (other < 0 || other == id || grid.cells[static_cast<size_t>(other)].empty()) continue;
        out.push_back(text + '\x1f' + grid.cells[static_cast<size_t>(other)] + "\x1fV");
        break;
      }
    }
  }
  return out;
}

TableGrid ReadAsPipeTable(const TableGrid& grid) {
  std::vector<std::vector<std::string>> texts;
  for (const auto& row : grid.slots) {
    texts.emplace_back();
    for (int id : row) texts.back().push_back(id < 0 ? std::string() : grid.cells[static_cast<size_t>(id)]);
  }
  return MergeRepeats(texts);
}

AdjacencyScore ScoreTableAdjacency(std::string_view predicted_md, std::string_view reference_md) {
  AdjacencyScore score;
  std::map<std::string, int> predicted;
  // A reference of pipe tables only cannot tell a spanning cell from equal neighbours ("X" above "X"):
  // the prediction is read the same way, so an identical table scores the same in either format.
  bool pipe_reference = reference_md.find("<table") == std::string_view::npos;
  for (const TableGrid& g : ExtractTableGrids(predicted_md)) {
    for (std::string& rel : AdjacencyRelations(pipe_reference ? ReadAsPipeTable(g) : g)) {
      ++predicted[rel];
      ++score.predicted;
    }
  }
  for (const TableGrid& g : ExtractTableGrids(reference_md)) {
    for (const std::string& rel : AdjacencyRelations(g)) {
      ++score.reference;
      auto it = predicted.find(rel);
      if (it != predicted.end() && it->second > 0) {
        --it->second;
        ++score.matched;
      }
    }
  }
  return score;
}

}  // namespace mineru::document
