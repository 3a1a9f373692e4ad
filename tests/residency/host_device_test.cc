#include "residency/host_device.h"

#include <gtest/gtest.h>

#include <cstring>
#include <vector>

namespace mineru::residency {
namespace {

TEST(HostDeviceTest, AllocationsAreCountedPerTier) {
  HostDevice d;
  {
    auto a = d.Allocate(Tier::kGpu, 10000);
    auto b = d.Allocate(Tier::kPinned, 4096);
    ASSERT_TRUE(a.ok() && b.ok());
    EXPECT_EQ(d.MemoryStats().live_bytes[0], 12288u);
    EXPECT_EQ(d.MemoryStats().live_bytes[1], 4096u);
  }
  EXPECT_EQ(d.MemoryStats().live_bytes[0], 0u);
  EXPECT_EQ(d.MemoryStats().peak_bytes[0], 12288u);
  EXPECT_EQ(d.Allocate(Tier::kDisk, 10).status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(d.Allocate(Tier::kGpu, 0).status().code(), StatusCode::kInvalidArgument);
}

TEST(HostDeviceTest, CopiesArriveInOrderOnEachQueue) {
  HostDevice d;
  auto dst = std::move(d.Allocate(Tier::kGpu, 1 << 20)).value();
  std::vector<uint8_t> a(1 << 20, 1), b(1 << 20, 2);
  auto e1 = d.CopyAsync({CopyQueue::kHostToDevice, dst.data(), a.data(), a.size(), false});
  auto e2 = d.CopyAsync({CopyQueue::kHostToDevice, dst.data(), b.data(), b.size(), false});
  ASSERT_TRUE(e1.ok() && e2.ok());
  ASSERT_TRUE((*e2)->Wait().ok());
  EXPECT_TRUE((*e1)->Done()) << "the queue is in order";
  EXPECT_EQ(std::memcmp(dst.data(), b.data(), b.size()), 0);
}

}  // namespace
}  // namespace mineru::residency
