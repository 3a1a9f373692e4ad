#include "engine/sampler.h"

#include <algorithm>
#include <limits>

namespace mineru::engine {

void BanRepeatedNgrams(std::span<const int64_t> h, int64_t n, std::span<float> scores) {
  const int64_t len = static_cast<int64_t>(h.size());
  if (n <= 0 || len + 1 < n) return;
  const int64_t prefix = n - 1;  // the current last n-1 tokens
  const int64_t* tail = h.data() + len - prefix;
  // Every earlier n-gram h[i .. i+n-1] whose first n-1 tokens equal the tail bans h[i+n-1].
  for (int64_t i = 0; i + n <= len; ++i) {
    if (std::equal(tail, tail + prefix, h.data() + i)) {
      const int64_t t = h[i + prefix];
      if (t >= 0 && t < static_cast<int64_t>(scores.size()))
        scores[t] = -std::numeric_limits<float>::infinity();
    }
  }
}

int64_t Argmax(std::span<const float> scores) {
  int64_t best = 0;
  for (size_t i = 1; i < scores.size(); ++i) {
    if (scores[i] > scores[best]) best = static_cast<int64_t>(i);
  }
  return best;
}

int64_t GreedySampler::Next(std::span<float> logits) {
  BanRepeatedNgrams(history_, options_.no_repeat_ngram_size, logits);
  const int64_t token = Argmax(logits);
  generated_.push_back(token);
  history_.push_back(token);
  if (std::find(options_.eos_token_ids.begin(), options_.eos_token_ids.end(), token) !=
      options_.eos_token_ids.end()) {
    stopped_at_eos_ = true;
  }
  return token;
}

}  // namespace mineru::engine
