// PageAllocator: see page_allocator.h.
#include "residency/page_allocator.h"

#include <string>

namespace mineru::residency {

PageAllocator::PageAllocator(uint32_t num_pages) : refcount_(num_pages < 2 ? 2 : num_pages, 0) {
  free_.reserve(refcount_.size() - 1);
  // Pop order: lowest ids first.
  for (uint32_t id = static_cast<uint32_t>(refcount_.size()) - 1; id >= 1; --id) {
    free_.push_back(static_cast<PageId>(id));
  }
}

Result<PageId> PageAllocator::Allocate() {
  if (free_.empty()) {
    return ResourceExhausted("KV page pool exhausted: all " + std::to_string(num_pages() - 1) +
                             " pages in use");
  }
  PageId page = free_.back();
  free_.pop_back();
  refcount_[page] = 1;
  return page;
}

Status PageAllocator::CheckOwned(PageId page) const {
  if (page <= kNullPage || static_cast<uint32_t>(page) >= refcount_.size()) {
    return InvalidArgument("page id " + std::to_string(page) + " is not a page of this pool");
  }
  if (refcount_[page] == 0) return FailedPrecondition("page " + std::to_string(page) + " is free");
  return Status::Ok();
}

Status PageAllocator::AddRef(PageId page) {
  MINERU_RETURN_IF_ERROR(CheckOwned(page));
  if (refcount_[page] == 1) ++num_shared_;
  ++refcount_[page];
  return Status::Ok();
}

Result<uint32_t> PageAllocator::Release(PageId page) {
  MINERU_RETURN_IF_ERROR(CheckOwned(page));
  uint32_t& rc = refcount_[page];
  if (rc == 2) --num_shared_;
  if (--rc == 0) free_.push_back(page);
  return rc;
}

uint32_t PageAllocator::refcount(PageId page) const {
  if (page < 0 || static_cast<uint32_t>(page) >= refcount_.size()) return 0;
  return refcount_[page];
}

Status PageAllocator::CheckConsistency() const {
  if (refcount_[kNullPage] != 0) return Internal("the null page is owned");
  std::vector<uint8_t> on_free(refcount_.size(), 0);
  for (PageId p : free_) {
    if (p <= kNullPage || static_cast<uint32_t>(p) >= refcount_.size())
      return Internal("bad id on free list");
    if (on_free[p]++) return Internal("page " + std::to_string(p) + " twice on the free list");
    if (refcount_[p] != 0) return Internal("page " + std::to_string(p) + " free but owned");
  }
  uint32_t shared = 0;
  for (uint32_t p = 1; p < refcount_.size(); ++p) {
    if (refcount_[p] == 0 && !on_free[p]) return Internal("page " + std::to_string(p) + " leaked");
    if (refcount_[p] > 1) ++shared;
  }
  if (shared != num_shared_) return Internal("shared page count drifted");
  return Status::Ok();
}

}  // namespace mineru::residency
