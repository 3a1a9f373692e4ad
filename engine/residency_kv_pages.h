// ResidencyKvPages: the decoder's KV pages in the residency manager's KvPagePool — one kGpu region
// reserved once and charged against the manager's budget together with the weights and the workspace.
// Design note: the engine asks the pool for page ids only (AddSequence / AppendTokens / FreeSequence)
// and reads and writes keys and values itself through views of pool.storage(). The pool is the
// manager's one pool: created here with the model's page size, bytes per token and dtype, or, when the
// manager already has one (a daemon may create it up front), reused if those three agree. Sequences
// this object added and did not free are freed when it goes away, so the pool outlives the model clean.
#pragma once

#include <memory>
#include <unordered_set>

#include "engine/kv_page_provider.h"
#include "residency/residency_manager.h"

namespace mineru::engine {

class ResidencyKvPages final : public KvPageProvider {
 public:
  // `usable_pages` pages (plus the null page) of page_size_tokens x elements_per_token elements of
  // `dtype` (F32, F16 or BF16) from `manager`, which must outlive this object.
  static Result<std::unique_ptr<ResidencyKvPages>> Create(residency::ResidencyManager* manager,
                                                          int64_t usable_pages, int64_t page_size_tokens,
                                                          int64_t elements_per_token, at::ScalarType dtype);
  ~ResidencyKvPages() override;

  const at::Tensor& storage() const override { return pool_->storage(); }
  int64_t page_size_tokens() const override {
    return static_cast<int64_t>(pool_->options().page_size_tokens);
  }
  int64_t usable_pages() const override { return static_cast<int64_t>(pool_->num_pages()) - 1; }
  int64_t free_pages() const override { return static_cast<int64_t>(pool_->GetStats().pages_free); }
  Result<SequenceId> AddSequence() override;
  Result<std::vector<int64_t>> Append(SequenceId seq, int64_t num_tokens) override;
  Status FreeSequence(SequenceId seq) override;
  Status SwapOut(SequenceId seq) override;
  Result<std::vector<int64_t>> SwapIn(SequenceId seq) override;

  residency::KvPagePool& pool() const { return *pool_; }

 private:
  explicit ResidencyKvPages(residency::KvPagePool* pool) : pool_(pool) {}

  residency::KvPagePool* pool_;
  std::unordered_set<SequenceId> live_;  // sequences added here and not yet freed
  SequenceId next_id_ = 1;
};

}  // namespace mineru::engine
