// CopyWorker: see copy_worker.h.
#include "residency/copy_worker.h"

#include <chrono>
#include <cstring>

namespace mineru::residency {

bool HostCopyEvent::Done() const {
  std::lock_guard<std::mutex> lock(mu_);
  return done_;
}

Status HostCopyEvent::Wait() {
  std::unique_lock<std::mutex> lock(mu_);
  cv_.wait(lock, [&] { return done_; });
  return status_;
}

void HostCopyEvent::Complete(Status status) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    status_ = std::move(status);
    done_ = true;
  }
  cv_.notify_all();
}

// The caller's handle shares the event with the worker.
class CopyWorker::EventHandle final : public CopyEvent {
 public:
  explicit EventHandle(std::shared_ptr<HostCopyEvent> event) : event_(std::move(event)) {}
  bool Done() const override { return event_->Done(); }
  Status Wait() override { return event_->Wait(); }

 private:
  std::shared_ptr<HostCopyEvent> event_;
};

CopyWorker::CopyWorker() : thread_([this] { Run(); }) {}

CopyWorker::~CopyWorker() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  thread_.join();
}

std::unique_ptr<CopyEvent> CopyWorker::Submit(void* dst, const void* src, uint64_t size_bytes,
                                              double bytes_per_second) {
  auto event = std::make_shared<HostCopyEvent>();
  {
    std::lock_guard<std::mutex> lock(mu_);
    jobs_.push_back(Job{dst, src, size_bytes, bytes_per_second, event});
  }
  cv_.notify_one();
  return std::make_unique<EventHandle>(std::move(event));
}

void CopyWorker::Run() {
  std::unique_lock<std::mutex> lock(mu_);
  for (;;) {
    cv_.wait(lock, [&] { return stop_ || !jobs_.empty(); });
    if (jobs_.empty()) return;  // stop_ and drained
    Job job = std::move(jobs_.front());
    jobs_.pop_front();
    lock.unlock();

    const MonoTime start = MonoNow();
    std::memcpy(job.dst, job.src, job.size_bytes);
    if (job.bytes_per_second > 0) {
      const MonoTime begin = std::max(start, link_free_at_);
      const auto duration = std::chrono::nanoseconds(
          static_cast<int64_t>(static_cast<double>(job.size_bytes) / job.bytes_per_second * 1e9));
      link_free_at_ = begin + std::chrono::duration_cast<MonoClock::duration>(duration);
      // Wait out the emulated link: a timed wait on the queue's condition variable (woken early only by
      // stop, which still completes the job after the deadline).
      lock.lock();
      cv_.wait_until(lock, link_free_at_, [&] { return MonoNow() >= link_free_at_; });
      lock.unlock();
    }
    job.event->Complete(Status::Ok());
    lock.lock();
  }
}

}  // namespace mineru::residency
