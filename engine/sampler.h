// Greedy sampling as MinerU 2.0 decodes: argmax (first index on ties) after banning repeated n-grams,
// stop after an EOS token or max_new_tokens. The n-gram history is the GENERATED tokens only (MinerU
// hands the spliced prompt to generation as embeddings, so the prompt ids are never in the history).
#pragma once

#include <cstdint>
#include <span>
#include <vector>

namespace mineru::engine {

struct SamplingOptions {
  int64_t max_new_tokens = 16384;
  int64_t no_repeat_ngram_size = 100;  // 0 turns the ban off
  std::vector<int64_t> eos_token_ids;
  // Tokens placed before the generated ones in the n-gram history. Empty for MinerU (generated tokens
  // only); the prompt ids reproduce Hugging Face generate() on a plain text prompt.
  std::vector<int64_t> ngram_history_prefix;
};

// The no-repeat-ngram rule: with history h of length L and size n, when L + 1 >= n, every token t such
// that (h[L-n+1 .. L-1], t) already occurs as an n-gram in h gets -inf.
void BanRepeatedNgrams(std::span<const int64_t> history, int64_t n, std::span<float> scores);

// Index of the largest score, the first on ties.
int64_t Argmax(std::span<const float> scores);

class GreedySampler {
 public:
  explicit GreedySampler(SamplingOptions options)
      : options_(std::move(options)), history_(options_.ngram_history_prefix) {}

  // Picks the next token from raw logits (modified in place by the ban) and records it.
  int64_t Next(std::span<float> logits);
  bool done() const {
    return stopped_at_eos_ || static_cast<int64_t>(generated_.size()) >= options_.max_new_tokens;
  }
  bool stopped_at_eos() const { return stopped_at_eos_; }
  const std::vector<int64_t>& generated() const { return generated_; }

 private:
  SamplingOptions options_;
  std::vector<int64_t> generated_;
  std::vector<int64_t> history_;  // prefix + generated
  bool stopped_at_eos_ = false;
};

}  // namespace mineru::engine
