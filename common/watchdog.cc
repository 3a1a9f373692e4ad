#include "common/watchdog.h"

#include <cstdio>

namespace mineru {

void Watchdog::Party::Expect(std::chrono::milliseconds allowance) {
  const int64_t deadline =
      MonoNowNanos() + std::chrono::duration_cast<std::chrono::nanoseconds>(allowance).count();
  deadline_ns_.store(deadline == kIdle ? kIdle + 1 : deadline, std::memory_order_release);
}

std::shared_ptr<Watchdog::Party> Watchdog::Join(std::string name) {
  auto party = std::make_shared<Party>(std::move(name));
  std::lock_guard lock(mu_);
  parties_.push_back(party);
  return party;
}

std::vector<std::string> Watchdog::Overdue(int64_t now_ns) const {
  std::vector<std::string> late;
  std::lock_guard lock(mu_);
  std::erase_if(parties_, [](const std::weak_ptr<Party>& p) { return p.expired(); });
  for (const std::weak_ptr<Party>& weak : parties_) {
    std::shared_ptr<Party> p = weak.lock();
    if (!p) continue;
    const int64_t deadline = p->deadline_ns();
    if (deadline == 0 || now_ns <= deadline) continue;
    char by[32];
    std::snprintf(by, sizeof by, "%.1f", static_cast<double>(now_ns - deadline) * 1e-9);
    late.push_back(p->name() + " (late by " + by + " s)");
  }
  return late;
}

size_t Watchdog::size() const {
  std::lock_guard lock(mu_);
  size_t n = 0;
  for (const auto& p : parties_) n += p.expired() ? 0 : 1;
  return n;
}

Watchdog& ProcessWatchdog() {
  static Watchdog watchdog;
  return watchdog;
}

}  // namespace mineru
