// Watchdog: the deadlines of the threads that do minerud's work, for the event loop's systemd
// watchdog ping. Each working thread (a worker running a job, the model thread) joins as a Party and,
// before each piece of work, says how long that piece may take (Expect): its deadline is proportional
// to the work it has just started (a page, a batch's decode step), so a long batch is never taken for
// a hang, while a thread stuck inside one piece is seen however many others are idle. A party that
// waits (for a job, for the model thread, which has its own deadline) has none (Idle). The loop pings
// systemd only while Overdue() is empty; a stuck thread thus gets the daemon restarted.
//
// Thread-safety: Join() and Overdue() from any thread; a Party's Expect()/Idle() from the thread that
// owns it (any thread is safe: the deadline is one atomic). A Party leaves when its last owner drops it.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "common/clock.h"

namespace mineru {

class Watchdog {
 public:
  class Party {
   public:
    explicit Party(std::string name) : name_(std::move(name)) {}
    // Starts work that should be done within `allowance` from now.
    void Expect(std::chrono::milliseconds allowance);
    // Waiting, not working: no deadline.
    void Idle() { deadline_ns_.store(kIdle, std::memory_order_release); }
    const std::string& name() const { return name_; }
    // The monotonic deadline in nanoseconds, or 0 while idle.
    int64_t deadline_ns() const { return deadline_ns_.load(std::memory_order_acquire); }

   private:
    static constexpr int64_t kIdle = 0;
    const std::string name_;
    std::atomic<int64_t> deadline_ns_{kIdle};
  };

  // A new party, idle until its first Expect().
  std::shared_ptr<Party> Join(std::string name);
  // Each party past its deadline at `now_ns` (MonoNowNanos()), as "NAME (late by 12.3 s)"; empty while
  // every one is within its deadline.
  std::vector<std::string> Overdue(int64_t now_ns) const;
  // Parties that have joined and not left.
  size_t size() const;

 private:
  mutable std::mutex mu_;
  mutable std::vector<std::weak_ptr<Party>> parties_;  // Guarded by mu_. Left ones pruned in Overdue().
};

// The daemon's one watchdog: the scheduler's workers and the model thread join it; the event loop
// reads it.
Watchdog& ProcessWatchdog();

}  // namespace mineru
