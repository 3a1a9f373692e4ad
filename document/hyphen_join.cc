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

// The room the measure of paragraph `para` (its widest line) leaves after its last line, in points; none
// for a paragraph of one line (a line alone has no measure).
std::optional<double> RoomAfter(const std::vector<size_t>& para, const std::vector<TextLine>& lines) {
  if (para.size() < 2) return std::nullopt;
  double right = 0;
  for (size_t li : para) right = std::max(right, lines[li].box.x1);
  return right - lines[para.back()].box.x1;
}

// Whether a line (`last`) with `room` left after it had no room for `next_word` wide and a space: it broke
// because the word did not fit, as a line of a paragraph that goes on.
bool NoRoomFor(const TextLine& last, double room, double next_word) {
  return 0.25 * std::max(1.0, last.font_size) + next_word > room;
}

// Whether the last line of paragraph `para` ends for want of room for `next_word` (NoRoomFor).
bool EndsForWantOfRoom(const std::vector<size_t>& para, double next_word,
                       const std::vector<TextLine>& lines) {
  const std::optional<double> room = RoomAfter(para, lines);
  return room && NoRoomFor(lines[para.back()], *room, next_word);
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

// Whether the text of line `first` reads on from line `last` in one paragraph across a break: the same
// face and size, `last` ending no clause, `first` starting in lower case (or Chinese or Japanese after
// Chinese or Japanese).
bool ReadsOn(const TextLine& last, const TextLine& first) {
  if (last.monospace || !SameFace(last, first) || std::fabs(last.font_size - first.font_size) >= 0.8)
    return false;
  if (EndsSentence(last.text, /*clause=*/true)) return false;
  size_t at = 0;
  const char32_t head = DecodeUtf8(first.text, at);
  return IsLowerLatin(head) || (IsCjkChar(LastRune(last.text)) && IsCjkChar(head) && !IsCjkPunctuation(head));
}

// Whether paragraph `b` goes on from paragraph `a` across a break: see JoinBrokenParagraphs.
bool GoesOn(const std::vector<size_t>& a, const std::vector<size_t>& b, bool float_between,
            const std::vector<TextLine>& lines) {
  if (a.empty() || b.empty()) return false;
  const TextLine& last = lines[a.back()];
  const TextLine& first = lines[b.front()];
  if (!float_between && first.box.y0 >= last.box.y0) return false;  // the same column, further down
  // (A reference's lines hang indented under its label: its rest after the break is indented too.)
  return ReadsOn(last, first) && EndsForWantOfRoom(a, FirstWordWidth(first), lines) &&
         (!Indented(first, lines) || ReferenceLabelNumber(lines[a.front()].text) >= 0);
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

// Removes block `k`; the captions' and notes' parents and the FlowEnds of the page (when given) follow.
void EraseBlock(std::vector<Block>& blocks, size_t k, FlowEnds* ends) {
  blocks.erase(blocks.begin() + static_cast<std::ptrdiff_t>(k));
  for (Block& b : blocks) {
    if (b.parent > static_cast<int>(k)) --b.parent;
  }
  if (ends == nullptr) return;
  for (std::optional<size_t>* end : {&ends->first, &ends->last}) {
    if (*end == k) {
      end->reset();
    } else if (*end && **end > k) {
      --**end;
    }
  }
}

void RemoveEmpty(std::vector<Block>& blocks, FlowEnds* ends) {
  for (size_t k = blocks.size(); k > 0; --k) {
    if (blocks[k - 1].type == BlockType::kText && blocks[k - 1].content.empty())
      EraseBlock(blocks, k - 1, ends);
  }
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

FlowEnds FindFlowEnds(const std::vector<Block>& blocks, const std::vector<std::vector<size_t>>& block_lines,
                      const std::vector<TextLine>& lines) {
  FlowEnds ends;
  const size_t first = NextText(blocks, 0);
  if (first < blocks.size() && !block_lines[first].empty()) {
    ends.first = first;
    ends.first_line = lines[block_lines[first].front()];
    ends.first_word = FirstWordWidth(ends.first_line);
    ends.indented = Indented(ends.first_line, lines);
  }
  // The last text block, floats passed over, then notes set smaller under the paragraph before them.
  std::vector<size_t> texts;  // the text blocks at the page's end, floats between them passed over
  for (size_t k = blocks.size(); k > 0; --k) {
    if (blocks[k - 1].type == BlockType::kText) {
      texts.push_back(k - 1);
    } else if (!IsAside(blocks[k - 1].type)) {
      break;
    }
  }
  size_t t = 0;
  while (t + 1 < texts.size() && IsNoteUnder(block_lines[texts[t + 1]], block_lines[texts[t]], lines)) ++t;
  if (t < texts.size()) {
    const std::vector<size_t>& para = block_lines[texts[t]];
    if (const std::optional<double> room = RoomAfter(para, lines)) {
      ends.last = texts[t];
      ends.last_line = lines[para.back()];
      ends.room = *room;
    }
  }
  return ends;
}

bool JoinParagraphAcrossPages(std::vector<Block>& page, const FlowEnds& ends, std::vector<Block>& next_page,
                              FlowEnds& next_ends) {
  if (!ends.last || !next_ends.first || next_ends.indented ||
      !ReadsOn(ends.last_line, next_ends.first_line) ||
      !NoRoomFor(ends.last_line, ends.room, next_ends.first_word))
    return false;
  JoinLine(page[*ends.last].content, next_page[*next_ends.first].content);
  // (A page of one paragraph joined whole to the page before ends no paragraph of its own.)
  EraseBlock(next_page, *next_ends.first, &next_ends);
  return true;
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

void JoinHyphenatedWords(std::vector<Block>& blocks, FlowEnds* ends) {
  bool joined = false;
  for (size_t k = 0; k < blocks.size(); ++k) {
    if (blocks[k].type != BlockType::kText) continue;
    size_t n = NextText(blocks, k + 1);
    if (n < blocks.size()) joined = JoinHyphenatedWord(blocks[k], blocks[n]) || joined;
  }
  if (joined) RemoveEmpty(blocks, ends);
}

void JoinHyphenatedWordsAcrossPages(std::vector<Block>& page, std::vector<Block>& next_page,
                                    FlowEnds* next_ends) {
  size_t last = page.size();
  while (last > 0 && IsAside(page[last - 1].type)) --last;
  if (last == 0 || page[last - 1].type != BlockType::kText) return;
  size_t first = NextText(next_page, 0);
  if (first < next_page.size() && JoinHyphenatedWord(page[last - 1], next_page[first]))
    RemoveEmpty(next_page, next_ends);
}

}  // namespace mineru::document
