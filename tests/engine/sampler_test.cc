// The greedy sampler and the no-repeat-ngram rule on hand-worked histories.
#include "engine/sampler.h"

#include <gtest/gtest.h>

#include <cmath>

namespace mineru::engine {
namespace {

std::vector<int64_t> Banned(const std::vector<int64_t>& history, int64_t n, int64_t vocab = 10) {
  std::vector<float> scores(vocab, 0.0f);
  BanRepeatedNgrams(history, n, scores);
  std::vector<int64_t> banned;
  for (int64_t i = 0; i < vocab; ++i) {
    if (std::isinf(scores[i])) banned.push_back(i);
  }
  return banned;
}

TEST(SamplerTest, NoRepeatNgramBansWhatFollowedTheCurrentPrefix) {
  // history 1 2 3 1 2: the last two tokens "1 2" were followed by 3 before.
  EXPECT_EQ(Banned({1, 2, 3, 1, 2}, 3), (std::vector<int64_t>{3}));
  // bigrams: the last token 2 was followed by 3 and by 4.
  EXPECT_EQ(Banned({2, 3, 2, 4, 2}, 2), (std::vector<int64_t>{3, 4}));
  // n = 1 bans every token seen.
  EXPECT_EQ(Banned({5, 1, 5}, 1), (std::vector<int64_t>{1, 5}));
  // Too short a history bans nothing (L + 1 < n), and n = 0 is off.
  EXPECT_TRUE(Banned({1, 2}, 4).empty());
  EXPECT_TRUE(Banned({1, 1, 1}, 0).empty());
  // L + 1 == n: the only n-gram would end at the next token, nothing earlier matches.
  EXPECT_TRUE(Banned({1, 2, 3}, 4).empty());
}

TEST(SamplerTest, GreedyStopsAtEosOrMaxTokens) {
  GreedySampler s({/*max_new_tokens=*/3, /*no_repeat_ngram_size=*/0, /*eos=*/{7}, {}});
  std::vector<float> logits(10, 0.0f);
  logits[4] = 1.0f;
  logits[6] = 1.0f;  // tie: the first index wins
  EXPECT_EQ(s.Next(logits), 4);
  EXPECT_FALSE(s.done());
  logits.assign(10, 0.0f);
  logits[7] = 2.0f;
  EXPECT_EQ(s.Next(logits), 7);
  EXPECT_TRUE(s.done());
  EXPECT_TRUE(s.stopped_at_eos());

  GreedySampler t({2, 0, {}, {}});
  std::vector<float> l(4, 0.0f);
  t.Next(l);
  t.Next(l);
  EXPECT_TRUE(t.done());
  EXPECT_FALSE(t.stopped_at_eos());
}

TEST(SamplerTest, BanUsesGeneratedTokensUnlessAPrefixIsGiven) {
  const std::vector<float> prefer3 = {0, 0, 1, 5, 0, 0, 0, 0, 0, 0};  // 3 first, then 2
  // Bigram ban with the prompt "3 3" in the history: the first 3 after a 3 is already banned.
  GreedySampler with_prefix({5, 2, {}, {3, 3}});
  std::vector<float> a = prefer3;
  EXPECT_EQ(with_prefix.Next(a), 2);
  // Generated tokens only (MinerU): 3 is free until "3 3" has been generated once.
  GreedySampler generated_only({5, 2, {}, {}});
  std::vector<float> b = prefer3, c = prefer3, d = prefer3;
  EXPECT_EQ(generated_only.Next(b), 3);
  EXPECT_EQ(generated_only.Next(c), 3);
  EXPECT_EQ(generated_only.Next(d), 2);
}

}  // namespace
}  // namespace mineru::engine
