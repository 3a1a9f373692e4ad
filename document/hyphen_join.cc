#include "document/hyphen_join.h"

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

void RemoveEmpty(std::vector<Block>& blocks) {
  std::erase_if(blocks, [](const Block& b) { return b.type == BlockType::kText && b.content.empty(); });
}

}  // namespace

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
