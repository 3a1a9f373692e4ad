// PagedKvCache: the decoder's keys and values in fixed-size pages, over a KvPageProvider that owns the
// pages (kv_page_provider.h): engine-owned storage (LocalKvPages) or the residency manager's KvPagePool
// (ResidencyKvPages, when PagedKvCacheOptions::residency is set). Both run the same code here.
// Layout: the provider's storage [num_pages, page_size_tokens, elements_per_token] is viewed per token
// as [layers, 2 (key, value), kv_heads, head_dim]; a sequence owns a page table and reaches token t at
// row pages[t / page_size] * page_size + t % page_size of the flattened [num_pages * page_size, ...]
// view. Reads gather a token range into a contiguous tensor, so the attention arithmetic does not depend
// on the page layout (paged and contiguous storage give bit-identical results).
// Not thread-safe: one forward at a time.
#pragma once

#include <ATen/ATen.h>

#include <memory>
#include <span>
#include <vector>

#include "common/result.h"
#include "engine/kv_page_provider.h"
#include "engine/model_config.h"

namespace mineru::residency {
class ResidencyManager;
}

namespace mineru::engine {

struct PagedKvCacheOptions {
  int64_t num_layers = 0;
  int64_t num_kv_heads = 0;
  int64_t head_dim = 0;
  int64_t page_size_tokens = 16;
  int64_t num_pages = 0;  // usable pages (the null page comes on top)
  at::ScalarType dtype = at::kFloat;
  at::Device device = at::kCPU;  // engine-owned storage only; the pool lives on the manager's kGpu tier
  // When set, the pages come from this manager's KV pool (created if it has none); must outlive the cache.
  residency::ResidencyManager* residency = nullptr;
};

class KvSequence {
 public:
  KvSequence() = default;
  KvSequence(const KvSequence&) = delete;
  KvSequence& operator=(const KvSequence&) = delete;
  KvSequence(KvSequence&&) = default;
  KvSequence& operator=(KvSequence&&) = default;

  int64_t length() const { return length_; }
  bool swapped() const { return swapped_; }
  const std::vector<int64_t>& pages() const { return pages_; }

 private:
  friend class PagedKvCache;
  bool registered_ = false;  // known to the provider
  bool swapped_ = false;     // its pages are on the provider's host tier
  KvPageProvider::SequenceId id_ = 0;
  std::vector<int64_t> pages_;
  int64_t reserved_ = 0;  // tokens the provider holds room for
  int64_t length_ = 0;    // tokens written by every layer
};

class PagedKvCache {
 public:
  static Result<std::unique_ptr<PagedKvCache>> Create(const PagedKvCacheOptions& options);
  // Bytes of one token's keys and values over all layers of `config`, in `dtype`.
  static uint64_t BytesPerToken(const TextConfig& config, at::ScalarType dtype);
  // The kGpu bytes a residency KV pool takes for `capacity_tokens` (at least 1) in pages of
  // `page_size_tokens`: the null page included, rounded up as the manager allocates.
  static uint64_t PoolBytes(const TextConfig& config, at::ScalarType dtype, int64_t page_size_tokens,
                            int64_t capacity_tokens);
  // Pages needed for `tokens` tokens.
  static int64_t PagesFor(int64_t tokens, int64_t page_size_tokens) {
    return (tokens + page_size_tokens - 1) / page_size_tokens;
  }
  // Bytes of one token's keys and values over all layers.
  uint64_t BytesPerToken() const;

  // Makes room for `total_tokens` tokens in `seq` (allocating pages). ResourceExhausted when the pool
  // is out of pages.
  Status Reserve(KvSequence& seq, int64_t total_tokens);
  // Returns the sequence's pages to the pool.
  void Free(KvSequence& seq);
  // Preemption: the sequence's keys and values move to the provider's host tier and its pages return
  // to the pool; its length and reservation are kept. kUnimplemented when the provider cannot swap.
  Status SwapOut(KvSequence& seq);
  // Brings a swapped-out sequence back into fresh pages (kResourceExhausted when too few are free).
  Status SwapIn(KvSequence& seq);
  // Writes k, v [n, kv_heads, head_dim] for positions start .. start+n-1 (reserved before).
  void Write(int64_t layer, const KvSequence& seq, int64_t start, const at::Tensor& k, const at::Tensor& v);
  // Keys and values of positions [begin, end) as contiguous [end-begin, kv_heads, head_dim].
  std::pair<at::Tensor, at::Tensor> Read(int64_t layer, const KvSequence& seq, int64_t begin,
                                         int64_t end) const;
  // One token per sequence (a decode step): k, v [B, kv_heads, head_dim], row i at position
  // positions[i] of seqs[i] (reserved before).
  void WriteTokens(int64_t layer, std::span<const KvSequence* const> seqs, std::span<const int64_t> positions,
                   const at::Tensor& k, const at::Tensor& v);
  // The slot of keys [begin, end) of each sequence, [seqs × (end - begin)]; 0 (the null page) from
  // lengths[i] on.
  std::vector<int64_t> PaddedSlots(std::span<const KvSequence* const> seqs, std::span<const int64_t> lengths,
                                   int64_t begin, int64_t end) const;
  // One layer's K or V storage by slot: a view [slots, kv_heads, head_dim] of the provider's pages.
  const at::Tensor& keys(int64_t layer) const { return keys_[layer]; }
  const at::Tensor& values(int64_t layer) const { return values_[layer]; }
  // Keys and values of positions [begin, end) of every sequence, [B, end-begin, kv_heads, head_dim];
  // positions at or past lengths[i] read the null page, which callers mask.
  std::pair<at::Tensor, at::Tensor> ReadPadded(int64_t layer, std::span<const KvSequence* const> seqs,
                                               std::span<const int64_t> lengths, int64_t begin,
                                               int64_t end) const;
  // Marks positions [0, length) as written (after every layer wrote them).
  void SetLength(KvSequence& seq, int64_t length) const { seq.length_ = length; }

  int64_t num_pages() const { return provider_->usable_pages(); }  // without the null page
  int64_t free_pages() const { return provider_->free_pages(); }
  // Most pages in use in the provider after any Reserve (a shared pool counts its other users too).
  int64_t peak_pages_used() const { return peak_pages_used_; }
  const PagedKvCacheOptions& options() const { return options_; }
  KvPageProvider& provider() const { return *provider_; }

 private:
  PagedKvCache() = default;
  // Token t of seq: its row in the per-layer K/V storage (page × page size + offset in the page).
  int64_t SlotOf(const KvSequence& seq, int64_t t) const;
  at::Tensor Slots(const KvSequence& seq, int64_t begin, int64_t end) const;

  PagedKvCacheOptions options_;
  std::unique_ptr<KvPageProvider> provider_;
  std::vector<at::Tensor> keys_;    // per layer: view [num_pages * page_size, kv_heads, head_dim] of storage
  std::vector<at::Tensor> values_;  // same
  int64_t peak_pages_used_ = 0;
};

}  // namespace mineru::engine
