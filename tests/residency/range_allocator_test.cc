#include "residency/range_allocator.h"

#include <gtest/gtest.h>

#include <map>
#include <random>

namespace mineru::residency {
namespace {

TEST(RangeAllocatorTest, AllocatesDisjointRangesAndCoalescesOnFree) {
  RangeAllocator a(64 << 10, 4096);
  auto x = a.Allocate(5000);
  auto y = a.Allocate(4096);
  ASSERT_TRUE(x.ok() && y.ok());
  EXPECT_EQ(*x, 0u);
  EXPECT_EQ(*y, 8192u);
  EXPECT_EQ(a.used_bytes(), 12288u);
  a.Free(*x, 5000);
  a.Free(*y, 4096);
  EXPECT_EQ(a.used_bytes(), 0u);
  EXPECT_EQ(a.largest_free_bytes(), 64u << 10) << "neighbours coalesce back into one range";
  EXPECT_EQ(a.Allocate(65 << 10).status().code(), StatusCode::kResourceExhausted);
}

TEST(RangeAllocatorTest, RandomAllocationsNeverOverlap) {
  std::mt19937 rng(7);
  RangeAllocator a(1 << 20, 256);
  std::map<uint64_t, uint64_t> live;
  for (int step = 0; step < 5000; ++step) {
    if (rng() % 2 && !live.empty()) {
      auto it = live.begin();
      std::advance(it, rng() % live.size());
      a.Free(it->first, it->second);
      live.erase(it);
    } else {
      const uint64_t size = 1 + rng() % 20000;
      auto off = a.Allocate(size);
      if (!off.ok()) continue;
      auto next = live.lower_bound(*off);
      if (next != live.end()) {
        ASSERT_LE(*off + a.Rounded(size), next->first);
      }
      if (next != live.begin()) {
        auto prev = std::prev(next);
        ASSERT_LE(prev->first + a.Rounded(prev->second), *off);
      }
      ASSERT_LE(*off + size, 1u << 20);
      live[*off] = size;
    }
  }
  for (auto& [off, size] : live) a.Free(off, size);
  EXPECT_EQ(a.largest_free_bytes(), 1u << 20);
}

}  // namespace
}  // namespace mineru::residency
