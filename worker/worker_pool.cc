#include "worker/worker_pool.h"

#include <algorithm>
#include <iterator>
#include <vector>

namespace mineru::worker {

WorkerPool::WorkerPool(Options options) : options_(std::move(options)) {
  if (options_.keep_idle.count() > 0) reaper_ = std::thread([this] { EndIdleWorkers(); });
}

WorkerPool::~WorkerPool() {
  std::deque<std::unique_ptr<WorkerProcess>> spares;
  std::deque<Idle> idle;
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
    spares.swap(spares_);
    idle.swap(idle_);
  }
  idle_cv_.notify_all();
  if (reaper_.joinable()) reaper_.join();
}

void WorkerPool::EndIdleWorkers() {
  std::unique_lock lock(mu_);
  while (!stopping_) {
    std::deque<Idle> ended;
    const MonoTime now = MonoNow();
    while (!idle_.empty() && idle_.front().since + options_.keep_idle <= now) {
      ended.push_back(std::move(idle_.front()));
      idle_.pop_front();
    }
    if (!ended.empty()) {
      lock.unlock();
      ended.clear();  // killed and reaped outside the lock
      lock.lock();
      continue;
    }
    if (idle_.empty()) {
      idle_cv_.wait(lock);
    } else {
      idle_cv_.wait_until(lock, idle_.front().since + options_.keep_idle);
    }
  }
}

Result<std::unique_ptr<WorkerProcess>> WorkerPool::TakeFor(uint32_t user) {
  for (;;) {
    std::unique_ptr<WorkerProcess> w;
    uint64_t cpu_seconds = 0;
    {
      std::lock_guard lock(mu_);
      for (auto it = idle_.rbegin(); it != idle_.rend(); ++it) {
        if (it->user != user) continue;
        w = std::move(it->worker);
        idle_.erase(std::next(it).base());
        break;
      }
      cpu_seconds = options_.worker.cpu_seconds;
    }
    if (!w) return Take();
    if (cpu_seconds == 0 || w->GrantCpu(cpu_seconds).ok()) return w;
    // Its CPU share is spent (or it is gone): ended here, and the next idle one or a fresh one is tried.
  }
}

void WorkerPool::Give(uint32_t user, std::unique_ptr<WorkerProcess> w) {
  std::deque<Idle> ended;
  {
    std::lock_guard lock(mu_);
    // A worker started before a reload keeps the limits it was started with: it is not reused.
    if (stopping_ || options_.keep_idle.count() <= 0 || w->documents() >= options_.worker.documents ||
        w->options() != options_.worker) {
      return;
    }
    idle_.push_back(Idle{user, MonoNow(), std::move(w)});
    while (idle_.size() > std::max<size_t>(options_.spares, 1)) {
      ended.push_back(std::move(idle_.front()));
      idle_.pop_front();
    }
  }
  idle_cv_.notify_all();
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
  std::deque<Idle> old_idle;
  {
    std::lock_guard lock(mu_);
    options_.worker = worker;
    old.swap(spares_);
    old_idle.swap(idle_);
  }
  old.clear();  // killed and reaped outside the lock
  old_idle.clear();
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

size_t WorkerPool::idle() const {
  std::lock_guard lock(mu_);
  return idle_.size();
}

}  // namespace mineru::worker
