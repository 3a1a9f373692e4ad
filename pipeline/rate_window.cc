#include "pipeline/rate_window.h"

#include <algorithm>
#include <chrono>

namespace mineru::pipeline {

int64_t RateWindow::SecondOf(MonoTime t) {
  return std::chrono::duration_cast<std::chrono::seconds>(t.time_since_epoch()).count();
}

void RateWindow::Add(uint64_t count, MonoTime now) {
  const int64_t second = SecondOf(now);
  if (first_ < 0) first_ = second;
  Bucket& b = buckets_[static_cast<size_t>(second % kSeconds)];
  if (b.second != second) b = Bucket{second, 0};
  b.count += count;
}

double RateWindow::PerSecond(MonoTime now) const {
  if (first_ < 0) return 0;
  const int64_t second = SecondOf(now);
  uint64_t total = 0;
  for (const Bucket& b : buckets_) {
    if (b.second >= 0 && b.second > second - kSeconds && b.second <= second) total += b.count;
  }
  // The current second counts as a whole one; a window younger than a minute is as long as it is.
  const int64_t span = std::clamp<int64_t>(second - first_ + 1, 1, kSeconds);
  return static_cast<double>(total) / static_cast<double>(span);
}

}  // namespace mineru::pipeline
