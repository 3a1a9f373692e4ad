// KvPageProvider: where the decoder's KV pages live and which pages each sequence owns. The engine's
// PagedKvCache (paged_kv_cache.h) reads and writes keys and values through views of storage(); a
// provider only hands out page ids and keeps page tables.
// Design note: two providers, one attention path. LocalKvPages keeps an engine-owned storage tensor
// (no residency manager: tests, the benchmark, a plain CUDA run); ResidencyKvPages is the residency
// manager's KvPagePool (pages in its kGpu region, charged against its budget). Both use the same page
// numbering: page 0 is the null page and is never handed out, so storage() has usable_pages() + 1 rows.
// Not thread-safe: one forward at a time (the residency pool locks its own bookkeeping).
#pragma once

#include <ATen/ATen.h>

#include <cstdint>
#include <vector>

#include "common/result.h"

namespace mineru::engine {

class KvPageProvider {
 public:
  using SequenceId = uint64_t;
  virtual ~KvPageProvider() = default;

  // [num_pages, page_size_tokens, elements_per_token] in the KV dtype; row 0 is the null page.
  virtual const at::Tensor& storage() const = 0;
  virtual int64_t page_size_tokens() const = 0;
  // Pages a sequence may own, excluding the null page.
  virtual int64_t usable_pages() const = 0;
  virtual int64_t free_pages() const = 0;

  // A new sequence with no tokens.
  virtual Result<SequenceId> AddSequence() = 0;
  // Room for `num_tokens` more tokens (all or nothing: kResourceExhausted when pages run out).
  // Returns the ids of pages added to the end of the sequence's page table (possibly none).
  virtual Result<std::vector<int64_t>> Append(SequenceId seq, int64_t num_tokens) = 0;
  // Gives the sequence's pages back.
  virtual Status FreeSequence(SequenceId seq) = 0;
  // Preemption: copies the sequence's pages to host memory and gives them back (its tokens are kept).
  // kUnimplemented when this provider has no host tier (the caller drops and recomputes instead).
  virtual Status SwapOut(SequenceId) { return Unimplemented("this KV cache has no host tier to swap to"); }
  // Brings a swapped-out sequence back into fresh pages: its whole new page table.
  // kResourceExhausted when too few pages are free.
  virtual Result<std::vector<int64_t>> SwapIn(SequenceId) {
    return Unimplemented("this KV cache has no host tier to swap from");
  }
};

}  // namespace mineru::engine
