// PendingCopy: a copy the manager has decided on (under its lock) and that is submitted to the device
// (outside it). Waiters block until it is submitted and then on the device's event.
// Lock order: ResidencyManager::mu_ -> PendingCopy::mu_ (a leaf); the device event is waited on with no
// lock held.
#pragma once

#include <condition_variable>
#include <memory>
#include <mutex>
#include <vector>

#include "residency/device.h"

namespace mineru::residency {

class PendingCopy {
 public:
  // Records the device's answer to the submission: the events of its copies (one queue, in order), or
  // the error that prevented it.
  void SetSubmitted(Status status, std::vector<std::unique_ptr<CopyEvent>> events);
  // Blocks until submitted and finished; the copy's status.
  Status Wait();
  // True once submitted and finished (or failed to submit). Does not block on the copy.
  bool Done() const;

 private:
  mutable std::mutex mu_;
  std::condition_variable cv_;
  bool submitted_ = false;                          // Guarded by mu_
  Status submit_status_;                            // Guarded by mu_
  std::vector<std::shared_ptr<CopyEvent>> events_;  // Guarded by mu_ (set once)
};

}  // namespace mineru::residency
