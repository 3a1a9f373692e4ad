// CopyWorker: one thread that performs memcpy jobs in submission order and completes their events,
// optionally paced to an emulated link. Used by HostDevice for all queues and by CudaDevice for
// host->host (disk -> pinned) reads.
// Design note: pacing models a serial link — a job finishes at max(its start, the previous job's
// finish) + size / rate, waiting on a condition variable with a deadline (no sleep-poll loop).
// Lock order: mu_ is a leaf; an event's mutex is a leaf.
#pragma once

#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>
#include <thread>

#include "common/clock.h"
#include "residency/device.h"

namespace mineru::residency {

// An event completed by a host thread.
class HostCopyEvent final : public CopyEvent {
 public:
  bool Done() const override;
  Status Wait() override;
  void Complete(Status status);

 private:
  mutable std::mutex mu_;
  std::condition_variable cv_;
  bool done_ = false;  // Guarded by mu_
  Status status_;      // Guarded by mu_
};

class CopyWorker {
 public:
  CopyWorker();
  ~CopyWorker();
  CopyWorker(const CopyWorker&) = delete;
  CopyWorker& operator=(const CopyWorker&) = delete;

  // `bytes_per_second` 0 = unpaced.
  std::unique_ptr<CopyEvent> Submit(void* dst, const void* src, uint64_t size_bytes, double bytes_per_second);

 private:
  struct Job {
    void* dst;
    const void* src;
    uint64_t size_bytes;
    double bytes_per_second;
    std::shared_ptr<HostCopyEvent> event;
  };
  class EventHandle;
  void Run();

  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<Job> jobs_;     // Guarded by mu_
  bool stop_ = false;        // Guarded by mu_
  MonoTime link_free_at_{};  // worker thread only
  std::thread thread_;
};

}  // namespace mineru::residency
