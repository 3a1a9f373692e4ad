#include "engine/byte_level_bpe.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <random>
#include <set>

namespace mineru::engine {
namespace {

using ::testing::HasSubstr;

std::vector<std::pair<std::string, int64_t>> ByteVocab() {
  std::vector<std::pair<std::string, int64_t>> vocab;
  for (int b = 0; b < 256; ++b) vocab.emplace_back(ByteLevelChar(static_cast<uint8_t>(b)), b);
  return vocab;
}

TEST(ByteLevelMappingTest, PrintableBytesStandForThemselvesOthersAreShifted) {
  // The GPT-2 table: '!'..'~' map to themselves, space is U+0120 ('Ġ'), newline U+010A ('Ċ').
  EXPECT_EQ(ByteLevelChar('A'), "A");
  EXPECT_EQ(ByteLevelChar(' '), "\xC4\xA0");
  EXPECT_EQ(ByteLevelChar('\n'), "\xC4\x8A");
  EXPECT_EQ(ByteLevelChar(0xAD), "\xC5\x83");  // soft hyphen is the last shifted byte: U+0143
  std::set<std::string> distinct;
  std::string bytes;
  for (int b = 0; b < 256; ++b) {
    const std::string c = ByteLevelChar(static_cast<uint8_t>(b));
    distinct.insert(c);
    ASSERT_TRUE(ByteLevelToBytes(c, &bytes));
    ASSERT_EQ(bytes, std::string(1, static_cast<char>(b)));
  }
  EXPECT_EQ(distinct.size(), 256u);
  EXPECT_FALSE(ByteLevelToBytes(" ", &bytes));  // a raw space is not a byte-level character
  std::string all;
  for (int b = 0; b < 256; ++b) all.push_back(static_cast<char>(b));
  ASSERT_TRUE(ByteLevelToBytes(BytesToByteLevel(all), &bytes));
  EXPECT_EQ(bytes, all);
}

TEST(ByteLevelBpeTest, LeftmostPairMergesFirstOnEqualRank) {
  auto vocab = ByteVocab();
  vocab.emplace_back("aa", 256);
  auto bpe = ByteLevelBpe::Create(vocab, {{"a", "a"}}, {});
  ASSERT_TRUE(bpe.ok()) << bpe.status().ToString();
  std::vector<int32_t> ids;
  (*bpe)->EncodeWord("aaa", &ids);
  EXPECT_EQ(ids, (std::vector<int32_t>{256, 'a'}));
  ids.clear();
  (*bpe)->EncodeWord("aaaa", &ids);
  EXPECT_EQ(ids, (std::vector<int32_t>{256, 256}));
}

TEST(ByteLevelBpeTest, MergedTokensMergeFurther) {
  auto vocab = ByteVocab();
  vocab.emplace_back("ab", 256);
  vocab.emplace_back("abab", 257);
  vocab.emplace_back("ababc", 258);
  auto bpe = ByteLevelBpe::Create(vocab, {{"a", "b"}, {"ab", "ab"}, {"abab", "c"}}, {});
  ASSERT_TRUE(bpe.ok());
  std::vector<int32_t> ids;
  (*bpe)->EncodeWord("ababcab", &ids);
  EXPECT_EQ(ids, (std::vector<int32_t>{258, 256}));
  ids.clear();
  (*bpe)->EncodeWord(std::string("\x00\xFF", 2), &ids);
  EXPECT_EQ(ids, (std::vector<int32_t>{0, 255}));
}

TEST(ByteLevelBpeTest, CachedAndUncachedResultsAgree) {
  auto vocab = ByteVocab();
  std::vector<std::pair<std::string, std::string>> merges;
  // Merges of every pair of lowercase letters in a scrambled order.
  std::mt19937 rng(7);
  std::vector<std::string> pairs;
  for (char a = 'a'; a <= 'h'; ++a) {
    for (char b = 'a'; b <= 'h'; ++b) pairs.push_back(std::string{a, b});
  }
  std::shuffle(pairs.begin(), pairs.end(), rng);
  int64_t next = 256;
  for (const auto& p : pairs) {
    vocab.emplace_back(p, next++);
    merges.emplace_back(p.substr(0, 1), p.substr(1));
  }
  ByteLevelBpe::Options small_cache;
  small_cache.cache_capacity_words = 8;
  auto bpe = ByteLevelBpe::Create(vocab, merges, small_cache);
  ASSERT_TRUE(bpe.ok());
  for (int i = 0; i < 500; ++i) {
    std::string word;
    const int n = 1 + static_cast<int>(rng() % 12);
    for (int k = 0; k < n; ++k) word.push_back(static_cast<char>('a' + rng() % 8));
    std::vector<int32_t> cached, uncached, again;
    (*bpe)->EncodeWord(word, &cached);
    (*bpe)->EncodeWordUncached(word, &uncached);
    (*bpe)->EncodeWord(word, &again);
    ASSERT_EQ(cached, uncached) << word;
    ASSERT_EQ(again, uncached) << word;
    std::string joined;
    for (int32_t id : cached) joined += *(*bpe)->TokenBytes(id);
    ASSERT_EQ(joined, word);
  }
}

TEST(ByteLevelBpeTest, IgnoreMergesTakesWholeWordsFromTheVocabulary) {
  auto vocab = ByteVocab();
  vocab.emplace_back("abc", 256);  // reachable only as a whole word
  ByteLevelBpe::Options options;
  options.ignore_merges = true;
  auto bpe = ByteLevelBpe::Create(vocab, {}, options);
  ASSERT_TRUE(bpe.ok());
  std::vector<int32_t> ids;
  (*bpe)->EncodeWord("abc", &ids);
  EXPECT_EQ(ids, std::vector<int32_t>{256});
  auto plain = ByteLevelBpe::Create(vocab, {}, {});
  ids.clear();
  (*plain)->EncodeWord("abc", &ids);
  EXPECT_EQ(ids, (std::vector<int32_t>{'a', 'b', 'c'}));
}

TEST(ByteLevelBpeTest, CreateRejectsInconsistentTables) {
  auto vocab = ByteVocab();
  vocab.pop_back();
  EXPECT_THAT(ByteLevelBpe::Create(vocab, {}, {}).status().message(), HasSubstr("no token for byte 255"));
  vocab = ByteVocab();
  EXPECT_THAT(ByteLevelBpe::Create(vocab, {{"a", "b"}}, {}).status().message(), HasSubstr("model.merges[0]"));
  vocab.emplace_back("again", 3);
  EXPECT_THAT(ByteLevelBpe::Create(vocab, {}, {}).status().message(),
              HasSubstr("id 3 is used by two tokens"));
  vocab = ByteVocab();
  vocab.emplace_back("neg", -1);
  EXPECT_FALSE(ByteLevelBpe::Create(vocab, {}, {}).ok());
  vocab = ByteVocab();
  vocab.emplace_back("big", kMaxTokenId + 1);
  EXPECT_FALSE(ByteLevelBpe::Create(vocab, {}, {}).ok());
}

}  // namespace
}  // namespace mineru::engine
