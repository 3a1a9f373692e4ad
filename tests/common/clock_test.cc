#include "common/clock.h"

#include <gtest/gtest.h>

#include <thread>

namespace mineru {
namespace {

TEST(ClockTest, MonotonicNeverGoesBack) {
  int64_t prev = MonoNowNanos();
  for (int i = 0; i < 10000; ++i) {
    int64_t now = MonoNowNanos();
    ASSERT_GE(now, prev);
    prev = now;
  }
}

TEST(ClockTest, StopwatchMeasuresASleep) {
  Stopwatch sw;
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_GE(sw.ElapsedMillis(), 20.0);
  sw.Restart();
  EXPECT_LT(sw.ElapsedMillis(), 20.0);
}

TEST(ClockTest, DeadlineNeverAndExpiry) {
  Deadline never;
  EXPECT_TRUE(never.never());
  EXPECT_FALSE(never.Expired());
  EXPECT_EQ(never.RemainingMillisForPoll(), -1);

  Deadline past = Deadline::InMillis(-5);
  EXPECT_TRUE(past.Expired());
  EXPECT_EQ(past.RemainingMillisForPoll(), 0);

  Deadline later = Deadline::InMillis(60'000);
  EXPECT_FALSE(later.Expired());
  EXPECT_GT(later.RemainingMillisForPoll(), 59'000);
  EXPECT_LE(later.RemainingMillisForPoll(), 60'000);
}

TEST(ClockTest, SubMillisecondRemainderRoundsUp) {
  // A deadline a fraction of a millisecond away must not ask poll() for a zero timeout.
  Deadline soon = Deadline::In(std::chrono::microseconds(900));
  int ms = soon.RemainingMillisForPoll();
  EXPECT_TRUE(ms == 1 || soon.Expired()) << ms;
}

TEST(ClockTest, WallClockIsPlausible) {
  EXPECT_GT(WallNowMillis(), 1'700'000'000'000);  // after 2023
}

}  // namespace
}  // namespace mineru
