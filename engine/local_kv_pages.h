// LocalKvPages: KV pages in an engine-owned storage tensor, for a model run without a residency
// manager (on the CPU or directly on a CUDA device). Bookkeeping is residency's PageAllocator
// (integer ids, O(1) free list, the null page 0 never handed out), so the page numbering and the
// storage layout are exactly those of residency's KvPagePool; only the owner of the memory differs.
#pragma once

#include <ATen/ATen.h>

#include <memory>
#include <unordered_map>
#include <vector>

#include "engine/kv_page_provider.h"
#include "residency/page_allocator.h"

namespace mineru::engine {

class LocalKvPages final : public KvPageProvider {
 public:
  // `usable_pages` pages (plus the null page) of page_size_tokens x elements_per_token each.
  static Result<std::unique_ptr<LocalKvPages>> Create(int64_t usable_pages, int64_t page_size_tokens,
                                                      int64_t elements_per_token, at::ScalarType dtype,
                                                      at::Device device);

  const at::Tensor& storage() const override { return storage_; }
  int64_t page_size_tokens() const override { return page_size_tokens_; }
  int64_t usable_pages() const override { return static_cast<int64_t>(pages_.num_pages()) - 1; }
  int64_t free_pages() const override { return pages_.num_free(); }
  Result<SequenceId> AddSequence() override;
  Result<std::vector<int64_t>> Append(SequenceId seq, int64_t num_tokens) override;
  Status FreeSequence(SequenceId seq) override;

 private:
  struct Sequence {
    int64_t num_tokens = 0;
    std::vector<residency::PageId> pages;
  };
  LocalKvPages(uint32_t num_pages, int64_t page_size_tokens, at::Tensor storage)
      : pages_(num_pages), page_size_tokens_(page_size_tokens), storage_(std::move(storage)) {}

  residency::PageAllocator pages_;
  int64_t page_size_tokens_;
  at::Tensor storage_;
  std::unordered_map<SequenceId, Sequence> sequences_;
  SequenceId next_id_ = 1;
};

}  // namespace mineru::engine
