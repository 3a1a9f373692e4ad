#include "common/thread_pool.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <set>
#include <stdexcept>
#include <thread>

#include "common/clock.h"

namespace mineru {
namespace {

using std::chrono::milliseconds;

// Polls `done` until it holds or 10 s pass.
template <typename F>
bool Eventually(F done) {
  const Deadline deadline = Deadline::InMillis(10'000);
  while (!done()) {
    if (deadline.Expired()) return false;
    std::this_thread::sleep_for(milliseconds(1));
  }
  return true;
}

TEST(ThreadPoolTest, ATaskNeverWaitsBehindARunningOne) {
  ThreadPool pool(std::chrono::seconds(60));
  constexpr int kTasks = 8;
  std::mutex mu;
  std::condition_variable cv;
  int started = 0;
  std::atomic<int> saw_all{0};
  for (int i = 0; i < kTasks; ++i) {
    pool.Run([&] {
      std::unique_lock lock(mu);
      ++started;
      cv.notify_all();
      // Each task holds its thread until every task has started: only possible on 8 threads at once.
      if (cv.wait_for(lock, std::chrono::seconds(10), [&] { return started == kTasks; })) ++saw_all;
    });
  }
  pool.Close();
  EXPECT_EQ(saw_all.load(), kTasks);
  EXPECT_EQ(pool.threads(), 0);
}

TEST(ThreadPoolTest, TasksOneAfterAnotherReuseOneThread) {
  ThreadPool pool(std::chrono::seconds(60));
  std::mutex mu;
  std::set<std::thread::id> ids;
  for (int i = 0; i < 20; ++i) {
    std::atomic<bool> done{false};
    pool.Run([&] {
      std::lock_guard lock(mu);
      ids.insert(std::this_thread::get_id());
      done = true;
    });
    ASSERT_TRUE(Eventually([&] { return done.load() && pool.idle_threads() == 1; })) << "task " << i;
  }
  EXPECT_EQ(ids.size(), 1u);
  EXPECT_EQ(pool.threads(), 1);
  EXPECT_NE(ids.count(std::this_thread::get_id()), 1u);
}

TEST(ThreadPoolTest, AThreadIdleForItsKeepTimeEnds) {
  ThreadPool pool(milliseconds(50));
  std::atomic<bool> ran{false};
  pool.Run([&] { ran = true; });
  EXPECT_TRUE(Eventually([&] { return ran.load() && pool.threads() == 0; })) << pool.threads();
  // And a later task starts a thread again.
  std::atomic<bool> again{false};
  pool.Run([&] { again = true; });
  EXPECT_TRUE(Eventually([&] { return again.load(); }));
}

TEST(ThreadPoolTest, ABoundedPoolQueuesTasksBeyondItsThreads) {
  ThreadPool pool(std::chrono::seconds(60), 2);
  std::atomic<int> running{0};
  std::atomic<int> most{0};
  std::atomic<int> ran{0};
  for (int i = 0; i < 12; ++i) {
    pool.Run([&] {
      const int now = ++running;
      for (int m = most.load(); now > m && !most.compare_exchange_weak(m, now);) {
      }
      std::this_thread::sleep_for(milliseconds(5));
      --running;
      ++ran;
    });
  }
  EXPECT_LE(pool.threads(), 2);
  pool.Close();
  EXPECT_EQ(ran.load(), 12);
  EXPECT_GE(most.load(), 1);
  EXPECT_LE(most.load(), 2);
}

TEST(ThreadPoolTest, CallReturnsOnceTheWorkRanOnAPoolThread) {
  ThreadPool pool(std::chrono::seconds(60), 1);
  std::thread::id ran_on;
  int value = 0;
  pool.Call([&] {
    ran_on = std::this_thread::get_id();
    value = 42;
  });
  EXPECT_EQ(value, 42);
  EXPECT_NE(ran_on, std::this_thread::get_id());
  std::thread::id again;
  pool.Call([&] { again = std::this_thread::get_id(); });
  EXPECT_EQ(again, ran_on);  // the one thread, kept
  EXPECT_THROW(pool.Call([] { throw std::runtime_error("thrown on the pool's thread"); }),
               std::runtime_error);
  pool.Call([&] { again = std::this_thread::get_id(); });  // and the thread lives on
}

TEST(ThreadPoolTest, CloseRunsEveryTaskQueuedBeforeIt) {
  ThreadPool pool(std::chrono::seconds(60));
  std::atomic<int> ran{0};
  for (int i = 0; i < 200; ++i) {
    pool.Run([&] {
      std::this_thread::sleep_for(std::chrono::microseconds(100));
      ++ran;
    });
  }
  pool.Close();
  EXPECT_EQ(ran.load(), 200);
  EXPECT_EQ(pool.threads(), 0);
  EXPECT_EQ(pool.idle_threads(), 0);
}

}  // namespace
}  // namespace mineru
