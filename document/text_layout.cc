#include "document/text_layout.h"

#include <algorithm>
#include <cmath>
#include <map>

#include "document/aligned_table.h"
#include "document/model_output_parser.h"
#include "document/ruling_table.h"

namespace mineru::document {
namespace {

constexpr double kMarginBand = 0.14;  // top / bottom fraction of the page that may hold running text
constexpr int kMaxDepth = 12;
constexpr double kHeadingRatio = 1.08;  // a heading is at least this much larger than body text

// Decodes the first UTF-8 code point of `s` at `i` (advances i); U+FFFD on bad bytes.
char32_t DecodeUtf8(const std::string& s, size_t& i) {
  unsigned char c = static_cast<unsigned char>(s[i]);
  int n = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 0;
  if (n == 0 || i + static_cast<size_t>(n) > s.size()) {
    ++i;
    return 0xFFFD;
  }
  char32_t r = n == 1 ? c : n == 2 ? (c & 0x1F) : n == 3 ? (c & 0x0F) : (c & 0x07);
  for (int k = 1; k < n; ++k) r = (r << 6) | (static_cast<unsigned char>(s[i + k]) & 0x3F);
  i += static_cast<size_t>(n);
  return r;
}

char32_t LastRune(const std::string& s) {
  if (s.empty()) return 0;
  size_t i = s.size() - 1;
  while (i > 0 && (static_cast<unsigned char>(s[i]) & 0xC0) == 0x80) --i;
  return DecodeUtf8(s, i);
}

bool IsCjk(char32_t c) {
  return (c >= 0x3000 && c <= 0x9FFF) || (c >= 0xF900 && c <= 0xFAFF) || (c >= 0xFF00 && c <= 0xFFEF);
}

bool IsLower(char32_t c) { return (c >= 'a' && c <= 'z') || (c >= 0xDF && c <= 0xFF && c != 0xF7); }
bool IsLetter(char32_t c) { return IsLower(c) || (c >= 'A' && c <= 'Z') || (c >= 0xC0 && c <= 0x24F); }

std::string MaskDigits(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (c >= '0' && c <= '9') {
      if (out.empty() || out.back() != '#') out.push_back('#');
    } else if (c >= 'A' && c <= 'Z') {
      out.push_back(static_cast<char>(c - 'A' + 'a'));
    } else if (c != ' ') {
      out.push_back(c);
    }
  }
  return out;
}

enum class ItemKind { kLine, kTable, kImage };

struct Item {
  Rect box;
  ItemKind kind;
  size_t index;  // into lines, tables or images
};

// Reading order of `ids` (indices into items) appended to `out` as flows (each flow is read top-down).
void OrderItems(const std::vector<Item>& items, std::vector<size_t> ids, bool rtl, int depth,
                std::vector<std::vector<size_t>>& flows) {
  auto by_y = [&](size_t a, size_t b) {
    if (std::fabs(items[a].box.y0 - items[b].box.y0) > 2) return items[a].box.y0 < items[b].box.y0;
    return rtl ? items[a].box.x1 > items[b].box.x1 : items[a].box.x0 < items[b].box.x0;
  };
  if (ids.size() < 4 || depth > kMaxDepth) {
    std::sort(ids.begin(), ids.end(), by_y);
    if (!ids.empty()) flows.push_back(std::move(ids));
    return;
  }
  Rect region;
  for (size_t id : ids) region = region.Union(items[id].box);
  // Gutters: x gaps in the coverage of narrow items.
  std::vector<std::pair<double, double>> spans;
  for (size_t id : ids) {
    if (items[id].box.width() < 0.55 * region.width()) spans.push_back({items[id].box.x0, items[id].box.x1});
  }
  std::sort(spans.begin(), spans.end());
  double best_score = 0, gx0 = 0, gx1 = 0;
  // Columns only where most items are narrow: a single column with a few short lines or a table of
  // numbers has no gutter.
  if (spans.size() * 2 < ids.size()) spans.clear();
  double reach = spans.empty() ? 0 : spans.front().second;
  for (size_t i = 1; i < spans.size(); ++i) {
    if (spans[i].first - reach >= 6) {
      double g0 = reach, g1 = spans[i].first;
      size_t left = 0, right = 0;
      for (size_t id : ids) {
        const Rect& b = items[id].box;
        if (b.x1 <= g0 + 1) ++left;
        if (b.x0 >= g1 - 1) ++right;
      }
      double score = static_cast<double>(std::min(left, right));
      if (left >= 2 && right >= 2 && score > best_score) {
        best_score = score;
        gx0 = g0;
        gx1 = g1;
      }
    }
    reach = std::max(reach, spans[i].second);
  }
  if (best_score == 0) {
    std::sort(ids.begin(), ids.end(), by_y);
    flows.push_back(std::move(ids));
    return;
  }
  // Items crossing the gutter cut the region into bands.
  std::vector<size_t> spanning, sides;
  for (size_t id : ids) {
    const Rect& b = items[id].box;
    if (b.x0 < gx0 - 1 && b.x1 > gx1 + 1) {
      spanning.push_back(id);
    } else {
      sides.push_back(id);
    }
  }
  std::sort(spanning.begin(), spanning.end(), by_y);
  size_t next_side = 0;
  std::sort(sides.begin(), sides.end(),
            [&](size_t a, size_t b) { return items[a].box.cy() < items[b].box.cy(); });
  auto emit_band = [&](double y_limit) {
    std::vector<size_t> left, right;
    while (next_side < sides.size() && items[sides[next_side]].box.cy() < y_limit) {
      size_t id = sides[next_side++];
      (items[id].box.cx() < (gx0 + gx1) / 2 ? left : right).push_back(id);
    }
    if (rtl) std::swap(left, right);
    OrderItems(items, std::move(left), rtl, depth + 1, flows);
    OrderItems(items, std::move(right), rtl, depth + 1, flows);
  };
  // Consecutive spanning items form one flow (a paragraph across the gutter keeps its lines together).
  std::vector<size_t> run;
  for (size_t id : spanning) {
    if (next_side < sides.size() && items[sides[next_side]].box.cy() < items[id].box.cy()) {
      if (!run.empty()) flows.push_back(std::move(run));
      run.clear();
      emit_band(items[id].box.cy());
    }
    run.push_back(id);
  }
  if (!run.empty()) flows.push_back(std::move(run));
  emit_band(1e18);
}

struct Paragraph {
  std::vector<size_t> lines;
  Rect box;
};

bool EndsSentence(const std::string& text) {
  char32_t c = LastRune(text);
  return c == '.' || c == ':' || c == '!' || c == '?' || c == 0x3002;
}

bool StartsCaption(const std::string& text, BlockType* body) {
  static const char* kImage[] = {"Figure ", "Fig. ", "Fig ", "FIGURE ", "Chart ", "Picture "};
  static const char* kTable[] = {"Table ", "TABLE ", "Tab. "};
  auto starts_numbered = [&](const char* p) {
    std::string_view prefix(p);
    if (text.compare(0, prefix.size(), prefix) != 0 || text.size() <= prefix.size()) return false;
    char c = text[prefix.size()];
    return (c >= '0' && c <= '9') || (c >= 'A' && c <= 'Z' && text.size() > prefix.size() + 1 &&
                                      (text[prefix.size() + 1] == '.' || text[prefix.size() + 1] == ':'));
  };
  for (const char* p : kImage) {
    if (starts_numbered(p)) {
      *body = BlockType::kImage;
      return true;
    }
  }
  for (const char* p : kTable) {
    if (starts_numbered(p)) {
      *body = BlockType::kTable;
      return true;
    }
  }
  return false;
}

}  // namespace

bool IsPageNumberText(const std::string& text) {
  std::string t = MaskDigits(text);
  static const char* kForms[] = {"#",   "-#-",      "–#–",     "—#—", "page#", "#of#",
                                 "#/#", "page#of#", "page#/#", "[#]", "(#)"};
  for (const char* f : kForms) {
    if (t == f) return true;
  }
  // Lower-case roman numerals up to "xxx".
  if (!t.empty() && t.size() <= 6 && t.find_first_not_of("ivxl") == std::string::npos) return true;
  return false;
}

std::string RunningKey(const TextLine& line, const Rect& page) {
  double h = page.height();
  if (h <= 0) return {};
  if (line.box.y1 <= page.y0 + kMarginBand * h) return "T:" + MaskDigits(line.text);
  if (line.box.y0 >= page.y1 - kMarginBand * h) return "B:" + MaskDigits(line.text);
  return {};
}

DocumentStyle AnalyzeStyle(const std::vector<PageContent>& pages) {
  DocumentStyle style;
  std::map<int, size_t> sizes;  // half points -> characters
  std::map<std::string, int> keys;
  std::map<std::string, size_t> fonts;  // family -> characters
  for (const PageContent& page : pages) {
    std::set<std::string> seen;
    for (const TextLine& line : page.lines) {
      std::string key = RunningKey(line, page.page);
      if (!key.empty() && seen.insert(key).second) ++keys[key];
    }
  }
  int num_pages = static_cast<int>(pages.size());
  int needed = std::max(2, (num_pages + 2) / 3);
  for (const auto& [key, count] : keys) {
    if (num_pages >= 2 && count >= needed && key.size() > 2) style.running_keys.insert(key);
  }
  // Font sizes of the text that stays (running headers and page numbers do not set the body size).
  for (const PageContent& page : pages) {
    for (const TextLine& line : page.lines) {
      std::string key = RunningKey(line, page.page);
      if (!key.empty() && (style.running_keys.count(key) > 0 || IsPageNumberText(line.text))) continue;
      sizes[static_cast<int>(std::lround(line.font_size * 2))] += line.text.size();
      fonts[line.font] += line.text.size();
    }
  }
  size_t most = 0;
  for (const auto& [name, n] : fonts) {
    if (n > most) {
      most = n;
      style.body_font = name;
    }
  }
  size_t best = 0;
  for (auto [s, n] : sizes) {
    if (n > best) {
      best = n;
      style.body_size = s / 2.0;
    }
  }
  for (auto it = sizes.rbegin(); it != sizes.rend(); ++it) {
    double s = it->first / 2.0;
    if (s < style.body_size * kHeadingRatio || style.heading_sizes.size() >= 3) continue;
    if (!style.heading_sizes.empty() && style.heading_sizes.back() - s < 0.9) continue;
    style.heading_sizes.push_back(s);
  }
  return style;
}

void JoinLine(std::string& paragraph, const std::string& next_line) {
  if (next_line.empty()) return;
  if (paragraph.empty()) {
    paragraph = next_line;
    return;
  }
  size_t i = 0;
  char32_t first = DecodeUtf8(next_line, i);
  char32_t last = LastRune(paragraph);
  if (last == '-' && paragraph.size() >= 2 && IsLower(first)) {
    std::string head = paragraph.substr(0, paragraph.size() - 1);
    if (IsLetter(LastRune(head))) {
      paragraph = head + next_line;
      return;
    }
  }
  if (IsCjk(last) && IsCjk(first)) {
    paragraph += next_line;
    return;
  }
  paragraph.push_back(' ');
  paragraph += next_line;
}

size_t ListMarkerLength(const std::string& text, bool* numbered) {
  static const char* kBullets[] = {"•", "●", "▪", "◦", "○", "■", "□", "➢",
                                   "►", "▶", "✓", "",  "-", "–", "*", "·"};
  for (const char* b : kBullets) {
    size_t n = std::string_view(b).size();
    if (text.compare(0, n, b) == 0 && text.size() > n + 1 && text[n] == ' ') {
      *numbered = false;
      return n + 1;
    }
  }
  // 1. 1) (1) a. a) i.
  size_t i = 0;
  bool paren = false;
  if (i < text.size() && text[i] == '(') {
    paren = true;
    ++i;
  }
  size_t digits = 0;
  while (i < text.size() && text[i] >= '0' && text[i] <= '9' && digits < 3) {
    ++i;
    ++digits;
  }
  if (digits == 0 && i < text.size() && text[i] >= 'a' && text[i] <= 'z') {
    ++i;
    digits = 1;
  }
  if (digits == 0 || i >= text.size()) return 0;
  bool closed = paren ? text[i] == ')' : (text[i] == '.' || text[i] == ')');
  if (!closed || i + 2 > text.size() || text[i + 1] != ' ') return 0;
  // "1.5 Title" is a section number, not a list ("1. " needs the space right after the dot).
  *numbered = true;
  return i + 2;
}

std::vector<Block> LayoutPage(const PageContent& page, const DocumentStyle& style) {
  const Rect& pr = page.page;
  // 1. Running headers and footers.
  std::vector<TextLine> lines;
  for (const TextLine& line : page.lines) {
    std::string key = RunningKey(line, pr);
    if (!key.empty() && (style.running_keys.count(key) > 0 || IsPageNumberText(line.text))) continue;
    lines.push_back(line);
  }
  // 2. Tables and images.
  std::vector<RuledTable> tables = FindRuledTables(page.rules, lines);
  std::vector<bool> consumed(lines.size(), false);
  for (const RuledTable& t : tables) {
    for (size_t li : t.line_indices) consumed[li] = true;
  }
  for (RuledTable& t : FindAlignedTables(lines, consumed, pr)) {
    for (size_t li : t.line_indices) consumed[li] = true;
    tables.push_back(std::move(t));
  }
  std::vector<Rect> images;
  for (const Rect& raw : page.images) {
    Rect r = raw.Intersect(pr);
    if (r.empty() || r.width() < 12 || r.height() < 12 || r.area() < 0.004 * pr.area()) continue;
    if (r.area() > 0.85 * pr.area() && !lines.empty()) continue;  // a page background
    bool merged = false;
    for (Rect& o : images) {
      if (!o.Intersect(r).empty()) {
        o = o.Union(r);
        merged = true;
        break;
      }
    }
    if (!merged) images.push_back(r);
  }
  for (size_t li = 0; li < lines.size(); ++li) {
    for (const Rect& im : images) {
      Rect in = lines[li].box.Intersect(im);
      // Small text inside a figure is its labels; text of body size or larger over an image (a banner
      // behind a heading, a background) is kept.
      bool label = lines[li].font_size < 0.95 * style.body_size && im.area() >= 0.03 * pr.area();
      if (label && !in.empty() && in.area() >= 0.9 * lines[li].box.area()) consumed[li] = true;
    }
  }
  std::vector<Item> items;
  int rtl_lines = 0;
  for (size_t li = 0; li < lines.size(); ++li) {
    if (consumed[li]) continue;
    items.push_back({lines[li].box, ItemKind::kLine, li});
    if (lines[li].rtl) ++rtl_lines;
  }
  for (size_t t = 0; t < tables.size(); ++t) items.push_back({tables[t].box, ItemKind::kTable, t});
  for (size_t m = 0; m < images.size(); ++m) items.push_back({images[m], ItemKind::kImage, m});
  bool rtl = rtl_lines * 2 > static_cast<int>(items.size());

  // 3. Reading order.
  std::vector<size_t> ids(items.size());
  for (size_t i = 0; i < ids.size(); ++i) ids[i] = i;
  std::vector<std::vector<size_t>> flows;
  OrderItems(items, std::move(ids), rtl, 0, flows);

  // 4. Paragraphs and block types.
  std::vector<Block> blocks;
  auto emit_paragraph = [&](const Paragraph& p) {
    if (p.lines.empty()) return;
    const TextLine& first = lines[p.lines.front()];
    bool numbered = false;
    size_t marker = ListMarkerLength(first.text, &numbered);
    std::string text;
    bool all_bold = true, all_mono = true;
    for (size_t li : p.lines) {
      if (lines[li].monospace) {
        if (!text.empty()) text.push_back('\n');
        text += lines[li].text;
      } else {
        JoinLine(text, lines[li].text);
      }
      all_bold = all_bold && lines[li].bold;
      all_mono = all_mono && lines[li].monospace;
    }
    Block block;
    block.bbox = ToPageFrame(p.box, pr);
    double size = first.font_size;
    int level = 0;
    bool leaders = text.find(". . .") != std::string::npos || text.find("....") != std::string::npos;
    bool larger = size >= style.body_size * kHeadingRatio;
    // "(1) Scope" set larger than body text is a numbered heading, not a list.
    if ((marker == 0 || (larger && p.lines.size() == 1)) && p.lines.size() <= 3 && text.size() <= 200 &&
        !all_mono && !leaders) {
      for (size_t k = 0; k < style.heading_sizes.size(); ++k) {
        if (size >= style.heading_sizes[k] - 0.45) {
          level = static_cast<int>(k) + 1;
          break;
        }
      }
      if (level == 0 && larger) level = std::max(1, static_cast<int>(style.heading_sizes.size()));
      // A single short line at body size in another font family than the body (sans headings over serif
      // text) and not ending like a sentence.
      bool other_family = !first.font.empty() && !style.body_font.empty() && first.font != style.body_font;
      // A standalone italic line at body size starting with a capital is a run-in subheading.
      bool italic_head =
          first.italic && !text.empty() && text[0] >= 'A' && text[0] <= 'Z' && text.size() <= 60;
      if (level == 0 && (other_family || italic_head) && p.lines.size() == 1 && text.size() >= 3 &&
          text.size() <= 80 && std::fabs(size - style.body_size) <= 0.6 && !EndsSentence(text) &&
          !first.monospace) {
        level = std::min(4, static_cast<int>(style.heading_sizes.size()) + 1);
      }
      if (level == 0 && all_bold && size >= style.body_size - 0.6 && p.lines.size() <= 2 &&
          !EndsSentence(text) && text.size() >= 3) {
        level = std::min(4, static_cast<int>(style.heading_sizes.size()) + 1);
      }
    }
    if (level > 0) {
      block.type = BlockType::kTitle;
      block.title_level = std::clamp(level, 1, 4);
      block.content = text;
    } else if (marker > 0) {
      std::string item =
          (numbered ? text.substr(0, marker - 1) + " " : std::string("- ")) + text.substr(marker);
      bool same_kind = !blocks.empty() && blocks.back().type == BlockType::kList &&
                       blocks.back().content.starts_with("- ") == !numbered;
      if (same_kind) {
        blocks.back().content += "\n" + item;
        Rect merged = FromPageFrame(blocks.back().bbox, pr).Union(p.box);
        blocks.back().bbox = ToPageFrame(merged, pr);
        return;
      }
      block.type = BlockType::kList;
      block.content = item;
    } else {
      block.type = BlockType::kText;
      block.content = text;
    }
    blocks.push_back(std::move(block));
  };

  for (const std::vector<size_t>& flow : flows) {
    Paragraph para;
    double list_text_x = -1;  // x where the current list item's text starts (continuation lines align)
    for (size_t id : flow) {
      const Item& item = items[id];
      if (item.kind != ItemKind::kLine) {
        emit_paragraph(para);
        para = {};
        Block b;
        b.bbox = ToPageFrame(item.box, pr);
        if (item.kind == ItemKind::kTable) {
          b.type = BlockType::kTable;
          b.content = tables[item.index].html;
        } else {
          b.type = BlockType::kImage;
        }
        blocks.push_back(std::move(b));
        continue;
      }
      const TextLine& line = lines[item.index];
      bool numbered = false;
      bool starts_item = ListMarkerLength(line.text, &numbered) > 0;
      bool join = false;
      if (!para.lines.empty()) {
        const TextLine& prev = lines[para.lines.back()];
        double size = std::max(1.0, std::max(prev.font_size, line.font_size));
        double gap = line.box.y0 - prev.box.y1;
        bool same_style = std::fabs(prev.font_size - line.font_size) < 0.8 && prev.bold == line.bold &&
                          prev.monospace == line.monospace && prev.font == line.font &&
                          prev.italic == line.italic;
        bool overlaps_x = line.box.x0 < para.box.x1 && line.box.x1 > para.box.x0;
        bool prev_short = prev.box.x1 < para.box.x1 - 0.2 * para.box.width() && EndsSentence(prev.text);
        // Headings (larger than body text) have more leading than paragraphs.
        double max_gap = (line.font_size >= kHeadingRatio * style.body_size ? 1.1 : 0.75) * size;
        join = !starts_item && gap < max_gap && gap > -0.5 * size && same_style && overlaps_x && !prev_short;
        if (join && list_text_x >= 0 && line.box.x0 < list_text_x - 0.6 * size) join = false;
      }
      if (!join) {
        emit_paragraph(para);
        para = {};
        list_text_x = -1;
        if (starts_item && !line.chars.empty()) {
          // The text after the marker starts after the first space char.
          for (size_t k = 0; k < line.chars.size(); ++k) {
            if (line.chars[k].rune == ' ' && k + 1 < line.chars.size()) {
              list_text_x = line.chars[k + 1].box.x0;
              break;
            }
          }
        }
      }
      para.lines.push_back(item.index);
      para.box = para.box.Union(line.box);
    }
    emit_paragraph(para);
  }

  // A run of three or more same-level titles with nothing but images between them is a cover, a code
  // listing or a list set in a large font, not a stack of headings.
  for (size_t i = 0; i < blocks.size();) {
    if (blocks[i].type != BlockType::kTitle) {
      ++i;
      continue;
    }
    std::vector<size_t> run = {i};
    size_t j = i + 1;
    for (; j < blocks.size(); ++j) {
      if (blocks[j].type == BlockType::kImage) continue;
      if (blocks[j].type != BlockType::kTitle || blocks[j].title_level != blocks[i].title_level) break;
      run.push_back(j);
    }
    if (run.size() >= 3) {
      for (size_t k : run) {
        blocks[k].type = BlockType::kText;
        blocks[k].title_level = 0;
      }
    }
    i = j;
  }

  // Seven or more titles of one level on a page are a listing or a diagram set in a larger font.
  std::map<int, int> per_level;
  for (const Block& b : blocks) {
    if (b.type == BlockType::kTitle) ++per_level[b.title_level];
  }
  for (Block& b : blocks) {
    if (b.type == BlockType::kTitle && per_level[b.title_level] >= 7) {
      b.type = BlockType::kText;
      b.title_level = 0;
    }
  }

  // 5. Captions.
  bool has[2] = {false, false};
  for (const Block& b : blocks) {
    if (b.type == BlockType::kImage) has[0] = true;
    if (b.type == BlockType::kTable) has[1] = true;
  }
  for (Block& b : blocks) {
    BlockType body;
    if (b.type != BlockType::kText || !StartsCaption(b.content, &body)) continue;
    if (body == BlockType::kImage && has[0]) b.type = BlockType::kImageCaption;
    if (body == BlockType::kTable && has[1]) b.type = BlockType::kTableCaption;
  }
  PairCaptions(blocks);
  return blocks;
}

}  // namespace mineru::document
