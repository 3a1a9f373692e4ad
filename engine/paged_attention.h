// Causal grouped-query attention over the paged KV cache with a bounded workspace.
//
// Queries are n consecutive positions start .. start+n-1 of one sequence, already rotated. Keys are
// read in blocks of `key_block_tokens` (aligned at position 0) and combined with a running maximum and
// sum (online softmax), so the largest temporary is heads x n x key_block scores — never L x L. The
// kv heads are shared by num_heads / num_kv_heads query heads without copying them.
#pragma once

#include <ATen/ATen.h>

#include <span>

#include "engine/paged_kv_cache.h"

namespace mineru::engine {

struct AttentionShape {
  int64_t num_heads = 0;
  int64_t num_kv_heads = 0;
  int64_t head_dim = 0;
  int64_t key_block_tokens = 512;
};

// q: [n, num_heads, head_dim]. The cache must already hold positions 0 .. start+n-1 of `seq` for `layer`.
// Returns [n, num_heads * head_dim] in q's dtype; the softmax runs in float32.
at::Tensor PagedAttention(const at::Tensor& q, int64_t start, const PagedKvCache& cache, int64_t layer,
                          const KvSequence& seq, const AttentionShape& shape);

// One decode step of B sequences in one computation: q [B, num_heads, head_dim], query i at position
// positions[i] of seqs[i] (the cache holds its keys 0 .. positions[i]). Keys are read in the same
// blocks, padded past each sequence's end and masked there. Returns [B, num_heads * head_dim] in q's
// dtype. Equal to PagedAttention per sequence up to the summation order of the batched products.
at::Tensor PagedDecodeAttention(const at::Tensor& q, std::span<const int64_t> positions,
                                const PagedKvCache& cache, int64_t layer,
                                std::span<const KvSequence* const> seqs, const AttentionShape& shape);

}  // namespace mineru::engine
