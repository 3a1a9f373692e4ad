// Finds added tokens (<|im_start|>, <image>, ...) in raw text: at each position the longest added
// token that starts there wins, scanning left to right; the text between matches is returned too.
// Matching is on bytes, so a token never matches inside a multi-byte character.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace mineru::engine {

class AddedTokenMatcher {
 public:
  // `contents[i]` is the text of added token i (non-empty, valid UTF-8: a match then always covers
  // whole characters).
  explicit AddedTokenMatcher(const std::vector<std::string>& contents);

  struct Section {
    std::string_view text;
    int32_t token = -1;  // index into `contents` when the section is an added token, else -1
  };
  // Splits `text` into plain sections and added-token sections, in order; empty sections are
  // omitted.
  std::vector<Section> Split(std::string_view text) const;

  bool empty() const { return nodes_.size() <= 1; }

 private:
  struct Node {
    int32_t first_child = -1;
    int32_t next_sibling = -1;
    int32_t token = -1;  // token ending here
    uint8_t byte = 0;
  };
  int32_t Child(int32_t node, uint8_t byte) const;
  // The longest match at `pos`: its length (0 when none) and its token index.
  size_t LongestAt(std::string_view text, size_t pos, int32_t* token) const;

  std::vector<Node> nodes_;  // nodes_[0] is the root
  bool first_byte_[256] = {};
};

}  // namespace mineru::engine
