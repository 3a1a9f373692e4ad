// The remote servers' bookkeeping: least outstanding requests, concurrency, rotation and back-off.
#include "pipeline/remote_server_pool.h"

#include <gtest/gtest.h>

namespace mineru::pipeline {
namespace {

using std::chrono::milliseconds;

RemoteServerPool ThreeUp(MonoTime now, int64_t concurrency = 2) {
  RemoteServerPool pool(
      {{"http://a/", "http://b", "http://c"}, concurrency, milliseconds(100), milliseconds(800)}, now);
  for (size_t i = 0; i < 3; ++i) {
    pool.OnProbeStart(i);
    pool.OnProbeSuccess(i, "m");
  }
  return pool;
}

TEST(RemoteServerPoolTest, StartsOutOfRotationWithProbesDue) {
  const MonoTime now = MonoNow();
  RemoteServerPool pool({{"http://a//"}, 1, milliseconds(100), milliseconds(800)}, now);
  EXPECT_EQ(pool.server(0).url, "http://a");
  EXPECT_EQ(pool.Pick({true}), -1);
  EXPECT_FALSE(pool.AnyInRotation({true}));
  EXPECT_EQ(pool.ProbesDue(now), std::vector<size_t>{0});
  pool.OnProbeStart(0);
  EXPECT_TRUE(pool.ProbesDue(now).empty());
  pool.OnProbeSuccess(0, "mineru2");
  EXPECT_EQ(pool.server(0).model_id, "mineru2");
  EXPECT_EQ(pool.Pick({true}), 0);
}

TEST(RemoteServerPoolTest, PicksLeastOutstandingUpToConcurrency) {
  RemoteServerPool pool = ThreeUp(MonoNow());
  const std::vector<bool> all(3, true);
  std::vector<int> picks;
  for (int k = 0; k < 6; ++k) {
    const int s = pool.Pick(all);
    ASSERT_GE(s, 0);
    pool.OnRequestStart(static_cast<size_t>(s));
    picks.push_back(s);
  }
  // Spread evenly, two each, then full.
  for (size_t i = 0; i < 3; ++i) EXPECT_EQ(pool.server(i).outstanding, 2);
  EXPECT_EQ(pool.Pick(all), -1);
  pool.OnRequestEnd(1);
  EXPECT_EQ(pool.Pick(all), 1);
  // A page that used up server 1 does not go there.
  EXPECT_EQ(pool.Pick({true, false, true}), -1);
}

TEST(RemoteServerPoolTest, FailedServerLeavesRotationUntilAProbeAnswers) {
  MonoTime now = MonoNow();
  RemoteServerPool pool = ThreeUp(now, 8);
  const std::vector<bool> all(3, true);
  pool.OnServerFailure(0, "connection refused", now);
  EXPECT_FALSE(pool.server(0).in_rotation);
  EXPECT_EQ(pool.InRotation(), 2u);
  for (int k = 0; k < 10; ++k) {
    const int s = pool.Pick(all);
    EXPECT_NE(s, 0);
    pool.OnRequestStart(static_cast<size_t>(s));
  }
  EXPECT_TRUE(pool.ProbesDue(now).empty());
  EXPECT_EQ(pool.NextProbe(), now + milliseconds(100));
  // Probes that fail back off: 100, 200, 400, 800, 800 ms.
  MonoTime t = now + milliseconds(100);
  for (int64_t wait : {100, 200, 400, 800, 800}) {
    ASSERT_EQ(pool.ProbesDue(t), std::vector<size_t>{0});
    pool.OnProbeStart(0);
    pool.OnProbeFailure(0, "still down", t);
    EXPECT_EQ(pool.NextProbe(), t + milliseconds(wait));
    t += milliseconds(wait);
  }
  pool.OnProbeStart(0);
  pool.OnProbeSuccess(0, "m");
  EXPECT_TRUE(pool.server(0).in_rotation);
  EXPECT_EQ(pool.Pick(all), 0);  // the least loaded now
}

}  // namespace
}  // namespace mineru::pipeline
