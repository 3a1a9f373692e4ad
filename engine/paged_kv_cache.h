// PagedKvCache: the decoder's keys and values in fixed-size pages. Each layer has one key and one
// value store of num_pages * page_size_tokens token slots; a sequence owns a page table and reaches
// token t at slot pages[t / page_size] * page_size + t % page_size. Reads gather a token range into a
// contiguous tensor, so the attention arithmetic does not depend on the page layout (paged and
// contiguous storage give bit-identical results).
// Not thread-safe: one forward at a time.
#pragma once

#include <ATen/ATen.h>

#include <memory>
#include <vector>

#include "common/result.h"

namespace mineru::engine {

struct PagedKvCacheOptions {
  int64_t num_layers = 0;
  int64_t num_kv_heads = 0;
  int64_t head_dim = 0;
  int64_t page_size_tokens = 16;
  int64_t num_pages = 0;
  at::ScalarType dtype = at::kFloat;
  at::Device device = at::kCPU;
};

class KvSequence {
 public:
  int64_t length() const { return length_; }
  const std::vector<int64_t>& pages() const { return pages_; }

 private:
  friend class PagedKvCache;
  std::vector<int64_t> pages_;
  int64_t length_ = 0;
};

class PagedKvCache {
 public:
  static Result<std::unique_ptr<PagedKvCache>> Create(const PagedKvCacheOptions& options);
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
  // Writes k, v [n, kv_heads, head_dim] for positions start .. start+n-1 (reserved before).
  void Write(int64_t layer, const KvSequence& seq, int64_t start, const at::Tensor& k, const at::Tensor& v);
  // Keys and values of positions [begin, end) as contiguous [end-begin, kv_heads, head_dim].
  std::pair<at::Tensor, at::Tensor> Read(int64_t layer, const KvSequence& seq, int64_t begin,
                                         int64_t end) const;
  // Marks positions [0, length) as written (after every layer wrote them).
  void SetLength(KvSequence& seq, int64_t length) const { seq.length_ = length; }

  int64_t free_pages() const { return static_cast<int64_t>(free_.size()); }
  const PagedKvCacheOptions& options() const { return options_; }

 private:
  PagedKvCache() = default;
  at::Tensor Slots(const KvSequence& seq, int64_t begin, int64_t end) const;

  PagedKvCacheOptions options_;
  std::vector<at::Tensor> keys_;    // per layer [num_pages * page_size, kv_heads, head_dim]
  std::vector<at::Tensor> values_;  // same
  std::vector<int64_t> free_;       // free page ids, taken from the back
};

}  // namespace mineru::engine
