// The Qwen2 decoder stack: token embedding, the layers over the paged KV cache, final norm and head
// (lm_head, or embed_tokens transposed when tied). One Forward runs any mix of sequences: a prefill
// chunk of one sequence, or one new token for each of many sequences of different lengths (batched
// decode). Weights are leased one unit at a time.
#pragma once

#include <ATen/ATen.h>

#include <span>
#include <vector>

#include "common/result.h"
#include "engine/model_config.h"
#include "engine/paged_kv_cache.h"
#include "engine/rotary_embedding.h"
#include "engine/weight_source.h"

namespace mineru::engine {

struct DecoderInput {
  KvSequence* seq = nullptr;
  at::Tensor embeds;        // [n, hidden]: the new tokens, appended after seq->length()
  bool all_logits = false;  // logits of every new row, else only of the last one
};

class Qwen2Decoder {
 public:
  Qwen2Decoder(const TextConfig& config, WeightSource* weights, PagedKvCache* cache,
               int64_t key_block_tokens);

  // Embeddings [n, hidden] of token ids (validated against the vocabulary).
  Result<at::Tensor> Embed(std::span<const int64_t> tokens) const;
  // Logits [rows, vocab] in float32 (CPU): for each input, all its rows or its last one, in input order.
  Result<at::Tensor> Forward(std::span<const DecoderInput> inputs) const;
  // A prompt in chunks of `chunk_tokens` (the last chunk may be shorter). Logits of every row or the last.
  Result<at::Tensor> Prefill(KvSequence& seq, const at::Tensor& embeds, int64_t chunk_tokens,
                             bool all_logits) const;

  const TextConfig& config() const { return config_; }
  PagedKvCache& cache() const { return *cache_; }

 private:
  TextConfig config_;
  WeightSource* weights_;
  PagedKvCache* cache_;
  RotaryEmbedding rope_;
  int64_t key_block_tokens_;
};

}  // namespace mineru::engine
