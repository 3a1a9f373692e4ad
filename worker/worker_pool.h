// WorkerPool: document workers started ahead of need, so a job does not wait for a worker to start, load
// its OCR models and enter its sandbox; and workers kept warm for the user whose document they just
// parsed. A fresh process per document is cold (MuPDF's fonts, caches and heap are built again: about
// twice the time to first page); a worker that finished a document cleanly serves the same user's next
// ones, up to `documents_per_worker`, while it has waited no longer than `keep_idle`. A worker never
// serves two users: nothing of one user's document is left in a process that sees another user's. A
// worker that failed, was cancelled or broke the protocol is never given back (its handle kills it).
//
// Take() hands out a started worker that has said Ready and starts its replacement; TakeFor(user)
// prefers that user's idle worker; Give(user, worker) keeps one for that user.
//
// Threads: any thread may call Take/TakeFor/Give/SetWorkerOptions/SandboxReport; one thread of the pool
// ends idle workers when their time is up. Locking: mu_ guards every member but reaper_; a worker is
// never started, waited for or killed with mu_ held.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "common/clock.h"
#include "worker/worker_process.h"

namespace mineru::worker {

class WorkerPool {
 public:
  struct Options {
    WorkerOptions worker;                             // worker.documents: documents per worker
    size_t spares = 1;                                // workers kept started and waiting; also the most
                                                      // idle workers kept for users
    std::chrono::milliseconds ready_timeout{60'000};  // to load the OCR models and say Ready
    std::chrono::milliseconds keep_idle{0};           // an idle worker is ended after this; 0: no reuse
  };

  explicit WorkerPool(Options options);
  ~WorkerPool();  // ends the spares and the idle workers

  // A fresh worker that said Ready. A spare that died while waiting is replaced by a fresh start.
  Result<std::unique_ptr<WorkerProcess>> Take();
  // The worker `user` left idle last (with its CPU allowance renewed), else Take().
  Result<std::unique_ptr<WorkerProcess>> TakeFor(uint32_t user);
  // `w` finished a document of `user` cleanly: kept for that user's next one, or ended (reuse off, its
  // documents served, started with limits a reload has changed since, the idle workers at their cap:
  // the oldest goes).
  void Give(uint32_t user, std::unique_ptr<WorkerProcess> w);
  // New limits (a reload): spares and idle workers started with the old ones are ended.
  void SetWorkerOptions(const WorkerOptions& worker);
  // The last sandbox report a worker gave ("" before the first).
  std::string SandboxReport() const;
  size_t spares() const;
  size_t idle() const;

 private:
  struct Idle {
    uint32_t user = 0;
    MonoTime since;
    std::unique_ptr<WorkerProcess> worker;
  };
  Result<std::unique_ptr<WorkerProcess>> StartOne(const WorkerOptions& worker);
  void Refill();
  void EndIdleWorkers();  // the reaper thread

  mutable std::mutex mu_;
  std::condition_variable idle_cv_;
  Options options_;                                    // Guarded by mu_.
  std::deque<std::unique_ptr<WorkerProcess>> spares_;  // Guarded by mu_.
  std::deque<Idle> idle_;                              // Guarded by mu_. Oldest first.
  std::string report_;                                 // Guarded by mu_.
  bool stopping_ = false;                              // Guarded by mu_.
  std::thread reaper_;
};

}  // namespace mineru::worker
