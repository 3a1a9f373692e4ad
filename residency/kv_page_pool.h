// KvPagePool: the paged KV cache in a kGpu region reserved once, sized from the budget.
// Design note: fixed-size pages (16 tokens by default); bookkeeping by PageAllocator (integer ids,
// refcounts, O(1) free list); per-sequence page tables here. storage() is a typed tensor over the whole
// region, shaped [num_pages, page_size_tokens, elements_per_token] in the engine's KV dtype: the engine
// views each token's elements as its own [layers, 2, kv_heads, head_dim] and gathers/scatters K/V by page
// id. Row 0 is the null page. Prefix sharing: Fork shares the parent's full pages (refcount) and copies a
// partial last page; appending never writes a shared page (the engine only writes the pages returned by
// AppendTokens, which are exclusively owned). SwapOut moves a sequence's pages to the pinned arena on the
// device->host queue (a preempted sequence), SwapIn brings them back to fresh pages on host->device.
// Lock order: KvPagePool::mu_ -> ResidencyManager::mu_. Copies run with mu_ released... except that a
// sequence being swapped is marked busy so no other call touches it meanwhile.
#pragma once

#include <ATen/ATen.h>

#include <cstdint>
#include <mutex>
#include <span>
#include <unordered_map>
#include <vector>

#include "common/result.h"
#include "residency/device.h"
#include "residency/page_allocator.h"
#include "residency/stats.h"
#include "residency/unit.h"

namespace mineru::residency {

class ResidencyManager;

struct KvPoolOptions {
  uint64_t page_size_tokens = 16;
  uint64_t bytes_per_token = 0;  // K and V of every layer for one token (the engine knows it)
  DType dtype = DType::kBF16;    // bytes_per_token must be a multiple of its size
  // Pages including the null page; 0 = as many as fit in budget_fraction of the kGpu budget.
  uint64_t num_pages = 0;
  double budget_fraction = 0.25;
};

using SequenceId = uint64_t;

class KvPagePool {
 public:
  ~KvPagePool();
  KvPagePool(const KvPagePool&) = delete;
  KvPagePool& operator=(const KvPagePool&) = delete;

  // A new empty sequence; kAlreadyExists if the id is in use.
  Status AddSequence(SequenceId seq);
  // Room for `num_tokens` more tokens: allocates pages as needed (all or nothing). Returns the ids of the
  // pages that will receive the new tokens (exclusively owned). kResourceExhausted when pages run out.
  Result<std::vector<PageId>> AppendTokens(SequenceId seq, uint64_t num_tokens);
  // `child` (new) shares the first `num_tokens` tokens of `parent` (<= its length): full pages by
  // reference, a partial last page by copy.
  Status Fork(SequenceId parent, SequenceId child, uint64_t num_tokens);
  // Drops the sequence and its references (resident or swapped).
  Status FreeSequence(SequenceId seq);

  // Moves the sequence's KV to the pinned arena and releases its pages. kResourceExhausted when the
  // pinned budget cannot hold it.
  Status SwapOut(SequenceId seq);
  // Brings a swapped-out sequence back into fresh (exclusively owned) pages.
  Status SwapIn(SequenceId seq);

  Result<std::vector<PageId>> PageTable(SequenceId seq) const;
  Result<uint64_t> NumTokens(SequenceId seq) const;
  Result<bool> IsSwapped(SequenceId seq) const;
  // Pages a sequence of `num_tokens` tokens needs.
  uint64_t PagesFor(uint64_t num_tokens) const;

  // [num_pages, page_size_tokens, elements_per_token] over the pool's kGpu memory.
  const at::Tensor& storage() const { return storage_; }
  const KvPoolOptions& options() const { return options_; }
  uint64_t num_pages() const { return num_pages_; }
  uint64_t page_size_bytes() const { return page_size_bytes_; }
  KvStats GetStats() const;
  // Invariants: refcount of each page == number of page-table entries naming it; free pages unowned.
  Status CheckConsistency() const;

 private:
  friend class ResidencyManager;
  struct Sequence {
    uint64_t num_tokens = 0;
    std::vector<PageId> pages;  // resident page table
    bool swapped = false;
    uint64_t pinned_offset = 0;  // swapped: the bytes in the pinned arena
    uint64_t pinned_size_bytes = 0;
    bool busy = false;  // a swap is copying
  };

  KvPagePool(ResidencyManager* manager, const KvPoolOptions& options, uint64_t num_pages, DeviceBuffer buffer,
             at::Tensor storage);
  uint8_t* PageData(PageId page) const;
  Result<Sequence*> Find(SequenceId seq);
  Result<const Sequence*> Find(SequenceId seq) const;

  ResidencyManager* manager_;
  KvPoolOptions options_;
  uint64_t num_pages_;
  uint64_t page_size_bytes_;
  DeviceBuffer buffer_;
  at::Tensor storage_;
  mutable std::mutex mu_;
  PageAllocator pages_;                                 // Guarded by mu_
  std::unordered_map<SequenceId, Sequence> sequences_;  // Guarded by mu_
  uint64_t pages_swapped_ = 0;                          // Guarded by mu_
};

}  // namespace mineru::residency
