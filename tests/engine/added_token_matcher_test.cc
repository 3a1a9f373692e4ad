#include "engine/added_token_matcher.h"

#include <gtest/gtest.h>

namespace mineru::engine {
namespace {

std::vector<std::pair<std::string, int32_t>> Sections(const AddedTokenMatcher& m, std::string_view text) {
  std::vector<std::pair<std::string, int32_t>> out;
  for (const auto& s : m.Split(text)) out.emplace_back(std::string(s.text), s.token);
  return out;
}

using Sections_t = std::vector<std::pair<std::string, int32_t>>;

TEST(AddedTokenMatcherTest, LongestMatchLeftToRight) {
  AddedTokenMatcher m({"<a>", "<a><b>", "<b>", "ab"});
  EXPECT_EQ(Sections(m, "x<a><b>y"), (Sections_t{{"x", -1}, {"<a><b>", 1}, {"y", -1}}));
  EXPECT_EQ(Sections(m, "<a><a>"), (Sections_t{{"<a>", 0}, {"<a>", 0}}));
  EXPECT_EQ(Sections(m, "<a><b"), (Sections_t{{"<a>", 0}, {"<b", -1}}));
  EXPECT_EQ(Sections(m, "aab"), (Sections_t{{"a", -1}, {"ab", 3}}));
  EXPECT_EQ(Sections(m, ""), Sections_t{});
  EXPECT_EQ(Sections(m, "<<b>>"), (Sections_t{{"<", -1}, {"<b>", 2}, {">", -1}}));
}

TEST(AddedTokenMatcherTest, EmptyMatcherReturnsTheWholeText) {
  AddedTokenMatcher m({});
  EXPECT_TRUE(m.empty());
  EXPECT_EQ(Sections(m, "<|im_start|>"), (Sections_t{{"<|im_start|>", -1}}));
}

TEST(AddedTokenMatcherTest, MultiByteTokens) {
  // 中 = E4 B8 AD, 丸 = E4 B8 B8: tokens sharing a byte prefix with the text only match whole.
  AddedTokenMatcher m({"\xE4\xB8\xAD!", "\xE4\xB8\xB8"});
  EXPECT_EQ(Sections(m, "a\xE4\xB8\xAD!"), (Sections_t{{"a", -1}, {"\xE4\xB8\xAD!", 0}}));
  EXPECT_EQ(Sections(m, "\xE4\xB8\xAD?\xE4\xB8\xB8"),
            (Sections_t{{"\xE4\xB8\xAD?", -1}, {"\xE4\xB8\xB8", 1}}));
}

}  // namespace
}  // namespace mineru::engine
