// PageAllocator: the bookkeeping half of the KV page pool — integer page ids, a free list, reference
// counts. No memory, no tensors, no device: data movement lives in KvPagePool.
// Design note: ids 1..num_pages-1 are handed out; id 0 is the null page (kNullPage), never handed out,
// which the engine may use to pad page tables. The free list is a stack: Allocate and Release are O(1).
// Invariants: a page is either free (refcount 0, on the free list exactly once) or owned (refcount >= 1,
// not on the free list). Not thread-safe: KvPagePool serialises calls.
#pragma once

#include <cstdint>
#include <vector>

#include "common/result.h"

namespace mineru::residency {

using PageId = int32_t;
inline constexpr PageId kNullPage = 0;

class PageAllocator {
 public:
  // `num_pages` includes the null page; at least 2.
  explicit PageAllocator(uint32_t num_pages);

  // A free page with refcount 1; kResourceExhausted when none is left.
  Result<PageId> Allocate();
  // One more owner of an owned page (prefix sharing).
  Status AddRef(PageId page);
  // One owner fewer; the page returns to the free list at zero. Returns the new refcount.
  Result<uint32_t> Release(PageId page);

  uint32_t refcount(PageId page) const;
  uint32_t num_pages() const { return static_cast<uint32_t>(refcount_.size()); }  // with the null page
  uint32_t num_free() const { return static_cast<uint32_t>(free_.size()); }
  uint32_t num_used() const { return num_pages() - 1 - num_free(); }
  uint32_t num_shared() const { return num_shared_; }
  // Checks the invariants above (tests).
  Status CheckConsistency() const;

 private:
  Status CheckOwned(PageId page) const;

  std::vector<uint32_t> refcount_;
  std::vector<PageId> free_;
  uint32_t num_shared_ = 0;
};

}  // namespace mineru::residency
