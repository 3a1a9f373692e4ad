#include "engine/pretokenizer.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace mineru::engine {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

// The Qwen2 split pattern as tokenizer.json writes it.
constexpr std::string_view kQwen2Pattern =
    "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}| "
    "?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|"
    "\\s+(?!\\S)|\\s+";

std::vector<std::string> Pieces(const SplitPreTokenizer& split, std::string_view text) {
  auto pieces = split.SplitToVector(text);
  EXPECT_TRUE(pieces.ok());
  std::vector<std::string> out;
  if (pieces.ok()) {
    for (auto p : *pieces) out.emplace_back(p);
  }
  return out;
}

TEST(TranslateSplitPatternTest, RewritesWhiteSpaceAndCaselessGroups) {
  auto t = TranslateSplitPattern("(?i:'s)|\\s+(?!\\S)|[^\\s\\p{L}]");
  ASSERT_TRUE(t.ok()) << t.status().ToString();
  EXPECT_THAT(*t, HasSubstr("(?:'[sS])"));
  EXPECT_THAT(*t, HasSubstr("\\x{3000}"));
  EXPECT_THAT(*t, HasSubstr("[^\\t\\n"));
  EXPECT_THAT(*t, HasSubstr("\\p{L}]"));  // property names are not case-expanded
  EXPECT_EQ(*TranslateSplitPattern("(?i:\\p{Lu}x)"), "(?:\\p{Lu}[xX])");
  EXPECT_EQ(TranslateSplitPattern("[\\S]").status().code(), StatusCode::kUnimplemented);
  EXPECT_EQ(TranslateSplitPattern("(?i)abc").status().code(), StatusCode::kUnimplemented);
  EXPECT_FALSE(TranslateSplitPattern("(a").ok());
  EXPECT_FALSE(TranslateSplitPattern("a)").ok());
  EXPECT_FALSE(TranslateSplitPattern("[abc").ok());
  EXPECT_FALSE(TranslateSplitPattern("abc\\").ok());
}

TEST(SplitPreTokenizerTest, Qwen2PatternPieces) {
  auto split = SplitPreTokenizer::Create(kQwen2Pattern);
  ASSERT_TRUE(split.ok()) << split.status().ToString();
  EXPECT_THAT(Pieces(**split, "Hello, world!"), ElementsAre("Hello", ",", " world", "!"));
  EXPECT_THAT(Pieces(**split, "they're 42"), ElementsAre("they", "'re", " ", "4", "2"));
  EXPECT_THAT(Pieces(**split, "DON'T"), ElementsAre("DON", "'T"));
  EXPECT_THAT(Pieces(**split, "a  \n\nb"), ElementsAre("a", "  \n\n", "b"));
  EXPECT_THAT(Pieces(**split, "x   y"), ElementsAre("x", "  ", " y"));
  EXPECT_THAT(Pieces(**split, "end   "), ElementsAre("end", "   "));
  EXPECT_THAT(Pieces(**split, ""), ElementsAre());
}

TEST(SplitPreTokenizerTest, WhiteSpaceFollowsJavaScript) {
  auto split = SplitPreTokenizer::Create(kQwen2Pattern);
  ASSERT_TRUE(split.ok());
  // U+3000 and U+FEFF are white space in JavaScript: "a", U+3000 run, then " b"-style attachment
  // does not apply (only ASCII space may prefix a letter run via [^\r\n\p{L}\p{N}]?).
  EXPECT_THAT(Pieces(**split, "a\u3000\u3000b"), ElementsAre("a", "\u3000", "\u3000b"));
  EXPECT_THAT(Pieces(**split, "a\uFEFF\uFEFF!"), ElementsAre("a", "\uFEFF", "\uFEFF", "!"));
  // U+0085 (NEL) is not white space in JavaScript: it is punctuation-like here.
  EXPECT_THAT(Pieces(**split, "a\u0085\u0085b"), ElementsAre("a", "\u0085\u0085", "b"));
}

TEST(SplitPreTokenizerTest, CaselessContractionsFoldAsciiOnly) {
  auto split = SplitPreTokenizer::Create(kQwen2Pattern);
  ASSERT_TRUE(split.ok());
  EXPECT_THAT(Pieces(**split, "x'St"), ElementsAre("x", "'S", "t"));
  // U+017F (long s) case-folds to "s" in Unicode but not in the JavaScript rewrite.
  EXPECT_THAT(Pieces(**split, "x'\u017Ft"), ElementsAre("x", "'\u017Ft"));
}

TEST(SplitPreTokenizerTest, GapsBetweenMatchesAndEmptyMatchesArePieces) {
  auto split = SplitPreTokenizer::Create("[0-9]+");
  ASSERT_TRUE(split.ok());
  EXPECT_THAT(Pieces(**split, "ab12cd345"), ElementsAre("ab", "12", "cd", "345"));
  auto empty = SplitPreTokenizer::Create("x*");
  ASSERT_TRUE(empty.ok());
  EXPECT_THAT(Pieces(**empty, "abxxc"), ElementsAre("ab", "xx", "c"));
}

TEST(SplitPreTokenizerTest, LongInputsDoNotExhaustTheMatcher) {
  auto split = SplitPreTokenizer::Create(kQwen2Pattern);
  ASSERT_TRUE(split.ok());
  const std::string spaces(200000, ' ');
  auto pieces = (*split)->SplitToVector(spaces + "x");
  ASSERT_TRUE(pieces.ok()) << pieces.status().ToString();
  size_t total = 0;
  for (auto p : *pieces) total += p.size();
  EXPECT_EQ(total, spaces.size() + 1);
  EXPECT_FALSE(SplitPreTokenizer::Create("(?<bad").ok());
}

}  // namespace
}  // namespace mineru::engine
