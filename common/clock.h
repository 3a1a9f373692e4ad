// Monotonic time: the only clock for timeouts, deadlines and durations in minerud.
#pragma once

#include <chrono>
#include <cstdint>

namespace mineru {

using MonoClock = std::chrono::steady_clock;
using MonoTime = MonoClock::time_point;

inline MonoTime MonoNow() { return MonoClock::now(); }
inline int64_t MonoNowNanos() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(MonoNow().time_since_epoch()).count();
}

// Wall time for records people read (job timestamps); never for timeouts.
int64_t WallNowMillis();

// Measures elapsed time from construction (or the last Restart).
class Stopwatch {
 public:
  Stopwatch() : start_(MonoNow()) {}
  void Restart() { start_ = MonoNow(); }
  int64_t ElapsedNanos() const {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(MonoNow() - start_).count();
  }
  double ElapsedSeconds() const { return static_cast<double>(ElapsedNanos()) * 1e-9; }
  double ElapsedMillis() const { return static_cast<double>(ElapsedNanos()) * 1e-6; }

 private:
  MonoTime start_;
};

// A point in monotonic time after which work should stop. Default: never.
class Deadline {
 public:
  Deadline() = default;
  static Deadline Never() { return Deadline(); }
  static Deadline In(std::chrono::nanoseconds d) { return Deadline(MonoNow() + d); }
  static Deadline InMillis(int64_t ms) { return In(std::chrono::milliseconds(ms)); }

  bool never() const { return never_; }
  bool Expired() const { return !never_ && MonoNow() >= at_; }
  // Milliseconds left (0 when expired; -1 when never), as poll() and epoll_wait() take it.
  int RemainingMillisForPoll() const;
  MonoTime at() const { return at_; }

 private:
  explicit Deadline(MonoTime at) : at_(at), never_(false) {}
  MonoTime at_{};
  bool never_ = true;
};

}  // namespace mineru
