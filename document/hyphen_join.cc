#include "document/hyphen_join.h"

#include <algorithm>
#include <cmath>
#include <string_view>

#include "document/text_layout.h"
#include "document/text_lines.h"

namespace mineru::document {
namespace {

// Blocks that may stand between the two halves of a paragraph without ending it.
bool IsAside(BlockType t) {
  return t == BlockType::kImage || t == BlockType::kImageCaption || t == BlockType::kImageFootnote ||
         t == BlockType::kTable || t == BlockType::kTableCaption || t == BlockType::kTableFootnote ||
         t == BlockType::kEquation;
}

bool IsLetterRune(char32_t c) {
  return IsLowerLatin(c) || (c >= 'A' && c <= 'Z') || (c >= 0xC0 && c <= 0x24F && c != 0xD7 && c != 0xF7);
}

// Index of the next text block at or after `from`, skipping asides; blocks.size() when there is none.
size_t NextText(const std::vector<Block>& blocks, size_t from) {
  for (size_t k = from; k < blocks.size(); ++k) {
    if (blocks[k].type == BlockType::kText) return k;
    if (!IsAside(blocks[k].type)) return blocks.size();
  }
  return blocks.size();
}

// Chinese and Japanese punctuation, brackets and quotes ("，", "（", "「"), not letters or digits.
bool IsCjkPunctuation(char32_t c) {
  return (c >= 0x3000 && c <= 0x303F) || (c >= 0xFF01 && c <= 0xFF0F) || (c >= 0xFF1A && c <= 0xFF20) ||
         (c >= 0xFF3B && c <= 0xFF40) || (c >= 0xFF5B && c <= 0xFF65);
}

// The width of the first word of `line` (its first character in Chinese or Japanese).
double FirstWordWidth(const TextLine& line) {
  double x1 = line.box.x0;
  for (const TextChar& c : line.chars) {
    if (c.rune == ' ') break;
    x1 = std::max(x1, c.box.x1);
    if (IsCjkChar(c.rune)) break;
  }
  return x1 - line.box.x0;
}

// Whether the last line of paragraph `para` ends where the paragraph's measure (its widest line) left no
// room for `next_word` wide and a space: the line broke because the word did not fit, as in a paragraph
// that goes on; one of two lines or more (a line alone has no measure).
bool EndsForWantOfRoom(const std::vector<size_t>& para, double next_word,
                       const std::vector<TextLine>& lines) {
  if (para.size() < 2) return false;
  double right = 0;
  for (size_t li : para) right = std::max(right, lines[li].box.x1);
  const TextLine& last = lines[para.back()];
  return last.box.x1 + 0.25 * std::max(1.0, last.font_size) + next_word > right;
}

// Whether `line` is indented: set in from the left edge of its column, the leftmost of the page's lines
// of its size that share its column (start within five ems of it, overlap it, and are at least half as
// long: a short heading centred over the columns is none of them).
bool Indented(const TextLine& line, const std::vector<TextLine>& lines) {
  const double em = std::max(1.0, line.font_size);
  double left = line.box.x0;
  for (const TextLine& l : lines) {
    if (std::fabs(l.font_size - line.font_size) < 0.8 && l.box.x0 < line.box.x1 && l.box.x1 > line.box.x0 &&
        std::fabs(l.box.x0 - line.box.x0) < 5 * em && l.box.width() >= 0.5 * line.box.width())
      left = std::min(left, l.box.x0);
  }
  return line.box.x0 > left + 0.5 * em;
}

// Whether paragraph `b` goes on from paragraph `a` across a break: see JoinBrokenParagraphs.
bool GoesOn(const std::vector<size_t>& a, const std::vector<size_t>& b, bool float_between,
            const std::vector<TextLine>& lines) {
  if (a.empty() || b.empty()) return false;
  const TextLine& last = lines[a.back()];
  const TextLine& first = lines[b.front()];
  if (!float_between && first.box.y0 >= last.box.y0) return false;  // the same column, further down
  const bool same_face = last.bold == first.bold && last.italic == first.italic && !last.monospace &&
                         (last.font == first.font || ShareFace(last, first));
  if (!same_face || std::fabs(last.font_size - first.font_size) >= 0.8) return false;
  if (!EndsForWantOfRoom(a, FirstWordWidth(first), lines) || EndsSentence(last.text, /*clause=*/true))
    return false;
  if (Indented(first, lines)) return false;
  size_t at = 0;
  const char32_t head = DecodeUtf8(first.text, at);
  return IsLowerLatin(head) || (IsCjkChar(LastRune(last.text)) && IsCjkChar(head) && !IsCjkPunctuation(head));
}

// Whether paragraph `note` is a note under paragraph `a`: every line set at most 0.9 times as large as
// `a`'s last line, starting below it.
bool IsNoteUnder(const std::vector<size_t>& a, const std::vector<size_t>& note,
                 const std::vector<TextLine>& lines) {
  if (a.empty() || note.empty()) return false;
  const TextLine& last = lines[a.back()];
  return lines[note.front()].box.y0 > last.box.y0 && std::all_of(note.begin(), note.end(), [&](size_t li) {
           return lines[li].font_size <= 0.9 * last.font_size;
         });
}

void RemoveEmpty(std::vector<Block>& blocks) {
  std::erase_if(blocks, [](const Block& b) { return b.type == BlockType::kText && b.content.empty(); });
}

}  // namespace

void JoinBrokenParagraphs(std::vector<Block>& blocks, std::vector<std::vector<size_t>>& block_lines,
                          const std::vector<TextLine>& lines) {
  for (size_t k = 0; k < blocks.size();) {
    size_t n = blocks[k].type == BlockType::kText ? NextText(blocks, k + 1) : blocks.size();
    // A note set smaller under the column (a footnote) is passed over as a float is.
    while (n < blocks.size() && IsNoteUnder(block_lines[k], block_lines[n], lines))
      n = NextText(blocks, n + 1);
    if (n == blocks.size() || !GoesOn(block_lines[k], block_lines[n], n > k + 1, lines)) {
      ++k;
      continue;
    }
    JoinLine(blocks[k].content, blocks[n].content);
    block_lines[k] = std::move(block_lines[n]);  // (the measure of the part after the break)
    blocks.erase(blocks.begin() + static_cast<std::ptrdiff_t>(n));
    block_lines.erase(block_lines.begin() + static_cast<std::ptrdiff_t>(n));
    // (k stays: the paragraph may go on past another break)
  }
}

bool JoinHyphenatedWord(Block& prev, Block& next) {
  if (prev.type != BlockType::kText || next.type != BlockType::kText) return false;
  const std::string& a = prev.content;
  if (a.size() < 2 || a.back() != '-') return false;
  std::string head = a.substr(0, a.size() - 1);
  if (!IsLetterRune(LastRune(head))) return false;
  size_t i = 0;
  if (next.content.empty() || !IsLowerLatin(DecodeUtf8(next.content, i))) return false;
  size_t end = next.content.find(' ');
  std::string word = next.content.substr(0, end);
  prev.content = head + word;
  next.content = end == std::string::npos ? std::string() : next.content.substr(end + 1);
  return true;
}

void JoinHyphenatedWords(std::vector<Block>& blocks) {
  bool joined = false;
  for (size_t k = 0; k < blocks.size(); ++k) {
    if (blocks[k].type != BlockType::kText) continue;
    size_t n = NextText(blocks, k + 1);
    if (n < blocks.size()) joined = JoinHyphenatedWord(blocks[k], blocks[n]) || joined;
  }
  if (joined) RemoveEmpty(blocks);
}

void JoinHyphenatedWordsAcrossPages(std::vector<Block>& page, std::vector<Block>& next_page) {
  size_t last = page.size();
  while (last > 0 && IsAside(page[last - 1].type)) --last;
  if (last == 0 || page[last - 1].type != BlockType::kText) return;
  size_t first = NextText(next_page, 0);
  if (first < next_page.size() && JoinHyphenatedWord(page[last - 1], next_page[first]))
    RemoveEmpty(next_page);
}

}  // namespace mineru::document
