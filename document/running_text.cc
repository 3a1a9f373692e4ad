#include "document/running_text.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>
#include <set>

#include "document/aligned_rows.h"
#include "document/aligned_table.h"
#include "document/display_math.h"
#include "document/formula_latex.h"
#include "document/page_geometry.h"
#include "document/text_layout.h"

namespace mineru::document {
namespace {

constexpr double kLabelGapEms = 2.0;      // ems: a label at most this far before its text on its baseline
constexpr double kPageNumberBand = 0.14;  // top / bottom fraction of the height: headers and page numbers
constexpr double kRepeatBand = 0.20;      // top / bottom fraction where repeated lines are looked for
constexpr double kSideBand = 0.10;        // left / right fraction of the width (margin stamps)
constexpr double kSamePlace = 0.02;       // of the page's height or width
constexpr size_t kMaxListingDigits = 6;  // a listing's line numbers (a long program's) have at most this many
constexpr size_t kMaxListingPieces = 2;  // pieces of text after a listing's line number: code, a comment
constexpr double kListingGapEm = 16.0;   // from a listing's line number to its code (indented), at most
constexpr size_t kMinLineNumbers = 5;    // a column of line numbers in a margin has at least this many
constexpr double kCellReach = 0.25;      // of the page's width: at most this far apart, numbers are cells
constexpr double kRowSizeRatio = 1.15;   // a table's row under its header is set no larger than this
constexpr size_t kMinStampChars = 4;     // a line on its side in a margin: a stamp, not a lone letter
constexpr double kHeaderBand = 0.10;     // top fraction of the height where a page's own header sits
constexpr double kHeaderGapEms = 2.0;    // body sizes of white under a page's own header, at least
constexpr size_t kMinSentenceWidth = 50;  // characters (DisplayWidth) of a line ending a sentence: prose
constexpr double kMinSolidHeight = 2.0;   // points: a drawing at least this tall is content, not a rule
constexpr double kFootGap = 1.5;          // heights of a page number alone at the foot under the text
constexpr double kTitleRatio = 1.2;       // times a running key's size: its words set this large stay

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

// Where a candidate sits across its band (fraction of the page's height, or width for side bands).
double PlaceOf(const TextLine& line, const Rect& page, char band) {
  if (band == 'L' || band == 'R') return (line.box.cx() - page.x0) / std::max(1.0, page.width());
  return (line.box.cy() - page.y0) / std::max(1.0, page.height());
}

struct Occurrence {
  double place = 0;
  bool in_page_number_band = false;
};

// The place where most occurrences of a key lie within kSamePlace of one another, and how many pages
// that is; every page when all occurrences are in the 14% band (where the place may vary).
std::pair<double, int> CommonPlace(const std::vector<Occurrence>& occurrences) {
  bool all_in_band = std::all_of(occurrences.begin(), occurrences.end(),
                                 [](const Occurrence& o) { return o.in_page_number_band; });
  if (all_in_band) return {occurrences.front().place, static_cast<int>(occurrences.size())};
  std::pair<double, int> best{0, 0};
  for (const Occurrence& o : occurrences) {
    int n = 0;
    for (const Occurrence& p : occurrences) n += std::fabs(p.place - o.place) <= kSamePlace;
    if (n > best.second) best = {o.place, n};
  }
  return best;
}

// A line with a line of its own style right above or below it (x ranges overlapping, gap under 0.6 of its
// size): a line inside a paragraph, not a header or footer standing on its own.
bool InStack(const TextLine& line, const PageContent& page) {
  double size = std::max(1.0, line.font_size);
  for (const TextLine& other : page.lines) {
    if (&other == &line || other.box.x0 >= line.box.x1 || other.box.x1 <= line.box.x0) continue;
    if (std::fabs(other.font_size - line.font_size) > 0.5 || other.font != line.font ||
        other.bold != line.bold)
      continue;
    double gap = std::max(other.box.y0 - line.box.y1, line.box.y0 - other.box.y1);
    if (gap >= -0.2 * size && gap < 0.6 * size) return true;
  }
  return false;
}

// A bare number among table cells: another number of its size near it on its baseline (a header of years,
// a row of figures; not the facing page number of a spread), or one right above or below it in its column
// (a table's last rows at the page's foot).
bool AmongCells(const TextLine& line, const PageContent& page) {
  const double size = std::max(1.0, line.font_size);
  for (const TextLine& other : page.lines) {
    if (&other == &line || std::fabs(other.font_size - line.font_size) > 0.5) continue;
    if (!IsNumericCell(other.text) && !IsPlaceholderCell(other.text)) continue;
    const double x_gap = std::max(other.box.x0 - line.box.x1, line.box.x0 - other.box.x1);
    const double y_gap = std::max(other.box.y0 - line.box.y1, line.box.y0 - other.box.y1);
    const bool beside = VerticalOverlap(other.box, line.box) >= 0.6 && x_gap < kCellReach * page.page.width();
    const bool stacked = x_gap < 0 && y_gap < size;
    if (beside || stacked) return true;
  }
  return false;
}

// Whether `line` holds a glyph of a math font or a relation ("=", "≤"): a piece of a formula.
bool HoldsFormula(const TextLine& line) {
  return std::any_of(line.chars.begin(), line.chars.end(),
                     [](const TextChar& c) { return c.math || IsMathRelation(c.rune); });
}

// "(3)" at the end of a line with text on its left, or at its start with a formula on its right (an
// equation numbered on the left, as amsart sets them): a display equation's number, not a page number
// (nor is the equation a footer beside one).
bool NumbersAnEquation(const TextLine& line, const PageContent& page) {
  if (!IsEquationNumber(line.text)) return false;
  return std::any_of(page.lines.begin(), page.lines.end(), [&](const TextLine& other) {
    return &other != &line && VerticalOverlap(other.box, line.box) >= 0.5 &&
           (other.box.x1 <= line.box.x0 || (other.box.x0 >= line.box.x1 && HoldsFormula(other)));
  });
}

// The line close on the right of `line`, on its baseline, whose label `line` is when `line` is a bare
// number ("[3]", "3."): a reference's, a list item's, a heading's text. Null when none.
const TextLine* LabelledText(const TextLine& line, const PageContent& page) {
  return LabelledBy(line, page.lines, kLabelGapEms, 0.5,
                    [](const TextLine& other) { return !IsPageNumberText(other.text); });
}

}  // namespace

bool InPageNumberBand(const TextLine& line, const Rect& page) {
  double h = page.height();
  return h > 0 &&
         (line.box.y1 <= page.y0 + kPageNumberBand * h || line.box.y0 >= page.y1 - kPageNumberBand * h);
}

std::string RunningKey(const TextLine& line, const Rect& page) {
  double h = page.height(), w = page.width();
  if (h <= 0 || w <= 0) return {};
  if (line.box.y1 <= page.y0 + kRepeatBand * h) return "T:" + MaskDigits(line.text);
  if (line.box.y0 >= page.y1 - kRepeatBand * h) return "B:" + MaskDigits(line.text);
  if (line.box.x1 <= page.x0 + kSideBand * w) return "L:" + MaskDigits(line.text);
  if (line.box.x0 >= page.x1 - kSideBand * w) return "R:" + MaskDigits(line.text);
  return {};
}

bool IsPageNumberText(const std::string& text) {
  std::string t = MaskDigits(text);
  // "#-#": chapter-page numbering ("7-45").
  // Chinese and Japanese reports: "第 5 页", "第 5 页 共 120 页", "5 页", "第 5 頁".
  static const char* kForms[] = {"#",           "-#-",          "–#–",         "—#—",     "page#",
                                 "#of#",        "#/#",          "page#of#",    "page#/#", "[#]",
                                 "(#)",         "#-#",          "#–#",         "第#页",   "第#页共#页",
                                 "第#页,共#页", "第#页，共#页", "第#页/共#页", "#页",     "第#頁",
                                 "第#頁共#頁",  "#頁"};
  for (const char* f : kForms) {
    if (t == f) return true;
  }
  // Lower-case roman numerals below "xc" (an "X" is a check mark in a table, not page ten).
  if (!text.empty() && text[0] >= 'a' && text[0] <= 'z' && RomanNumeralValue(text) > 0 &&
      RomanNumeralValue(text) < 90)
    return true;
  return false;
}

RunningKeys FindRunningKeys(const std::vector<PageContent>& pages) {
  std::map<std::string, std::vector<Occurrence>> found;  // key -> one occurrence per page
  std::map<std::string, double> smallest;                // key -> the smallest size of its lines
  for (const PageContent& page : pages) {
    std::set<std::string> seen;
    for (const TextLine& line : page.lines) {
      std::string key = RunningKey(line, page.page);
      // (Numbers among a table's cells, its header of years at a page's top, make no key; nor do display
      // equations' numbers, "(3)" at a page's foot.)
      if (key.empty() || (IsPageNumberText(line.text) && AmongCells(line, page)) ||
          NumbersAnEquation(line, page))
        continue;
      double& size = smallest.try_emplace(key, line.font_size).first->second;
      size = std::min(size, line.font_size);
      if (!seen.insert(key).second) continue;
      bool in_band = InPageNumberBand(line, page.page);
      // Outside it a bare number is a section number, a table cell or a figure label, not a page number.
      if (!in_band && (InStack(line, page) || IsPageNumberText(line.text))) continue;
      found[key].push_back({PlaceOf(line, page.page, key[0]), in_band});
    }
  }
  RunningKeys keys;
  int num_pages = static_cast<int>(pages.size());
  int needed = std::max(2, (num_pages + 2) / 3);
  for (const auto& [key, occurrences] : found) {
    auto [place, count] = CommonPlace(occurrences);
    // Outside the 14% band, two pages are too little evidence (a two-page document of one page
    // printed twice has every line "repeated"): the line must come back on a third.
    const bool all_in_band = std::all_of(occurrences.begin(), occurrences.end(),
                                         [](const Occurrence& o) { return o.in_page_number_band; });
    const int wanted = all_in_band ? needed : std::max(3, needed);
    if (num_pages >= 2 && key.size() > 2 && count >= wanted) keys[key] = {place, smallest[key]};
  }
  return keys;
}

namespace {

// Whether most numbers of `col` (four in five) have code after them on their baselines, the nearest line
// there in a monospaced face, indented or not, and no more than a comment beside it: a listing's line
// numbers (a table of character codes in a typewriter face has more cells on a code's baseline).
bool ListingNumbers(const std::vector<size_t>& col, const std::vector<TextLine>& lines,
                    const std::set<std::string>& monospace_fonts) {
  size_t code = 0;
  for (size_t n : col) {
    const Rect& b = lines[n].box;
    const TextLine* next = nullptr;  // the nearest line right of the number on its baseline
    size_t pieces = 0;               // and the pieces of text there: code, and a comment set apart
    for (const TextLine& l : lines) {
      if (l.box.x0 < b.x1 || VerticalOverlap(l.box, b) < 0.6) continue;
      pieces += SplitAtColumnGaps(l).size();
      if (!next || l.box.x0 < next->box.x0) next = &l;
    }
    code += next && pieces <= kMaxListingPieces &&
            next->box.x0 - b.x1 <= kListingGapEm * std::max(1.0, lines[n].font_size) &&
            (next->monospace || monospace_fonts.contains(next->font));
  }
  return code * 10 >= col.size() * 8;
}

}  // namespace

std::vector<bool> FindLineNumbers(const PageContent& page, const std::set<std::string>& monospace_fonts) {
  const std::vector<TextLine>& lines = page.lines;
  std::vector<bool> found(lines.size(), false);
  std::vector<size_t> numbers;
  for (size_t i = 0; i < lines.size(); ++i) {
    if (IsBareNumber(lines[i].text, kMaxListingDigits)) numbers.push_back(i);
  }
  if (numbers.size() < kMinLineNumbers) return found;
  // Columns of numbers: x ranges that overlap, grown from left to right.
  std::sort(numbers.begin(), numbers.end(),
            [&](size_t a, size_t b) { return lines[a].box.x0 < lines[b].box.x0; });
  for (size_t begin = 0; begin < numbers.size();) {
    Rect column = lines[numbers[begin]].box;
    size_t end = begin + 1;
    while (end < numbers.size() && lines[numbers[end]].box.x0 <= column.x1)
      column = column.Union(lines[numbers[end++]].box);
    std::vector<size_t> col(numbers.begin() + static_cast<std::ptrdiff_t>(begin),
                            numbers.begin() + static_cast<std::ptrdiff_t>(end));
    begin = end;
    if (col.size() < kMinLineNumbers) continue;
    std::sort(col.begin(), col.end(), [&](size_t a, size_t b) { return lines[a].box.y0 < lines[b].box.y0; });
    // Counting up in one step (every line, or every fifth): not a column of figures, nor page numbers in a
    // table of contents.
    std::map<int, size_t> steps;
    for (size_t k = 1; k < col.size(); ++k)
      ++steps[std::stoi(lines[col[k]].text) - std::stoi(lines[col[k - 1]].text)];
    auto step = std::max_element(steps.begin(), steps.end(),
                                 [](const auto& a, const auto& b) { return a.second < b.second; });
    if (step->first < 1 || step->second * 10 < (col.size() - 1) * 8) continue;
    if (ListingNumbers(col, lines, monospace_fonts)) {
      for (size_t i : col) found[i] = true;
      continue;
    }
    if (!std::ranges::all_of(col, [&](size_t i) { return IsBareNumber(lines[i].text); })) continue;
    // Every other line of the page (but for its header and footer bands) on one side of the column: the
    // column is a margin. (A table's column of row numbers has the body's text above or below it starting
    // as far left.)
    bool left = true, right = true;
    std::vector<bool> in_col(lines.size(), false);
    for (size_t i : col) in_col[i] = true;
    for (size_t i = 0; i < lines.size(); ++i) {
      const Rect& b = lines[i].box;
      if (in_col[i] || InPageNumberBand(lines[i], page.page)) continue;
      left = left && b.x0 >= column.x1;
      right = right && b.x1 <= column.x0;
    }
    if (!left && !right) continue;
    for (size_t i : col) found[i] = true;
  }
  return found;
}

namespace {

// Whether `line` stands apart at the foot of its page, in the bottom 20%: the lowest line, alone on its
// baseline, the nearest text over it kFootGap of its heights or more up (LaTeX's page number on an A4
// page sits 18% up from the bottom edge, 1.7 of its heights under the text).
bool AloneAtTheFoot(const TextLine& line, const PageContent& page) {
  const Rect& pr = page.page;
  if (line.box.y0 < pr.y1 - kRepeatBand * pr.height()) return false;
  const double reach = kFootGap * std::max(1.0, line.box.height());
  for (const TextLine& other : page.lines) {
    if (&other == &line) continue;
    if (other.box.y1 > line.box.y0 - reach) return false;  // beside it, under it, or close over it
  }
  return true;
}

}  // namespace

bool IsPageNumber(const TextLine& line, const PageContent& page) {
  // (Not a letter set in a math font: a formula's piece, the "x" under a fraction's bar.)
  return (InPageNumberBand(line, page.page) || AloneAtTheFoot(line, page)) && IsPageNumberText(line.text) &&
         !IsMathFont(line.font) && !AmongCells(line, page) && !NumbersAnEquation(line, page) &&
         LabelledText(line, page) == nullptr;
}

bool IsMarginStamp(const TextLine& line, const Rect& page) {
  const double w = page.width();
  const bool in_margin = line.box.x1 <= page.x0 + kSideBand * w || line.box.x0 >= page.x1 - kSideBand * w;
  return in_margin && Utf8Length(line.text) >= kMinStampChars && line.box.height() > line.box.width();
}

std::vector<bool> FindPageHeader(const PageContent& page, double body_size) {
  const std::vector<TextLine>& lines = page.lines;
  std::vector<bool> header(lines.size(), false);
  if (lines.empty()) return header;
  auto top = std::min_element(lines.begin(), lines.end(),
                              [](const TextLine& a, const TextLine& b) { return a.box.y0 < b.box.y0; });
  if (top->box.y1 > page.page.y0 + kHeaderBand * page.page.height()) return header;
  // The header's pieces share the top line's baseline; none is set larger than the body, or bold.
  Rect band = top->box;
  std::vector<size_t> members;
  for (size_t i = 0; i < lines.size(); ++i) {
    if (VerticalOverlap(lines[i].box, top->box) < 0.5) continue;
    if (lines[i].bold || lines[i].font_size > body_size + 0.5) return header;
    members.push_back(i);
    band = band.Union(lines[i].box);
  }
  // One line ending a sentence after as much text as a line of prose holds: a paragraph's last line
  // carried over (a header's pieces set apart left and right are no such line).
  const std::string& text = lines[members.front()].text;
  if (members.size() == 1 && EndsSentence(text) && DisplayWidth(text) >= kMinSentenceWidth) return header;
  // The nearest text, picture or solid drawing under it (a rule under a header is no content, nor is a
  // page number); with none, the line is the page's text (a paragraph's last line carried over).
  double below = 1e18;
  for (size_t i = 0; i < lines.size(); ++i) {
    if (VerticalOverlap(lines[i].box, top->box) >= 0.5) continue;
    if (lines[i].box.y0 < band.y1) return header;  // something taller beside it
    if (!IsPageNumber(lines[i], page)) below = std::min(below, lines[i].box.y0);
  }
  for (const std::vector<Rect>* shapes : {&page.images, &page.drawings}) {
    for (const Rect& r : *shapes) {
      if (r.y0 >= band.y1 - 0.5 && r.height() >= kMinSolidHeight) below = std::min(below, r.y0);
    }
  }
  if (below == 1e18 || below - band.y1 < kHeaderGapEms * body_size) return header;
  for (size_t i : members) header[i] = true;
  return header;
}

namespace {

// Whether `line` is ruled above and below within a line's height, by rules across it: a table's row (its
// header repeated at the top of each page the table runs over), not a running header.
bool RuledAboveAndBelow(const TextLine& line, const PageContent& page) {
  const double reach = std::max(1.0, line.box.height());
  bool above = false, below = false;
  for (const RulingSegment& r : page.rules) {
    if (!r.horizontal || r.box.x0 > line.box.x0 + 1 || r.box.x1 < line.box.x1 - 1) continue;
    const double y = r.box.cy();
    above = above || (y <= line.box.y0 + 1 && line.box.y0 - y <= reach);
    below = below || (y >= line.box.y1 - 1 && y - line.box.y1 <= reach);
  }
  return above && below;
}

// The cells (pieces set apart, SplitAtColumnGaps) of the lines of `page` on the baseline of `line`.
size_t CellsOnBaseline(const TextLine& line, const PageContent& page) {
  size_t cells = 0;
  for (const TextLine& other : page.lines) {
    if (VerticalOverlap(other.box, line.box) >= 0.5) cells += SplitAtColumnGaps(other).size();
  }
  return cells;
}

// Whether `line` heads rows of cells: two cells or more on its baseline, and on the next baseline, within
// a line's height under it and set no larger (a table's header repeated at the top of each page, no rules
// drawn; a running header stands apart from the text under it, and a section's heading under it, its
// number set apart from its title, is larger).
bool HeadsRowsOfCells(const TextLine& line, const PageContent& page) {
  if (CellsOnBaseline(line, page) < 2) return false;
  const TextLine* next = nullptr;
  for (const TextLine& other : page.lines) {
    if (other.box.y0 > line.box.y1 - 1 && other.box.y0 - line.box.y1 <= line.box.height() &&
        (next == nullptr || other.box.y0 < next->box.y0))
      next = &other;
  }
  return next != nullptr && next->font_size <= kRowSizeRatio * line.font_size &&
         CellsOnBaseline(*next, page) >= 2;
}

bool RunsOnEveryPage(const TextLine& line, const PageContent& content, const RunningKeys& running_keys) {
  const Rect& page = content.page;
  bool in_band = InPageNumberBand(line, page);
  if (IsPageNumber(line, content) || IsMarginStamp(line, page)) return true;
  std::string key = RunningKey(line, page);
  auto it = key.empty() ? running_keys.end() : running_keys.find(key);
  // (Its words set larger, a title, stay.)
  if (it == running_keys.end() || line.font_size >= kTitleRatio * it->second.size) return false;
  // Outside the 14% band only where the key repeats (a journal's name as a large title on its first
  // page stays).
  if (!in_band && std::fabs(PlaceOf(line, page, key[0]) - it->second.place) > kSamePlace) return false;
  // A table's cells repeat too: a number among others ("2024" in a header of years), a header ruled
  // above and below or heading rows of cells.
  return !(IsPageNumberText(line.text) && AmongCells(line, content)) && !RuledAboveAndBelow(line, content) &&
         !HeadsRowsOfCells(line, content) && !NumbersAnEquation(line, content);
}

}  // namespace

bool IsRunningLine(const TextLine& line, const PageContent& content, const RunningKeys& running_keys) {
  if (!RunsOnEveryPage(line, content, running_keys)) return false;
  // The label of text that stays is no running line: "[12]" at the top of each page of references.
  const TextLine* text = IsPageNumberText(line.text) ? LabelledText(line, content) : nullptr;
  return text == nullptr || RunsOnEveryPage(*text, content, running_keys);
}

namespace {

// An OCR'd line's text as a key: ASCII letters folded, digits masked, spaces and ASCII punctuation out.
std::string OcrKey(const std::string& text) {
  std::string key;
  for (char c : MaskDigits(text)) {
    const auto u = static_cast<unsigned char>(c);
    if (u >= 0x80 || std::isalnum(u) || c == '#') key.push_back(c);
  }
  return key;
}

}  // namespace

void OcrRunningText::Filter(std::vector<Block>& blocks) {
  constexpr int kBand = static_cast<int>(kPageNumberBand * 1000);
  std::vector<std::string> keys;
  std::erase_if(blocks, [&](const Block& b) {
    const char band = b.bbox.y1 <= kBand ? 'T' : b.bbox.y0 >= 1000 - kBand ? 'B' : 0;
    if (band == 0 || b.content.empty()) return false;
    const std::string key = band + OcrKey(b.content);
    keys.push_back(key);
    return IsPageNumberText(b.content) || seen_.contains(key);
  });
  seen_.insert(keys.begin(), keys.end());
}

}  // namespace mineru::document
