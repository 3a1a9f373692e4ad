#include "document/markdown_metrics.h"

#include <algorithm>
#include <cstdint>
#include <map>

namespace mineru::document {
namespace {

std::u32string Decode(std::string_view s) {
  std::u32string out;
  out.reserve(s.size());
  size_t i = 0;
  while (i < s.size()) {
    unsigned char c = static_cast<unsigned char>(s[i]);
    int n = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 0;
    if (n == 0 || i + static_cast<size_t>(n) > s.size()) {
      out.push_back(0xFFFD);
      ++i;
      continue;
    }
    char32_t r = n == 1 ? c : n == 2 ? (c & 0x1F) : n == 3 ? (c & 0x0F) : (c & 0x07);
    for (int k = 1; k < n; ++k) r = (r << 6) | (static_cast<unsigned char>(s[i + k]) & 0x3F);
    out.push_back(r);
    i += static_cast<size_t>(n);
  }
  return out;
}

std::string CollapseSpaces(std::string_view s) {
  std::string out;
  bool space = false;
  for (char c : s) {
    if (c == ' ' || c == '\n' || c == '\t' || c == '\r') {
      space = !out.empty();
      continue;
    }
    if (space) out.push_back(' ');
    space = false;
    out.push_back(c);
  }
  return out;
}

// Lower case ASCII, keep letters / digits / non-ASCII, everything else a space; collapsed.
std::string NormalizeLabel(std::string_view s) {
  std::string out;
  for (char c : s) {
    unsigned char u = static_cast<unsigned char>(c);
    if (u >= 0x80 || (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z')) {
      out.push_back(c);
    } else if (c >= 'A' && c <= 'Z') {
      out.push_back(static_cast<char>(c - 'A' + 'a'));
    } else {
      out.push_back(' ');
    }
  }
  return CollapseSpaces(out);
}

std::vector<std::string_view> Lines(std::string_view s) {
  std::vector<std::string_view> out;
  size_t start = 0;
  while (start <= s.size()) {
    size_t end = s.find('\n', start);
    if (end == std::string_view::npos) end = s.size();
    out.push_back(s.substr(start, end - start));
    start = end + 1;
  }
  return out;
}

std::string_view TrimLeft(std::string_view s) {
  size_t b = s.find_first_not_of(" \t");
  return b == std::string_view::npos ? std::string_view() : s.substr(b);
}

std::string_view Trim(std::string_view s) {
  s = TrimLeft(s);
  const size_t e = s.find_last_not_of(" \t\r");
  return e == std::string_view::npos ? std::string_view() : s.substr(0, e + 1);
}

bool IsSeparatorRow(std::string_view line) {
  line = TrimLeft(line);
  if (line.empty() || line[0] != '|') return false;
  return line.find_first_not_of("|-: \t") == std::string_view::npos;
}

}  // namespace

std::string NormalizeForMatch(std::string_view text) { return NormalizeLabel(text); }

std::string StripMarkdown(std::string_view markdown) {
  std::string text;
  for (std::string_view line : Lines(markdown)) {
    if (IsSeparatorRow(line)) continue;
    std::string_view l = TrimLeft(line);
    while (!l.empty() && l[0] == '#') l.remove_prefix(1);
    l = TrimLeft(l);
    if (l.size() >= 2 && (l[0] == '-' || l[0] == '*' || l[0] == '+') && l[1] == ' ') l.remove_prefix(2);
    text.append(l);
    text.push_back('\n');
  }
  std::string out;
  size_t i = 0;
  while (i < text.size()) {
    if (text.compare(i, 4, "<!--") == 0) {
      size_t e = text.find("-->", i + 4);
      i = e == std::string::npos ? text.size() : e + 3;
      continue;
    }
    if (text.compare(i, 2, "![") == 0) {
      size_t close = text.find("](", i + 2);
      size_t end = close == std::string::npos ? std::string::npos : text.find(')', close + 2);
      if (end != std::string::npos) {
        i = end + 1;
        continue;
      }
    }
    char c = text[i];
    if (c == '<') {
      size_t e = text.find('>', i + 1);
      if (e != std::string::npos && e - i < 200) {
        out.push_back(' ');
        i = e + 1;
        continue;
      }
    }
    if (c == '[') {
      size_t close = text.find("](", i + 1);
      size_t nl = text.find('\n', i + 1);
      if (close != std::string::npos && close < nl) {
        size_t end = text.find(')', close + 2);
        if (end != std::string::npos && end < nl) {
          out.append(text, i + 1, close - i - 1);
          i = end + 1;
          continue;
        }
      }
    }
    if (c == '*' || c == '`' || c == '|' || c == '$' || c == '\\') {
      if (c == '|') out.push_back(' ');
      ++i;
      continue;
    }
    if (c == '_' && (i + 1 < text.size() && text[i + 1] == '_')) {
      i += 2;
      continue;
    }
    if (text.compare(i, 5, "&amp;") == 0) {
      out.push_back('&');
      i += 5;
      continue;
    }
    if (text.compare(i, 4, "&lt;") == 0 || text.compare(i, 4, "&gt;") == 0) {
      out.push_back(text[i + 1] == 'l' ? '<' : '>');
      i += 4;
      continue;
    }
    out.push_back(c);
    ++i;
  }
  return CollapseSpaces(out);
}

double NormalizedEditDistance(std::string_view a, std::string_view b) {
  std::u32string x = Decode(a), y = Decode(b);
  if (x.empty() && y.empty()) return 0;
  if (x.empty() || y.empty()) return 1;
  if (x.size() < y.size()) std::swap(x, y);
  std::vector<uint32_t> prev(y.size() + 1), cur(y.size() + 1);
  for (size_t j = 0; j <= y.size(); ++j) prev[j] = static_cast<uint32_t>(j);
  for (size_t i = 1; i <= x.size(); ++i) {
    cur[0] = static_cast<uint32_t>(i);
    char32_t xi = x[i - 1];
    for (size_t j = 1; j <= y.size(); ++j) {
      uint32_t sub = prev[j - 1] + (xi == y[j - 1] ? 0 : 1);
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, sub});
    }
    std::swap(prev, cur);
  }
  return static_cast<double>(prev[y.size()]) / static_cast<double>(x.size());
}

std::vector<std::string> ExtractHeadings(std::string_view markdown) {
  std::vector<std::string> out;
  for (std::string_view line : Lines(markdown)) {
    line = TrimLeft(line);
    if (line.empty() || line[0] != '#') continue;
    size_t n = line.find_first_not_of('#');
    if (n == std::string_view::npos || n > 6 || line[n] != ' ') continue;
    std::string h = NormalizeLabel(line.substr(n));
    if (!h.empty()) out.push_back(std::move(h));
  }
  return out;
}

namespace {

// Each predicted item matched with the first unmatched reference item `same` says it is.
template <typename Same>
MatchScore MatchOneToOne(const std::vector<std::string>& pred, const std::vector<std::string>& ref,
                         Same same) {
  MatchScore score;
  score.predicted = static_cast<int>(pred.size());
  score.reference = static_cast<int>(ref.size());
  std::vector<bool> used(ref.size(), false);
  for (const std::string& p : pred) {
    for (size_t j = 0; j < ref.size(); ++j) {
      if (!used[j] && same(p, ref[j])) {
        used[j] = true;
        ++score.matched;
        break;
      }
    }
  }
  return score;
}

}  // namespace

HeadingScore ScoreHeadings(std::string_view predicted_md, std::string_view reference_md) {
  return MatchOneToOne(
      ExtractHeadings(predicted_md), ExtractHeadings(reference_md),
      [](const std::string& p, const std::string& r) { return NormalizedEditDistance(p, r) <= 0.2; });
}

std::vector<std::string> ExtractDisplayEquations(std::string_view markdown) {
  std::vector<std::string> out;
  bool inside = false;
  std::string latex;
  for (std::string_view line : Lines(markdown)) {
    if (Trim(line) == "$$") {
      if (inside) out.push_back(latex);
      inside = !inside;
      latex.clear();
      continue;
    }
    if (!inside) continue;
    for (char c : line) {
      if (c != ' ' && c != '\t' && c != '\r') latex.push_back(c);
    }
  }
  return out;
}

EquationScore ScoreDisplayEquations(std::string_view predicted_md, std::string_view reference_md) {
  return MatchOneToOne(ExtractDisplayEquations(predicted_md), ExtractDisplayEquations(reference_md),
                       [](const std::string& p, const std::string& r) { return p == r; });
}

std::vector<std::string> ExtractInlineFormulas(std::string_view markdown) {
  std::vector<std::string> out;
  bool display = false;
  for (std::string_view line : Lines(markdown)) {
    if (Trim(line) == "$$") {
      display = !display;
      continue;
    }
    if (display) continue;
    for (size_t open = line.find('$'); open != std::string_view::npos;) {
      const size_t close = line.find('$', open + 1);
      if (close == std::string_view::npos) break;
      std::string latex;
      for (char c : line.substr(open + 1, close - open - 1)) {
        if (c != ' ' && c != '\t' && c != '\r') latex.push_back(c);
      }
      if (!latex.empty()) out.push_back(std::move(latex));
      open = line.find('$', close + 1);
    }
  }
  return out;
}

EquationScore ScoreInlineFormulas(std::string_view predicted_md, std::string_view reference_md) {
  return MatchOneToOne(ExtractInlineFormulas(predicted_md), ExtractInlineFormulas(reference_md),
                       [](const std::string& p, const std::string& r) { return p == r; });
}

std::vector<std::string> ExtractTableCells(std::string_view markdown) {
  std::vector<std::string> cells;
  for (std::string_view line : Lines(markdown)) {
    std::string_view l = TrimLeft(line);
    if (l.empty() || l[0] != '|' || IsSeparatorRow(l)) continue;
    size_t i = 1;
    while (i < l.size()) {
      size_t e = l.find('|', i);
      if (e == std::string_view::npos) break;
      cells.push_back(NormalizeLabel(l.substr(i, e - i)));
      i = e + 1;
    }
  }
  size_t pos = 0;
  while ((pos = markdown.find("<t", pos)) != std::string_view::npos) {
    if (pos + 3 >= markdown.size() || (markdown[pos + 2] != 'd' && markdown[pos + 2] != 'h') ||
        (markdown[pos + 3] != '>' && markdown[pos + 3] != ' ')) {
      pos += 2;
      continue;
    }
    size_t open_end = markdown.find('>', pos);
    if (open_end == std::string_view::npos) break;
    size_t close = markdown.find("</t", open_end);
    if (close == std::string_view::npos) break;
    cells.push_back(NormalizeLabel(StripMarkdown(markdown.substr(open_end + 1, close - open_end - 1))));
    pos = close + 3;
  }
  return cells;
}

double TableCellAccuracy(std::string_view predicted_md, std::string_view reference_md) {
  std::vector<std::string> ref = ExtractTableCells(reference_md);
  if (ref.empty()) return -1;
  std::map<std::string, int> pred;
  for (std::string& c : ExtractTableCells(predicted_md)) ++pred[c];
  int found = 0;
  for (const std::string& c : ref) {
    auto it = pred.find(c);
    if (it != pred.end() && it->second > 0) {
      --it->second;
      ++found;
    }
  }
  return static_cast<double>(found) / static_cast<double>(ref.size());
}

}  // namespace mineru::document
