// WorkerPool: document workers started ahead of need, so a job does not wait for a worker to load its
// OCR models and enter its sandbox. Take() hands out a started worker that has said Ready and starts
// its replacement; each worker serves one document and is then ended (its handle destroyed).
//
// Threads: any thread may call Take/SetOptions/Describe. Locking: mu_ guards spares_, options_ and
// report_; a worker is never started, waited for or killed with mu_ held.
#pragma once

#include <chrono>
#include <deque>
#include <memory>
#include <mutex>
#include <string>

#include "worker/worker_process.h"

namespace mineru::worker {

class WorkerPool {
 public:
  struct Options {
    WorkerOptions worker;
    size_t spares = 1;                                // workers kept started and waiting
    std::chrono::milliseconds ready_timeout{60'000};  // to load the OCR models and say Ready
  };

  explicit WorkerPool(Options options);
  ~WorkerPool();  // ends the spares

  // A worker that said Ready. A spare that died while waiting is replaced by a fresh start.
  Result<std::unique_ptr<WorkerProcess>> Take();
  // New limits (a reload): spares started with the old ones are ended.
  void SetWorkerOptions(const WorkerOptions& worker);
  // The last sandbox report a worker gave ("" before the first).
  std::string SandboxReport() const;
  size_t spares() const;

 private:
  Result<std::unique_ptr<WorkerProcess>> StartOne(const WorkerOptions& worker);
  void Refill();

  mutable std::mutex mu_;
  Options options_;                                    // Guarded by mu_.
  std::deque<std::unique_ptr<WorkerProcess>> spares_;  // Guarded by mu_.
  std::string report_;                                 // Guarded by mu_.
};

}  // namespace mineru::worker
