// ThreadPool: runs tasks on up to `max_threads` threads, started as tasks arrive and ended after
// `keep_idle` without one; a task beyond max_threads busy ones waits for the first to come free.
// Unbounded (the default), a task never waits behind another: the HTTP listener's page tasks wait
// for the whole generation of a page. Bounded, the same few threads do all the work of their kind:
// page images of HTTP requests are preprocessed on two threads whose memory stays warm, not on each
// of up to http_max_connections page threads, each growing a malloc arena of its own (bench/README.md).
//
// Threads: Run(), Call() and Close() from any thread, but not from a task of the same pool (a task
// that waits for another could wait for a thread it holds). Close() waits for every task, queued
// ones included.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <limits>
#include <mutex>

namespace mineru {

class ThreadPool {
 public:
  explicit ThreadPool(std::chrono::milliseconds keep_idle,
                      int64_t max_threads = std::numeric_limits<int64_t>::max())
      : keep_idle_(keep_idle), max_threads_(max_threads) {}
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;
  ~ThreadPool() { Close(); }

  // Starts `task` on an idle thread, on a new one while fewer than max_threads run, else queues it.
  void Run(std::function<void()> task);
  // Runs `work` on one of the pool's threads and returns once it has; what it throws, Call throws.
  void Call(const std::function<void()>& work);
  // Waits until every task has run and every thread has ended; Run() after Close() starts threads again.
  void Close();

  int64_t threads() const;
  int64_t idle_threads() const;

 private:
  void Loop();

  const std::chrono::milliseconds keep_idle_;
  const int64_t max_threads_;
  mutable std::mutex mu_;
  std::condition_variable work_cv_;          // a task was queued, or closing
  std::condition_variable ended_cv_;         // a thread ended
  std::deque<std::function<void()>> tasks_;  // Guarded by mu_: not yet taken by a thread
  int64_t threads_ = 0;                      // Guarded by mu_
  int64_t idle_ = 0;                         // Guarded by mu_: waiting for a task
  bool closing_ = false;                     // Guarded by mu_
};

}  // namespace mineru
