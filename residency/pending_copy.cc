// PendingCopy: see pending_copy.h.
#include "residency/pending_copy.h"

namespace mineru::residency {

void PendingCopy::SetSubmitted(Status status, std::vector<std::unique_ptr<CopyEvent>> events) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    submit_status_ = std::move(status);
    for (auto& e : events) events_.push_back(std::shared_ptr<CopyEvent>(std::move(e)));
    submitted_ = true;
  }
  cv_.notify_all();
}

Status PendingCopy::Wait() {
  std::vector<std::shared_ptr<CopyEvent>> events;
  Status status;
  {
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait(lock, [&] { return submitted_; });
    status = submit_status_;
    events = events_;
  }
  // Even after a failed submission, wait for the copies that did start: their memory must stay alive.
  for (auto& e : events) {
    Status s = e->Wait();
    if (status.ok() && !s.ok()) status = s;
  }
  return status;
}

bool PendingCopy::Done() const {
  std::vector<std::shared_ptr<CopyEvent>> events;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!submitted_) return false;
    events = events_;
  }
  for (auto& e : events) {
    if (!e->Done()) return false;
  }
  return true;
}

}  // namespace mineru::residency
