#include "document/ruling_table.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace mineru::document {
namespace {

constexpr double kTol = 2.5;        // points: rules this close are one rule; ends this close touch
constexpr size_t kMaxRules = 4000;  // hostile pages: ignore the rest
constexpr int kMaxCells = 10000;

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

std::string CellText(std::vector<std::string>& parts) {
  std::string out;
  for (const std::string& p : parts) {
    if (p.empty()) continue;
    if (!out.empty()) out.push_back(' ');
    out += p;
  }
  return out;
}

}  // namespace

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
    if (ch.size() < 2 || cv.size() < 2) continue;
    std::vector<double> ys, xs;
    for (const Seg& s : ch) ys.push_back(s.pos);
    for (const Seg& s : cv) xs.push_back(s.pos);
    ys = ClusterPositions(std::move(ys));
    xs = ClusterPositions(std::move(xs));
    int rows = static_cast<int>(ys.size()) - 1;
    int cols = static_cast<int>(xs.size()) - 1;
    if (rows < 1 || cols < 1 || rows * cols < 2 || rows * cols > kMaxCells) continue;

    // Merge cells whose shared boundary is not drawn.
    auto cell = [&](int r, int c) { return static_cast<size_t>(r * cols + c); };
    UnionFind cells(static_cast<size_t>(rows * cols));
    for (int r = 0; r < rows; ++r) {
      for (int c = 0; c < cols; ++c) {
        double ymid = (ys[r] + ys[r + 1]) / 2, xmid = (xs[c] + xs[c + 1]) / 2;
        if (c + 1 < cols && !Covered(cv, xs[c + 1], ymid)) cells.Join(cell(r, c), cell(r, c + 1));
        if (r + 1 < rows && !Covered(ch, ys[r + 1], xmid)) cells.Join(cell(r, c), cell(r + 1, c));
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

    Rect box{xs.front(), ys.front(), xs.back(), ys.back()};
    // Characters into cells, line by line (lines are in reading order top to bottom).
    std::vector<std::vector<std::string>> text(static_cast<size_t>(rows * cols));
    RuledTable table;
    table.box = box;
    table.num_rows = rows;
    table.num_cols = cols;
    int filled_chars = 0;
    for (size_t li = 0; li < lines.size(); ++li) {
      if (line_used[li] || !box.ContainsCenterOf(lines[li].box, 1)) continue;
      line_used[li] = true;
      table.line_indices.push_back(li);
      size_t current = SIZE_MAX;
      std::string run;
      auto flush = [&]() {
        if (current != SIZE_MAX && !run.empty()) {
          size_t b = run.find_first_not_of(' ');
          size_t e = run.find_last_not_of(' ');
          if (b != std::string::npos) text[current].push_back(run.substr(b, e - b + 1));
        }
        run.clear();
      };
      for (const TextChar& ch : lines[li].chars) {
        if (ch.rune == ' ') {
          run.push_back(' ');
          continue;
        }
        auto cx = ch.box.cx(), cy = ch.box.cy();
        int c = static_cast<int>(std::upper_bound(xs.begin(), xs.end(), cx) - xs.begin()) - 1;
        int r = static_cast<int>(std::upper_bound(ys.begin(), ys.end(), cy) - ys.begin()) - 1;
        c = std::clamp(c, 0, cols - 1);
        r = std::clamp(r, 0, rows - 1);
        size_t o = owner[cell(r, c)];
        if (o != current) {
          flush();
          current = o;
        }
        AppendUtf8(run, ch.rune);
        ++filled_chars;
      }
      flush();
    }
    if (filled_chars == 0) {
      for (size_t li : table.line_indices) line_used[li] = false;
      continue;  // a frame or a drawing, not a table
    }
    std::string html = "<table>";
    for (int r = 0; r < rows; ++r) {
      html += "<tr>";
      for (int c = 0; c < cols; ++c) {
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
