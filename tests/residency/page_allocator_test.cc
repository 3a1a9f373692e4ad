#include "residency/page_allocator.h"

#include <gtest/gtest.h>

#include <random>
#include <set>

namespace mineru::residency {
namespace {

TEST(PageAllocatorTest, NullPageIsNeverHandedOut) {
  PageAllocator a(5);
  std::set<PageId> got;
  for (int i = 0; i < 4; ++i) got.insert(a.Allocate().value());
  EXPECT_EQ(got, (std::set<PageId>{1, 2, 3, 4}));
  EXPECT_EQ(a.Allocate().status().code(), StatusCode::kResourceExhausted);
  EXPECT_EQ(a.AddRef(kNullPage).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(a.Release(9).status().code(), StatusCode::kInvalidArgument);
}

TEST(PageAllocatorTest, RefcountsShareAndFree) {
  PageAllocator a(3);
  PageId p = a.Allocate().value();
  ASSERT_TRUE(a.AddRef(p).ok());
  EXPECT_EQ(a.num_shared(), 1u);
  EXPECT_EQ(a.Release(p).value(), 1u);
  EXPECT_EQ(a.num_shared(), 0u);
  EXPECT_EQ(a.num_free(), 1u);
  EXPECT_EQ(a.Release(p).value(), 0u);
  EXPECT_EQ(a.num_free(), 2u);
  EXPECT_EQ(a.Release(p).status().code(), StatusCode::kFailedPrecondition) << "double free";
  EXPECT_TRUE(a.CheckConsistency().ok());
}

TEST(PageAllocatorTest, RandomOwnershipStaysConsistent) {
  std::mt19937 rng(3);
  PageAllocator a(64);
  std::multiset<PageId> owners;
  for (int step = 0; step < 20000; ++step) {
    const int r = rng() % 3;
    if (r == 0) {
      auto p = a.Allocate();
      if (p.ok()) owners.insert(*p);
    } else if (!owners.empty()) {
      auto it = owners.begin();
      std::advance(it, rng() % owners.size());
      if (r == 1) {
        ASSERT_TRUE(a.AddRef(*it).ok());
        owners.insert(*it);
      } else {
        ASSERT_TRUE(a.Release(*it).ok());
        owners.erase(it);
      }
    }
    for (PageId p = 1; p < 64; ++p) {
      ASSERT_EQ(a.refcount(p), owners.count(p));
    }
  }
  EXPECT_TRUE(a.CheckConsistency().ok());
}

}  // namespace
}  // namespace mineru::residency
