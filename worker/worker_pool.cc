#include "worker/worker_pool.h"

#include <vector>

namespace mineru::worker {

WorkerPool::WorkerPool(Options options) : options_(std::move(options)) {}

WorkerPool::~WorkerPool() {
  std::deque<std::unique_ptr<WorkerProcess>> spares;
  {
    std::lock_guard lock(mu_);
    spares.swap(spares_);
  }
}

Result<std::unique_ptr<WorkerProcess>> WorkerPool::StartOne(const WorkerOptions& worker) {
  return WorkerProcess::Start(worker);
}

void WorkerPool::Refill() {
  WorkerOptions worker;
  size_t missing = 0;
  {
    std::lock_guard lock(mu_);
    worker = options_.worker;
    missing = options_.spares > spares_.size() ? options_.spares - spares_.size() : 0;
  }
  for (size_t i = 0; i < missing; ++i) {
    Result<std::unique_ptr<WorkerProcess>> started = StartOne(worker);
    if (!started.ok()) return;  // Take() starts one itself and reports the error
    std::lock_guard lock(mu_);
    spares_.push_back(std::move(*started));
  }
}

Result<std::unique_ptr<WorkerProcess>> WorkerPool::Take() {
  std::unique_ptr<WorkerProcess> spare;
  WorkerOptions worker;
  std::chrono::milliseconds ready_timeout;
  {
    std::lock_guard lock(mu_);
    if (!spares_.empty()) {
      spare = std::move(spares_.front());
      spares_.pop_front();
    }
    worker = options_.worker;
    ready_timeout = options_.ready_timeout;
  }
  Refill();
  for (int attempt = 0; attempt < 2; ++attempt) {
    std::unique_ptr<WorkerProcess> w = std::move(spare);
    if (!w) {
      MINERU_ASSIGN_OR_RETURN(w, StartOne(worker));
    }
    Result<std::string> report = w->WaitReady(Deadline::In(ready_timeout));
    if (report.ok()) {
      std::lock_guard lock(mu_);
      report_ = *report;
      return w;
    }
    if (attempt == 1 || !IsWorkerLost(report.status())) return report.status();
  }
  return Internal("unreachable");
}

void WorkerPool::SetWorkerOptions(const WorkerOptions& worker) {
  std::deque<std::unique_ptr<WorkerProcess>> old;
  {
    std::lock_guard lock(mu_);
    options_.worker = worker;
    old.swap(spares_);
  }
  old.clear();  // killed and reaped outside the lock
  Refill();
}

std::string WorkerPool::SandboxReport() const {
  std::lock_guard lock(mu_);
  return report_;
}

size_t WorkerPool::spares() const {
  std::lock_guard lock(mu_);
  return options_.spares;
}

}  // namespace mineru::worker
