// RateWindow: a count per second over the last minute (pages/s, tokens/s for stats), from events
// added as they happen. One-second buckets; not thread-safe (the owner locks).
#pragma once

#include <array>
#include <cstdint>

#include "common/clock.h"

namespace mineru::pipeline {

class RateWindow {
 public:
  static constexpr int kSeconds = 60;

  void Add(uint64_t count, MonoTime now = MonoNow());
  // Events per second over the last minute, or over the time since the first event when shorter.
  double PerSecond(MonoTime now = MonoNow()) const;

 private:
  struct Bucket {
    int64_t second = -1;  // which second it counts (the clock's seconds); -1: never used
    uint64_t count = 0;
  };
  static int64_t SecondOf(MonoTime t);

  std::array<Bucket, kSeconds> buckets_{};
  int64_t first_ = -1;  // the second of the first event
};

}  // namespace mineru::pipeline
