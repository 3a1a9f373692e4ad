#include "common/watchdog.h"

#include <gtest/gtest.h>

#include <thread>

namespace mineru {
namespace {

using namespace std::chrono_literals;

constexpr int64_t kSecond = 1'000'000'000;

TEST(WatchdogTest, APartyIsOverdueOnlyPastTheDeadlineOfItsCurrentWork) {
  Watchdog w;
  auto a = w.Join("worker on job 1");
  auto b = w.Join("model thread");
  const int64_t start = MonoNowNanos();
  EXPECT_TRUE(w.Overdue(start + 1000 * kSecond).empty()) << "idle parties have no deadline";
  a->Expect(10s);
  b->Expect(100s);
  EXPECT_TRUE(w.Overdue(start + 9 * kSecond).empty());
  std::vector<std::string> late = w.Overdue(MonoNowNanos() + 12 * kSecond);
  ASSERT_EQ(late.size(), 1u);
  EXPECT_EQ(late[0].rfind("worker on job 1 (late by ", 0), 0u) << late[0];
  // New work, a new deadline from now; waiting clears it.
  a->Expect(100s);
  EXPECT_TRUE(w.Overdue(MonoNowNanos() + 12 * kSecond).empty());
  b->Idle();
  a->Idle();
  EXPECT_TRUE(w.Overdue(MonoNowNanos() + 1000 * kSecond).empty());
}

TEST(WatchdogTest, AnIdlePartyDoesNotHideAStuckOne) {
  Watchdog w;
  auto stuck = w.Join("worker on job 7");
  auto idle = w.Join("worker on job 8");
  stuck->Expect(1ms);
  idle->Expect(1000s);
  idle->Idle();
  std::this_thread::sleep_for(5ms);
  std::vector<std::string> late = w.Overdue(MonoNowNanos());
  ASSERT_EQ(late.size(), 1u);
  EXPECT_NE(late[0].find("worker on job 7"), std::string::npos);
}

TEST(WatchdogTest, APartyLeavesWhenDropped) {
  Watchdog w;
  auto a = w.Join("a");
  {
    auto b = w.Join("b");
    b->Expect(1ms);
    EXPECT_EQ(w.size(), 2u);
  }
  std::this_thread::sleep_for(5ms);
  EXPECT_TRUE(w.Overdue(MonoNowNanos()).empty()) << "a party that left is never overdue";
  EXPECT_EQ(w.size(), 1u);
}

}  // namespace
}  // namespace mineru
