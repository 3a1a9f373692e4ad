#include "engine/tokenizer_utf8.h"

#include <gtest/gtest.h>

namespace mineru::engine {
namespace {

constexpr size_t kNpos = std::string_view::npos;
const std::string kReplacement = "\xEF\xBF\xBD";

TEST(TokenizerUtf8Test, FindInvalidUtf8FollowsTheUnicodeWellFormedTable) {
  EXPECT_EQ(FindInvalidUtf8(""), kNpos);
  EXPECT_EQ(FindInvalidUtf8("plain ascii"), kNpos);
  EXPECT_EQ(FindInvalidUtf8("\xC3\xA9\xE4\xB8\xAD\xF0\x9F\x98\x80"), kNpos);  // é 中 😀
  EXPECT_EQ(FindInvalidUtf8(std::string("a\0b", 3)), kNpos);
  EXPECT_EQ(FindInvalidUtf8("ab\x80"), 2u);            // lone continuation byte
  EXPECT_EQ(FindInvalidUtf8("\xC0\xAF"), 0u);          // overlong
  EXPECT_EQ(FindInvalidUtf8("\xE0\x80\xAF"), 0u);      // overlong three-byte form
  EXPECT_EQ(FindInvalidUtf8("x\xED\xA0\x80"), 1u);     // surrogate U+D800
  EXPECT_EQ(FindInvalidUtf8("\xF4\x90\x80\x80"), 0u);  // above U+10FFFF
  EXPECT_EQ(FindInvalidUtf8("\xF5\x80\x80\x80"), 0u);
  EXPECT_EQ(FindInvalidUtf8("ok\xE4\xB8"), 2u);       // truncated at the end
  EXPECT_EQ(FindInvalidUtf8("\xEF\xBF\xBF"), kNpos);  // U+FFFF is a valid scalar value
}

TEST(TokenizerUtf8Test, CodePointsRoundTrip) {
  for (char32_t cp :
       {char32_t{0}, char32_t{0x7F}, char32_t{0x80}, char32_t{0x7FF}, char32_t{0x800}, char32_t{0xD7FF},
        char32_t{0xE000}, char32_t{0xFFFF}, char32_t{0x10000}, char32_t{0x10FFFF}}) {
    std::string s;
    AppendUtf8(cp, &s);
    EXPECT_EQ(FindInvalidUtf8(s), kNpos) << std::hex << static_cast<uint32_t>(cp);
    size_t pos = 0;
    EXPECT_EQ(static_cast<uint32_t>(NextCodePoint(s, &pos)), static_cast<uint32_t>(cp));
    EXPECT_EQ(pos, s.size());
  }
}

TEST(TokenizerUtf8Test, LossyDecodeReplacesEachMaximalIllFormedSubpart) {
  EXPECT_EQ(DecodeUtf8Lossy("abc"), "abc");
  // The WHATWG examples: a truncated 3-byte sequence is one U+FFFD; each invalid byte is one.
  EXPECT_EQ(DecodeUtf8Lossy("\xE4\xB8"
                            "a"),
            kReplacement + "a");
  EXPECT_EQ(DecodeUtf8Lossy("\xF0\x9F\x98"), kReplacement);
  EXPECT_EQ(DecodeUtf8Lossy("\xC0\xAF"), kReplacement + kReplacement);
  EXPECT_EQ(DecodeUtf8Lossy("\xED\xA0\x80"), kReplacement + kReplacement + kReplacement);
  EXPECT_EQ(DecodeUtf8Lossy("\xF4\x90\x80\x80"), kReplacement + kReplacement + kReplacement + kReplacement);
  EXPECT_EQ(DecodeUtf8Lossy("\xE4\xB8\xAD\xFF"), "\xE4\xB8\xAD" + kReplacement);
}

}  // namespace
}  // namespace mineru::engine
