// RangeAllocator: offsets inside one arena (the pinned arena allocated once).
// Design note: first fit over an ordered map of free ranges, coalescing neighbours on free; sizes are
// rounded up to the alignment. O(log n) per call plus the first-fit scan. Not thread-safe: the
// ResidencyManager calls it under its mutex (bookkeeping only, no memory is touched).
#pragma once

#include <cstdint>
#include <map>

#include "common/result.h"

namespace mineru::residency {

class RangeAllocator {
 public:
  RangeAllocator(uint64_t capacity_bytes, uint64_t align_bytes);

  // The offset of a free range of at least `size_bytes`; kResourceExhausted when no range is large
  // enough (free bytes may still be fragmented).
  Result<uint64_t> Allocate(uint64_t size_bytes);
  // Returns a range given by Allocate with the same size.
  void Free(uint64_t offset, uint64_t size_bytes);

  uint64_t capacity_bytes() const { return capacity_; }
  uint64_t used_bytes() const { return used_; }
  uint64_t largest_free_bytes() const;
  uint64_t Rounded(uint64_t size_bytes) const { return (size_bytes + align_ - 1) / align_ * align_; }

 private:
  uint64_t capacity_;
  uint64_t align_;
  uint64_t used_ = 0;
  std::map<uint64_t, uint64_t> free_;  // offset -> size
};

}  // namespace mineru::residency
