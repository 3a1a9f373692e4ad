#include "document/model_output_parser.h"

#include <algorithm>
#include <charconv>
#include <cstdlib>
#include <limits>

#include "document/text_layout.h"

namespace mineru::document {
namespace {

constexpr std::string_view kBoxStart = "<|box_start|>";
constexpr std::string_view kBoxEnd = "<|box_end|>";
constexpr std::string_view kRefStart = "<|ref_start|>";
constexpr std::string_view kRefEnd = "<|ref_end|>";
constexpr std::string_view kMdStart = "<|md_start|>";
constexpr std::string_view kMdEnd = "<|md_end|>";
constexpr std::string_view kImEnd = "<|im_end|>";
constexpr std::string_view kTxtContd = "<|txt_contd|>";
constexpr size_t kMaxWarnings = 50;

std::string_view TrimView(std::string_view s) {
  size_t b = s.find_first_not_of(" \t\r\n");
  if (b == std::string_view::npos) return {};
  size_t e = s.find_last_not_of(" \t\r\n");
  return s.substr(b, e - b + 1);
}

class Warnings {
 public:
  explicit Warnings(std::vector<std::string>& out) : out_(out) {}
  void Add(std::string w) {
    if (out_.size() < kMaxWarnings) {
      out_.push_back(std::move(w));
    } else if (out_.size() == kMaxWarnings) {
      out_.push_back("more warnings dropped");
    }
  }

 private:
  std::vector<std::string>& out_;
};

// Removes every "<|...|>" special token left inside content (they are never text).
std::string StripSpecialTokens(std::string_view s, bool* removed) {
  std::string out;
  out.reserve(s.size());
  size_t i = 0;
  while (i < s.size()) {
    if (s.compare(i, 2, "<|") == 0) {
      size_t end = s.find("|>", i + 2);
      if (end != std::string_view::npos && end - i < 40) {
        *removed = true;
        i = end + 2;
        continue;
      }
    }
    out.push_back(s[i++]);
  }
  return out;
}

// Replaces `open`...`close` pairs with `new_open`...`new_close`; unbalanced openers stay as they are.
std::string ReplaceDelimiters(std::string_view s, std::string_view open, std::string_view close,
                              std::string_view new_open, std::string_view new_close) {
  std::string out;
  size_t i = 0;
  while (i < s.size()) {
    size_t a = s.find(open, i);
    if (a == std::string_view::npos) break;
    size_t b = s.find(close, a + open.size());
    if (b == std::string_view::npos) break;
    out.append(s.substr(i, a - i));
    out.append(new_open);
    out.append(TrimView(s.substr(a + open.size(), b - a - open.size())));
    out.append(new_close);
    i = b + close.size();
  }
  out.append(s.substr(std::min(i, s.size())));
  return out;
}

std::string ConvertMath(std::string_view text) {
  std::string s = ReplaceDelimiters(text, "\\[", "\\]", "$$", "$$");
  return ReplaceDelimiters(s, "\\(", "\\)", "$", "$");
}

// Parses "x0 y0 x1 y1" (3-digit by the grammar, but any non-negative integers are read and clamped).
bool ParseBox(std::string_view s, BBox* box) {
  int v[4];
  size_t i = 0;
  for (int k = 0; k < 4; ++k) {
    while (i < s.size() && (s[i] == ' ' || s[i] == ',')) ++i;
    if (i >= s.size()) return false;
    auto [ptr, ec] = std::from_chars(s.data() + i, s.data() + s.size(), v[k]);
    if (ec != std::errc()) return false;
    i = static_cast<size_t>(ptr - s.data());
  }
  while (i < s.size() && s[i] == ' ') ++i;
  if (i != s.size()) return false;
  *box = NormalizeBBox({v[0], v[1], v[2], v[3]});
  return true;
}

struct RawBlock {
  BBox bbox;
  bool box_ok = false;
  std::string type;
  std::string content;
  bool closed = false;
};

// One segment: the text from a <|box_start|> to the next (exclusive).
RawBlock ParseSegment(std::string_view seg, size_t index, Warnings& warnings) {
  RawBlock raw;
  std::string where = "block " + std::to_string(index + 1);
  size_t box_end = seg.find(kBoxEnd);
  size_t ref_start = seg.find(kRefStart);
  size_t md_start = seg.find(kMdStart);
  size_t coords_end = std::min({box_end, ref_start, md_start, seg.size()});
  raw.box_ok = ParseBox(TrimView(seg.substr(0, coords_end)), &raw.bbox);
  if (!raw.box_ok)
    warnings.Add(where + ": broken box \"" + std::string(seg.substr(0, std::min<size_t>(coords_end, 40))) +
                 "\"");
  if (ref_start != std::string_view::npos) {
    size_t type_begin = ref_start + kRefStart.size();
    size_t ref_end = seg.find(kRefEnd, type_begin);
    size_t type_end = std::min({ref_end, md_start, seg.size()});
    if (type_end < type_begin) type_end = type_begin;
    raw.type = std::string(TrimView(seg.substr(type_begin, type_end - type_begin)));
    if (ref_end == std::string_view::npos) warnings.Add(where + ": missing <|ref_end|>");
  } else {
    warnings.Add(where + ": missing block type");
  }
  if (md_start != std::string_view::npos) {
    size_t begin = md_start + kMdStart.size();
    std::string_view rest = seg.substr(begin);
    size_t end = rest.find(kMdEnd);
    size_t im_end = rest.find(kImEnd);
    if (end != std::string_view::npos && (im_end == std::string_view::npos || end < im_end)) {
      raw.closed = true;
      if (!TrimView(rest.substr(end + kMdEnd.size())).empty()) {
        warnings.Add(where + ": text after <|md_end|> ignored");
      }
      rest = rest.substr(0, end);
    } else if (im_end != std::string_view::npos) {
      rest = rest.substr(0, im_end);
    }
    raw.content = std::string(rest);
  } else {
    warnings.Add(where + ": missing <|md_start|>");
  }
  return raw;
}

int TitleLevel(std::string_view* content) {
  size_t hashes = 0;
  while (hashes < content->size() && (*content)[hashes] == '#') ++hashes;
  content->remove_prefix(hashes);
  *content = TrimView(*content);
  return std::clamp(static_cast<int>(hashes), 1, 4);
}

double Distance(const BBox& a, const BBox& b) {
  double dx = std::max({0, a.x0 - b.x1, b.x0 - a.x1});
  double dy = std::max({0, a.y0 - b.y1, b.y0 - a.y1});
  return dx * dx + dy * dy;
}

// The kind of body a caption or note goes with (kText for other blocks).
BlockType BodyOf(BlockType t) {
  if (t == BlockType::kImageCaption || t == BlockType::kImageFootnote) return BlockType::kImage;
  if (t == BlockType::kTableCaption || t == BlockType::kTableFootnote) return BlockType::kTable;
  return BlockType::kText;
}

size_t CountPaired(const std::vector<Block>& blocks, BlockType type, int parent) {
  return static_cast<size_t>(std::count_if(
      blocks.begin(), blocks.end(), [&](const Block& b) { return b.type == type && b.parent == parent; }));
}

// The number of a labelled caption ("Table 2:" -> "2"); empty for other text.
std::string_view LabelNumber(const std::string& text) {
  BlockType kind;
  if (!StartsCaption(text, &kind)) return {};
  std::string_view number = CaptionNumber(text).first;
  while (!number.empty() && (number.back() == ':' || number.back() == '.')) number.remove_suffix(1);
  return number;
}

// Whether captions `a` and `b` are labelled with different numbers ("Table 1: ..." and "Table 2: ...").
bool NumberedApart(const Block& a, const Block& b) {
  const std::string_view x = LabelNumber(a.content), y = LabelNumber(b.content);
  return !x.empty() && !y.empty() && x != y;
}

// A body that the nearest rule gave two captions (or notes) of one kind keeps one of them: one right
// before or after a body of its kind in reading order that has none goes to that body (a table's caption
// at the foot of one column and the table at the head of the next, beside another table and its own
// caption nearer on the page). Two captions numbered apart never caption one body: the farther is left
// unpaired, read where it stands (a caption at a page's foot whose table is on the next page).
void MoveSpareCaptions(std::vector<Block>& blocks) {
  for (size_t i = 0; i < blocks.size(); ++i) {
    Block& b = blocks[i];
    const BlockType body = BodyOf(b.type);
    if (body == BlockType::kText || b.parent < 0 || CountPaired(blocks, b.type, b.parent) < 2) continue;
    for (const size_t n : {i - 1, i + 1}) {
      if (n >= blocks.size() || blocks[n].type != body || static_cast<int>(n) == b.parent ||
          CountPaired(blocks, b.type, static_cast<int>(n)) > 0)
        continue;
      b.parent = static_cast<int>(n);
      break;
    }
  }
  for (Block& b : blocks) {
    if (b.parent < 0 || (b.type != BlockType::kTableCaption && b.type != BlockType::kImageCaption)) continue;
    const BBox& body = blocks[static_cast<size_t>(b.parent)].bbox;
    for (const Block& other : blocks) {
      if (&other != &b && other.type == b.type && other.parent == b.parent && NumberedApart(b, other) &&
          Distance(b.bbox, body) > Distance(other.bbox, body)) {
        b.parent = -1;
        break;
      }
    }
  }
}

}  // namespace

void PairCaptions(std::vector<Block>& blocks) {
  for (size_t i = 0; i < blocks.size(); ++i) {
    Block& b = blocks[i];
    const BlockType body = BodyOf(b.type);
    if (body == BlockType::kText) continue;
    double best = std::numeric_limits<double>::infinity();
    int best_index = -1;
    for (size_t j = 0; j < blocks.size(); ++j) {
      if (blocks[j].type != body) continue;
      double d = Distance(b.bbox, blocks[j].bbox);
      // Ties go to the body nearest in reading order.
      double order = std::abs(static_cast<double>(j) - static_cast<double>(i)) * 1e-6;
      if (d + order < best) {
        best = d + order;
        best_index = static_cast<int>(j);
      }
    }
    b.parent = best_index;
  }
  MoveSpareCaptions(blocks);
}

ParsedModelOutput ParseModelOutput(std::string_view text) {
  ParsedModelOutput out;
  Warnings warnings(out.warnings);
  size_t first = text.find(kBoxStart);
  std::string_view leading = TrimView(text.substr(0, std::min(first, text.size())));
  if (!leading.empty() && leading != kImEnd) {
    warnings.Add("text before the first block ignored: \"" + std::string(leading.substr(0, 40)) + "\"");
  }
  if (first == std::string_view::npos) {
    if (!text.empty()) warnings.Add("no <|box_start|> in the model output");
    return out;
  }
  bool continues = false;  // the previous text block ended in <|txt_contd|>
  size_t index = 0;
  size_t pos = first;
  while (pos < text.size()) {
    size_t next = text.find(kBoxStart, pos + kBoxStart.size());
    std::string_view seg =
        text.substr(pos + kBoxStart.size(),
                    (next == std::string_view::npos ? text.size() : next) - pos - kBoxStart.size());
    RawBlock raw = ParseSegment(seg, index, warnings);
    bool last = next == std::string_view::npos;
    if (!raw.closed && last) out.truncated = true;
    if (!raw.closed && !last) warnings.Add("block " + std::to_string(index + 1) + ": missing <|md_end|>");
    pos = last ? text.size() : next;
    ++index;

    std::optional<BlockType> type = ParseBlockType(raw.type);
    if (!type) {
      warnings.Add("block " + std::to_string(index) + ": unknown type \"" + raw.type.substr(0, 40) +
                   "\" kept as text");
      type = BlockType::kText;
    }
    std::string_view content = TrimView(raw.content);
    bool contd = false;
    if (content.size() >= kTxtContd.size() &&
        content.substr(content.size() - kTxtContd.size()) == kTxtContd) {
      contd = true;
      content = TrimView(content.substr(0, content.size() - kTxtContd.size()));
    }
    bool removed = false;
    std::string clean = StripSpecialTokens(content, &removed);
    if (removed) warnings.Add("block " + std::to_string(index) + ": stray special tokens removed");

    Block block;
    block.type = *type;
    block.bbox = raw.bbox;  // empty (0,0,0,0) when the box was broken
    std::string_view view = clean;
    switch (block.type) {
      case BlockType::kTitle:
        block.title_level = TitleLevel(&view);
        block.content = ConvertMath(view);
        break;
      case BlockType::kEquation: {
        std::string_view eq = TrimView(view);
        if (eq.starts_with("\\[") && eq.ends_with("\\]") && eq.size() >= 4) {
          eq = TrimView(eq.substr(2, eq.size() - 4));
        } else if (eq.starts_with("$$") && eq.ends_with("$$") && eq.size() >= 4) {
          eq = TrimView(eq.substr(2, eq.size() - 4));
        }
        block.content = std::string(eq);
        break;
      }
      case BlockType::kTable:
        block.content = OtslToHtml(view);
        break;
      case BlockType::kImage:
        break;  // the content is a placeholder; the crop is the image
      default:
        block.content = ConvertMath(view);
    }
    if (continues && block.type == BlockType::kText && !out.blocks.empty() &&
        out.blocks.back().type == BlockType::kText) {
      // As lines of a paragraph join: "sen-" + "tence", no space between Chinese characters.
      JoinLine(out.blocks.back().content, block.content);
      continues = contd;
      continue;
    }
    continues = contd && block.type == BlockType::kText;
    if (block.type != BlockType::kImage && block.content.empty() && raw.box_ok && !out.truncated) {
      // An empty text block is legal but useless; keep it only when it is an image-like body.
      if (block.type != BlockType::kTable && block.type != BlockType::kEquation) continue;
    }
    if (!raw.box_ok && block.content.empty()) continue;
    out.blocks.push_back(std::move(block));
  }
  PairCaptions(out.blocks);
  return out;
}

PageResult BuildVlmPage(int page_idx, double width_pt, double height_pt, std::string model_text,
                        const RgbImage& page_render, ParsedDocument& doc, int jpeg_quality) {
  PageResult page;
  page.page_idx = page_idx;
  page.width_pt = width_pt;
  page.height_pt = height_pt;
  ParsedModelOutput parsed = ParseModelOutput(model_text);
  page.blocks = std::move(parsed.blocks);
  page.warnings = std::move(parsed.warnings);
  if (parsed.truncated) page.warnings.push_back("model output truncated: the last block may be incomplete");
  page.model_output = std::move(model_text);
  if (!page_render.empty()) {
    Status s = CropBlockImages(page_render, page, doc, jpeg_quality);
    if (!s.ok()) page.warnings.push_back("no image crops: " + s.message());
  }
  return page;
}

}  // namespace mineru::document
