// KvPagePool: see kv_page_pool.h. Bookkeeping under mu_; data copies (fork of a partial page, swap
// out/in) run with mu_ released while the sequences involved are marked busy.
#include "residency/kv_page_pool.h"

#include <string>

#include "residency/residency_manager.h"

namespace mineru::residency {

namespace {
std::string SeqName(SequenceId seq) { return "sequence " + std::to_string(seq); }
}  // namespace

KvPagePool::KvPagePool(ResidencyManager* manager, const KvPoolOptions& options, uint64_t num_pages,
                       DeviceBuffer buffer, at::Tensor storage)
    : manager_(manager),
      options_(options),
      num_pages_(num_pages),
      page_size_bytes_(options.page_size_tokens * options.bytes_per_token),
      buffer_(std::move(buffer)),
      storage_(std::move(storage)),
      pages_(static_cast<uint32_t>(num_pages)) {}

KvPagePool::~KvPagePool() {
  std::lock_guard<std::mutex> lock(mu_);
  for (auto& [id, seq] : sequences_) {
    if (seq.swapped && seq.pinned_size_bytes > 0)
      manager_->FreePinnedRange(seq.pinned_offset, seq.pinned_size_bytes);
  }
}

uint8_t* KvPagePool::PageData(PageId page) const {
  return static_cast<uint8_t*>(buffer_.data()) + static_cast<uint64_t>(page) * page_size_bytes_;
}

uint64_t KvPagePool::PagesFor(uint64_t num_tokens) const {
  return (num_tokens + options_.page_size_tokens - 1) / options_.page_size_tokens;
}

Result<KvPagePool::Sequence*> KvPagePool::Find(SequenceId seq) {
  auto it = sequences_.find(seq);
  if (it == sequences_.end()) return NotFound("no KV " + SeqName(seq));
  return &it->second;
}

Result<const KvPagePool::Sequence*> KvPagePool::Find(SequenceId seq) const {
  auto it = sequences_.find(seq);
  if (it == sequences_.end()) return NotFound("no KV " + SeqName(seq));
  return &it->second;
}

Status KvPagePool::AddSequence(SequenceId seq) {
  std::lock_guard<std::mutex> lock(mu_);
  if (!sequences_.emplace(seq, Sequence{}).second)
    return Status(StatusCode::kAlreadyExists, SeqName(seq) + " exists");
  return Status::Ok();
}

Result<std::vector<PageId>> KvPagePool::AppendTokens(SequenceId seq, uint64_t num_tokens) {
  std::lock_guard<std::mutex> lock(mu_);
  MINERU_ASSIGN_OR_RETURN(Sequence * s, Find(seq));
  if (s->swapped || s->busy) return FailedPrecondition(SeqName(seq) + " is swapped out");
  const uint64_t total = s->num_tokens + num_tokens;
  const uint64_t have = s->pages.size();
  const uint64_t need = PagesFor(total);
  if (need > have && need - have > pages_.num_free()) {
    return ResourceExhausted("KV pool: " + SeqName(seq) + " needs " + std::to_string(need - have) +
                             " more pages, " + std::to_string(pages_.num_free()) + " free");
  }
  std::vector<PageId> touched;
  if (num_tokens > 0 && s->num_tokens % options_.page_size_tokens != 0) touched.push_back(s->pages.back());
  for (uint64_t i = have; i < need; ++i) {
    MINERU_ASSIGN_OR_RETURN(PageId p, pages_.Allocate());
    s->pages.push_back(p);
    touched.push_back(p);
  }
  s->num_tokens = total;
  return touched;
}

Status KvPagePool::Fork(SequenceId parent, SequenceId child, uint64_t num_tokens) {
  PageId copy_from = kNullPage;
  PageId copy_to = kNullPage;
  {
    std::lock_guard<std::mutex> lock(mu_);
    MINERU_ASSIGN_OR_RETURN(Sequence * p, Find(parent));
    if (p->swapped || p->busy) return FailedPrecondition(SeqName(parent) + " is swapped out");
    if (sequences_.count(child)) return Status(StatusCode::kAlreadyExists, SeqName(child) + " exists");
    if (num_tokens > p->num_tokens) {
      return OutOfRange("fork of " + std::to_string(num_tokens) + " tokens from " + SeqName(parent) + " of " +
                        std::to_string(p->num_tokens));
    }
    const uint64_t full = num_tokens / options_.page_size_tokens;
    const bool partial = num_tokens % options_.page_size_tokens != 0;
    if (partial && pages_.num_free() == 0) return ResourceExhausted("KV pool: no free page for the fork");
    Sequence c;
    c.num_tokens = num_tokens;
    for (uint64_t i = 0; i < full; ++i) {
      MINERU_RETURN_IF_ERROR(pages_.AddRef(p->pages[i]));
      c.pages.push_back(p->pages[i]);
    }
    if (partial) {
      MINERU_ASSIGN_OR_RETURN(copy_to, pages_.Allocate());
      copy_from = p->pages[full];
      c.pages.push_back(copy_to);
      c.busy = p->busy = true;
    }
    Sequence* inserted = &sequences_.emplace(child, std::move(c)).first->second;
    (void)inserted;
  }
  if (copy_to != kNullPage) {
    Status copied;
    try {
      storage_[copy_to].copy_(storage_[copy_from]);  // a device copy inside the pool, mu_ released
    } catch (const std::exception& e) {
      copied = Internal(std::string("copying a KV page for a fork: ") + e.what());
    }
    std::lock_guard<std::mutex> lock(mu_);
    sequences_[parent].busy = false;
    sequences_[child].busy = false;
    if (!copied.ok()) {
      for (PageId p : sequences_[child].pages) pages_.Release(p).status().IgnoreError();
      sequences_.erase(child);
      return copied;
    }
  }
  return Status::Ok();
}

Status KvPagePool::FreeSequence(SequenceId seq) {
  std::lock_guard<std::mutex> lock(mu_);
  MINERU_ASSIGN_OR_RETURN(Sequence * s, Find(seq));
  if (s->busy) return FailedPrecondition(SeqName(seq) + " is being copied");
  for (PageId p : s->pages) MINERU_RETURN_IF_ERROR(pages_.Release(p).status());
  if (s->swapped) {
    if (s->pinned_size_bytes > 0) manager_->FreePinnedRange(s->pinned_offset, s->pinned_size_bytes);
    pages_swapped_ -= s->pinned_size_bytes / page_size_bytes_;
  }
  sequences_.erase(seq);
  return Status::Ok();
}

Status KvPagePool::SwapOut(SequenceId seq) {
  std::vector<PageId> pages;
  uint64_t offset = 0;
  uint64_t size = 0;
  {
    std::lock_guard<std::mutex> lock(mu_);
    MINERU_ASSIGN_OR_RETURN(Sequence * s, Find(seq));
    if (s->swapped || s->busy) return FailedPrecondition(SeqName(seq) + " is already swapped out");
    pages = s->pages;
    size = pages.size() * page_size_bytes_;
    if (size > 0) {
      MINERU_ASSIGN_OR_RETURN(offset, manager_->AllocatePinnedRange(size));
    }
    s->busy = true;
  }
  Status status;
  std::vector<std::unique_ptr<CopyEvent>> events;
  for (size_t i = 0; i < pages.size() && status.ok(); ++i) {
    auto e = manager_->device()->CopyAsync({CopyQueue::kDeviceToHost,
                                            manager_->pinned_base() + offset + i * page_size_bytes_,
                                            PageData(pages[i]), page_size_bytes_, false});
    if (e.ok()) {
      events.push_back(std::move(e).value());
    } else {
      status = e.status();
    }
  }
  for (auto& e : events) {
    Status st = e->Wait();
    if (status.ok() && !st.ok()) status = st;
  }
  std::lock_guard<std::mutex> lock(mu_);
  Sequence& s = sequences_[seq];
  s.busy = false;
  if (!status.ok()) {
    if (size > 0) manager_->FreePinnedRange(offset, size);
    return status.WithContext("swapping out " + SeqName(seq));
  }
  for (PageId p : s.pages) MINERU_RETURN_IF_ERROR(pages_.Release(p).status());
  s.pages.clear();
  s.swapped = true;
  s.pinned_offset = offset;
  s.pinned_size_bytes = size;
  pages_swapped_ += pages.size();
  return Status::Ok();
}

Status KvPagePool::SwapIn(SequenceId seq) {
  std::vector<PageId> pages;
  uint64_t offset = 0;
  uint64_t size = 0;
  {
    std::lock_guard<std::mutex> lock(mu_);
    MINERU_ASSIGN_OR_RETURN(Sequence * s, Find(seq));
    if (!s->swapped || s->busy) return FailedPrecondition(SeqName(seq) + " is not swapped out");
    const uint64_t n = s->pinned_size_bytes / page_size_bytes_;
    if (n > pages_.num_free()) {
      return ResourceExhausted("KV pool: swapping in " + SeqName(seq) + " needs " + std::to_string(n) +
                               " pages, " + std::to_string(pages_.num_free()) + " free");
    }
    for (uint64_t i = 0; i < n; ++i) {
      MINERU_ASSIGN_OR_RETURN(PageId p, pages_.Allocate());
      pages.push_back(p);
    }
    offset = s->pinned_offset;
    size = s->pinned_size_bytes;
    s->busy = true;
  }
  Status status;
  std::vector<std::unique_ptr<CopyEvent>> events;
  for (size_t i = 0; i < pages.size() && status.ok(); ++i) {
    auto e = manager_->device()->CopyAsync({CopyQueue::kHostToDevice, PageData(pages[i]),
                                            manager_->pinned_base() + offset + i * page_size_bytes_,
                                            page_size_bytes_, false});
    if (e.ok()) {
      events.push_back(std::move(e).value());
    } else {
      status = e.status();
    }
  }
  for (auto& e : events) {
    Status st = e->Wait();
    if (status.ok() && !st.ok()) status = st;
  }
  std::lock_guard<std::mutex> lock(mu_);
  Sequence& s = sequences_[seq];
  s.busy = false;
  if (!status.ok()) {
    for (PageId p : pages) pages_.Release(p).status().IgnoreError();
    return status.WithContext("swapping in " + SeqName(seq));
  }
  if (size > 0) manager_->FreePinnedRange(offset, size);
  s.pages = std::move(pages);
  s.swapped = false;
  s.pinned_offset = s.pinned_size_bytes = 0;
  pages_swapped_ -= s.pages.size();
  return Status::Ok();
}

Result<std::vector<PageId>> KvPagePool::PageTable(SequenceId seq) const {
  std::lock_guard<std::mutex> lock(mu_);
  MINERU_ASSIGN_OR_RETURN(const Sequence* s, Find(seq));
  if (s->swapped) return FailedPrecondition(SeqName(seq) + " is swapped out");
  return s->pages;
}

Result<uint64_t> KvPagePool::NumTokens(SequenceId seq) const {
  std::lock_guard<std::mutex> lock(mu_);
  MINERU_ASSIGN_OR_RETURN(const Sequence* s, Find(seq));
  return s->num_tokens;
}

Result<bool> KvPagePool::IsSwapped(SequenceId seq) const {
  std::lock_guard<std::mutex> lock(mu_);
  MINERU_ASSIGN_OR_RETURN(const Sequence* s, Find(seq));
  return s->swapped;
}

KvStats KvPagePool::GetStats() const {
  std::lock_guard<std::mutex> lock(mu_);
  KvStats st;
  st.page_size_tokens = options_.page_size_tokens;
  st.pages_total = pages_.num_pages() - 1;
  st.pages_used = pages_.num_used();
  st.pages_free = pages_.num_free();
  st.pages_shared = pages_.num_shared();
  st.pages_swapped = pages_swapped_;
  st.sequences = sequences_.size();
  uint64_t slots = 0;
  for (const auto& [id, s] : sequences_) {
    if (s.swapped) continue;
    st.tokens += s.num_tokens;
    slots += s.pages.size() * options_.page_size_tokens;
  }
  st.waste_fraction = slots == 0 ? 0 : 1.0 - static_cast<double>(st.tokens) / static_cast<double>(slots);
  return st;
}

Status KvPagePool::CheckConsistency() const {
  std::lock_guard<std::mutex> lock(mu_);
  MINERU_RETURN_IF_ERROR(pages_.CheckConsistency());
  std::vector<uint32_t> refs(pages_.num_pages(), 0);
  for (const auto& [id, s] : sequences_) {
    if (s.swapped && !s.pages.empty()) return Internal(SeqName(id) + " is swapped but holds pages");
    if (!s.swapped && s.pages.size() != PagesFor(s.num_tokens)) {
      return Internal(SeqName(id) + " has " + std::to_string(s.pages.size()) + " pages for " +
                      std::to_string(s.num_tokens) + " tokens");
    }
    for (PageId p : s.pages) {
      if (p == kNullPage) return Internal(SeqName(id) + " holds the null page");
      refs[p]++;
    }
  }
  for (uint32_t p = 1; p < refs.size(); ++p) {
    if (refs[p] != pages_.refcount(static_cast<PageId>(p))) {
      return Internal("page " + std::to_string(p) + " has refcount " +
                      std::to_string(pages_.refcount(static_cast<PageId>(p))) + " but " +
                      std::to_string(refs[p]) + " owners");
    }
  }
  return Status::Ok();
}

}  // namespace mineru::residency
