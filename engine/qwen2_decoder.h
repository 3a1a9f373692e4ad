// The Qwen2 decoder stack: token embedding, the layers over the paged KV cache, final norm and head
// (lm_head, or embed_tokens transposed when tied). One Forward runs any mix of sequences: a prefill
// chunk of one sequence, or one new token for each of many sequences of different lengths (batched
// decode). Weights are leased one unit at a time. With a residency manager, each forward first
// reserves its activation workspace (decoder_workspace.h, an upper bound) through the manager and holds
// the reservation until it returns, so weights + KV pages + workspace stay within the kGpu budget.
#pragma once

#include <ATen/ATen.h>

#include <span>
#include <vector>

#include "common/result.h"
#include "engine/model_config.h"
#include "engine/paged_kv_cache.h"
#include "engine/rotary_embedding.h"
#include "engine/weight_source.h"

namespace mineru::residency {
class ResidencyManager;
}

namespace mineru::engine {

struct DecoderInput {
  KvSequence* seq = nullptr;
  at::Tensor embeds;        // [n, hidden]: the new tokens, appended after seq->length()
  bool all_logits = false;  // logits of every new row, else only of the last one
};

class Qwen2Decoder {
 public:
  // `workspace_manager` (optional, must outlive the decoder): reserve each forward's workspace there.
  Qwen2Decoder(const TextConfig& config, WeightSource* weights, PagedKvCache* cache, int64_t key_block_tokens,
               residency::ResidencyManager* workspace_manager = nullptr);

  // Embeddings [n, hidden] of token ids (validated against the vocabulary).
  Result<at::Tensor> Embed(std::span<const int64_t> tokens) const;
  // Logits [rows, vocab] in float32 (CPU): for each input, all its rows or its last one, in input order.
  Result<at::Tensor> Forward(std::span<const DecoderInput> inputs) const;
  // A prompt in chunks of `chunk_tokens` (the last chunk may be shorter). Logits of every row or the last.
  Result<at::Tensor> Prefill(KvSequence& seq, const at::Tensor& embeds, int64_t chunk_tokens,
                             bool all_logits) const;

  const TextConfig& config() const { return config_; }
  PagedKvCache& cache() const { return *cache_; }
  // The largest workspace bound of any forward so far (reserved when there is a manager).
  uint64_t peak_workspace_bytes() const { return peak_workspace_bytes_; }
  uint64_t last_workspace_bytes() const { return last_workspace_bytes_; }
  bool reserves_workspace() const { return workspace_manager_ != nullptr; }

 private:
  TextConfig config_;
  WeightSource* weights_;
  PagedKvCache* cache_;
  RotaryEmbedding rope_;
  int64_t key_block_tokens_;
  residency::ResidencyManager* workspace_manager_;
  uint64_t lease_conversion_bytes_;  // counted in every forward's workspace (decoder_workspace.h)
  mutable uint64_t peak_workspace_bytes_ = 0;
  mutable uint64_t last_workspace_bytes_ = 0;
};

}  // namespace mineru::engine
