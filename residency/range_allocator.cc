// RangeAllocator: see range_allocator.h.
#include "residency/range_allocator.h"

#include <algorithm>
#include <cassert>
#include <string>

namespace mineru::residency {

RangeAllocator::RangeAllocator(uint64_t capacity_bytes, uint64_t align_bytes)
    : capacity_(capacity_bytes / align_bytes * align_bytes), align_(align_bytes) {
  if (capacity_ > 0) free_.emplace(0, capacity_);
}

Result<uint64_t> RangeAllocator::Allocate(uint64_t size_bytes) {
  const uint64_t need = Rounded(std::max<uint64_t>(size_bytes, 1));
  for (auto it = free_.begin(); it != free_.end(); ++it) {
    if (it->second < need) continue;
    const uint64_t offset = it->first;
    const uint64_t rest = it->second - need;
    free_.erase(it);
    if (rest > 0) free_.emplace(offset + need, rest);
    used_ += need;
    return offset;
  }
  return ResourceExhausted("pinned arena: no free range of " + std::to_string(need) + " bytes (" +
                           std::to_string(capacity_ - used_) + " free, fragmented)");
}

void RangeAllocator::Free(uint64_t offset, uint64_t size_bytes) {
  uint64_t size = Rounded(std::max<uint64_t>(size_bytes, 1));
  used_ -= size;
  auto next = free_.lower_bound(offset);
  assert(next == free_.end() || next->first >= offset + size);
  if (next != free_.end() && next->first == offset + size) {
    size += next->second;
    next = free_.erase(next);
  }
  if (next != free_.begin()) {
    auto prev = std::prev(next);
    if (prev->first + prev->second == offset) {
      prev->second += size;
      return;
    }
  }
  free_.emplace(offset, size);
}

uint64_t RangeAllocator::largest_free_bytes() const {
  uint64_t best = 0;
  for (const auto& [offset, size] : free_) best = std::max(best, size);
  return best;
}

}  // namespace mineru::residency
