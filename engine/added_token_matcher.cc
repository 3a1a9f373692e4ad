#include "engine/added_token_matcher.h"

namespace mineru::engine {

AddedTokenMatcher::AddedTokenMatcher(const std::vector<std::string>& contents) {
  nodes_.emplace_back();
  for (size_t i = 0; i < contents.size(); ++i) {
    int32_t node = 0;
    for (char c : contents[i]) {
      const auto byte = static_cast<uint8_t>(c);
      int32_t child = Child(node, byte);
      if (child < 0) {
        child = static_cast<int32_t>(nodes_.size());
        Node n;
        n.byte = byte;
        n.next_sibling = nodes_[node].first_child;
        nodes_.push_back(n);
        nodes_[node].first_child = child;
      }
      node = child;
    }
    if (node != 0 && nodes_[node].token < 0) nodes_[node].token = static_cast<int32_t>(i);
    if (!contents[i].empty()) first_byte_[static_cast<uint8_t>(contents[i][0])] = true;
  }
}

int32_t AddedTokenMatcher::Child(int32_t node, uint8_t byte) const {
  for (int32_t c = nodes_[node].first_child; c >= 0; c = nodes_[c].next_sibling) {
    if (nodes_[c].byte == byte) return c;
  }
  return -1;
}

size_t AddedTokenMatcher::LongestAt(std::string_view text, size_t pos, int32_t* token) const {
  size_t best = 0;
  int32_t node = 0;
  for (size_t i = pos; i < text.size(); ++i) {
    node = Child(node, static_cast<uint8_t>(text[i]));
    if (node < 0) break;
    if (nodes_[node].token >= 0) {
      best = i + 1 - pos;
      *token = nodes_[node].token;
    }
  }
  return best;
}

std::vector<AddedTokenMatcher::Section> AddedTokenMatcher::Split(std::string_view text) const {
  std::vector<Section> sections;
  if (empty()) {
    if (!text.empty()) sections.push_back({text, -1});
    return sections;
  }
  size_t plain_start = 0;
  size_t pos = 0;
  while (pos < text.size()) {
    if (!first_byte_[static_cast<uint8_t>(text[pos])]) {
      ++pos;
      continue;
    }
    int32_t token = -1;
    const size_t length = LongestAt(text, pos, &token);
    if (length == 0) {
      ++pos;
      continue;
    }
    if (pos > plain_start) sections.push_back({text.substr(plain_start, pos - plain_start), -1});
    sections.push_back({text.substr(pos, length), token});
    pos += length;
    plain_start = pos;
  }
  if (plain_start < text.size()) sections.push_back({text.substr(plain_start), -1});
  return sections;
}

}  // namespace mineru::engine
