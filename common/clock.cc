#include "common/clock.h"

#include <limits>

namespace mineru {

int64_t WallNowMillis() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

int Deadline::RemainingMillisForPoll() const {
  if (never_) return -1;
  // Rounded up: a deadline 0.4 ms away must not turn into a busy loop of zero-timeout polls.
  auto left = std::chrono::ceil<std::chrono::milliseconds>(at_ - MonoNow()).count();
  if (left <= 0) return 0;
  if (left > std::numeric_limits<int>::max()) return std::numeric_limits<int>::max();
  return static_cast<int>(left);
}

}  // namespace mineru
