#include "common/cpu_count.h"

#include <gtest/gtest.h>
#include <sched.h>

#include <thread>

namespace mineru {
namespace {

TEST(CpuMaxCpus, RoundsAQuotaUp) {
  EXPECT_EQ(CpuMaxCpus("200000 100000"), 2);
  EXPECT_EQ(CpuMaxCpus("150000 100000\n"), 2);
  EXPECT_EQ(CpuMaxCpus("50000 100000"), 1);
  EXPECT_EQ(CpuMaxCpus("1600000 100000"), 16);
}

TEST(CpuMaxCpus, NoLimitOrNoNumberIsNone) {
  EXPECT_EQ(CpuMaxCpus("max 100000"), std::nullopt);
  EXPECT_EQ(CpuMaxCpus("-1 100000"), std::nullopt);  // cgroup v1: no quota
  EXPECT_EQ(CpuMaxCpus(" 100000"), std::nullopt);    // v1 files not there
  EXPECT_EQ(CpuMaxCpus(""), std::nullopt);
  EXPECT_EQ(CpuMaxCpus("200000 0"), std::nullopt);
  EXPECT_EQ(CpuMaxCpus("2e5 100000"), std::nullopt);
}

TEST(UsableCpus, AtMostTheMachinesAndAtLeastOne) {
  const int n = UsableCpus();
  EXPECT_GE(n, 1);
  const unsigned hardware = std::thread::hardware_concurrency();
  if (hardware > 0) {
    EXPECT_LE(n, static_cast<int>(hardware));
  }
}

// A thread confined to one CPU (as taskset or CPUAffinity= confine a process) may keep one busy.
TEST(UsableCpus, FollowsTheAffinityMask) {
  int usable = 0;
  bool pinned = false;
  std::thread t([&] {
    cpu_set_t set;
    CPU_ZERO(&set);
    if (::sched_getaffinity(0, sizeof set, &set) != 0) return;
    int first = 0;
    while (first < CPU_SETSIZE && !CPU_ISSET(first, &set)) ++first;
    CPU_ZERO(&set);
    CPU_SET(first, &set);
    pinned = ::sched_setaffinity(0, sizeof set, &set) == 0;
    usable = UsableCpus();
  });
  t.join();
  ASSERT_TRUE(pinned);
  EXPECT_EQ(usable, 1);
}

}  // namespace
}  // namespace mineru
