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

TEST(TokenizerUtf8Test, UnfinishedTailIsAWellFormedSequenceCutByTheEnd) {
  EXPECT_EQ(UnfinishedUtf8Tail(""), 0u);
  EXPECT_EQ(UnfinishedUtf8Tail("abc"), 0u);
  EXPECT_EQ(UnfinishedUtf8Tail("a\xE4\xB8\xAD"), 0u);  // whole
  EXPECT_EQ(UnfinishedUtf8Tail("a\xE4"), 1u);
  EXPECT_EQ(UnfinishedUtf8Tail("a\xE4\xB8"), 2u);
  EXPECT_EQ(UnfinishedUtf8Tail("\xF0\x9F\x98"), 3u);
  EXPECT_EQ(UnfinishedUtf8Tail("\xC3"), 1u);
  // Ill-formed already: no byte that follows changes how these decode.
  EXPECT_EQ(UnfinishedUtf8Tail("\xC0"), 0u);
  EXPECT_EQ(UnfinishedUtf8Tail("\xFF"), 0u);
  EXPECT_EQ(UnfinishedUtf8Tail("\x80"), 0u);
  EXPECT_EQ(UnfinishedUtf8Tail("\xE0\x80"), 0u);  // E0 needs A0..BF next
  EXPECT_EQ(UnfinishedUtf8Tail("\xED\xA0"), 0u);  // a surrogate
  EXPECT_EQ(UnfinishedUtf8Tail("\xF4\x90"), 0u);  // above U+10FFFF
  EXPECT_EQ(UnfinishedUtf8Tail("\xE4a"), 0u);
}

// The property the streamed model text rests on: splitting where no unfinished tail is, decoding
// the two parts apart gives the decoding of the whole, for any bytes.
TEST(TokenizerUtf8Test, DecodingSplitsExactlyWhereNoTailIsUnfinished) {
  uint32_t state = 12345;
  auto next = [&] { return state = state * 1664525u + 1013904223u; };
  // Bytes drawn mostly from the ones that matter: lead bytes, continuations, ASCII, invalid bytes.
  const uint8_t kPool[] = {'a',  ' ',  0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xAD, 0xBF, 0xC0, 0xC2,
                           0xC3, 0xDF, 0xE0, 0xE4, 0xED, 0xEF, 0xF0, 0xF4, 0xF5, 0xFF};
  int splits = 0;
  for (int round = 0; round < 20000; ++round) {
    std::string bytes(1 + next() % 12, '\0');
    for (char& c : bytes) c = static_cast<char>(kPool[(next() >> 8) % sizeof(kPool)]);
    const std::string whole = DecodeUtf8Lossy(bytes);
    for (size_t k = 1; k < bytes.size(); ++k) {
      const std::string head = bytes.substr(0, k);
      if (UnfinishedUtf8Tail(head) > 0) continue;
      ++splits;
      ASSERT_EQ(DecodeUtf8Lossy(head) + DecodeUtf8Lossy(bytes.substr(k)), whole)
          << "split at " << k << " of " << ::testing::PrintToString(bytes);
    }
  }
  EXPECT_GT(splits, 50000);
}

}  // namespace
}  // namespace mineru::engine
