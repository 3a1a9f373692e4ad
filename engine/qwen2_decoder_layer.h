// One Qwen2 decoder layer over a batch of sequence slices packed as rows of x:
//   h = x + o_proj(attention(rope(q), rope(k), v))   with q, k, v from rmsnorm(x)
//   out = h + down(silu(gate(n)) * up(n))            with n = rmsnorm(h)
// Each slice is `count` new tokens of one sequence starting at position `start`; the layer writes its
// keys and values into the paged cache, then attends over everything the sequence holds. The linear
// layers run once over all rows of the batch; attention runs per slice.
#pragma once

#include <ATen/ATen.h>

#include <span>
#include <string>

#include "engine/model_config.h"
#include "engine/paged_attention.h"
#include "engine/paged_kv_cache.h"
#include "engine/rotary_embedding.h"
#include "engine/weight_source.h"

namespace mineru::engine {

struct DecoderSlice {
  const KvSequence* seq = nullptr;
  int64_t start = 0;  // position of the first new token (= tokens already cached)
  int64_t row = 0;    // first row in x
  int64_t count = 0;
};

struct DecoderLayerContext {
  const TextConfig* config = nullptr;
  const RotaryEmbedding* rope = nullptr;
  at::Tensor positions;  // [rows] int64: the position of every row of x
  std::span<const DecoderSlice> slices;
  PagedKvCache* cache = nullptr;
  int64_t key_block_tokens = 512;
};

// x: [rows, hidden]. `weights` is the lease on unit decoder.<layer>.
at::Tensor Qwen2DecoderLayer(const at::Tensor& x, const WeightLease& weights, int64_t layer,
                             const DecoderLayerContext& ctx);

}  // namespace mineru::engine
