// Scheduler: the job table, the queue, the limits, and the worker threads that run jobs.
//
// Submit() checks the limits, spools the job (durable before it returns) and queues it. The daemon
// splits it in three so the event loop never waits for the disk: Reserve() (loop: limits checked and
// the job counted against them), Write() (the spool thread: id, document and record made durable),
// Commit() (loop: the job enters the table and the queue). Workers take the next job of the user with
// the fewest running jobs (oldest first) and run it through the Backend, writing results to the spool
// before the record says kDone. Everything the event loop must hear (progress, a job finished) is put
// on an event list and announced through the `wake` callback; the loop calls TakeEvents() and gets the
// whole list at once (so wake-ups may coalesce).
//
// Stopping: BeginDrain() stops workers taking new jobs (queued ones stay spooled for the next start);
// Interrupt() stops running ones, which return to kQueued in the spool and run again after a restart
// (at-least-once); such a clean stop gives the attempt back, so only starts cut short by the daemon
// dying count against max_attempts. A document worker that dies without an answer (a crash in the
// parser) counts too: the job runs again at once in a fresh worker, and fails after max_attempts.
// A job cancelled by a user ends kCancelled instead.
//
// A job accepted in this run keeps the sealed memfd its document came in until it finishes, and the
// backend hands that same memfd to the document worker: queued documents stay in memory (bounded by
// max_bytes_per_user per user) as well as on disk. A job recovered from the spool has none; the backend
// copies its spooled bytes into a new sealed memfd.
//
// Locking: mu_ guards the table, the queue and the events; `wake` is never called with mu_ held (it may
// take the caller's locks). Spool I/O runs outside mu_; while Submit writes, a reservation counts the
// job against the limits.
#pragma once

#include <sys/types.h>

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <thread>
#include <vector>

#include "common/config.h"
#include "common/unique_fd.h"
#include "common/watchdog.h"
#include "daemon/job.h"
#include "daemon/pipeline_types.h"
#include "daemon/spool.h"

namespace mineru::daemon {

struct JobLimits {
  int64_t max_jobs_queued = 256;   // queued + running, all users
  int64_t max_jobs_per_user = 32;  // queued + running, one user
  uint64_t max_document_bytes = 512ull << 20;
  uint64_t max_bytes_per_user = 2ull << 30;  // document bytes of one user's queued + running jobs
  int64_t max_pages_per_document = 2000;
  int64_t max_seconds_per_document = 3600;
  uint64_t memory_bytes_per_document = 1ull << 30;
  int64_t result_retention_ms = 86'400'000;
  int64_t max_attempts = 3;  // starts cut short by minerud stopping or a worker dying, before a job fails

  static JobLimits FromConfig(const Config& config);
};

struct JobEvent {
  enum class Kind { kProgress, kFinished };
  Kind kind = Kind::kProgress;
  JobInfo info;                            // the job's record at the time of the event
  std::shared_ptr<const PageOutput> page;  // kProgress: the page just finished, when there is one
};

struct SchedulerStats {
  int64_t queued = 0;
  int64_t running = 0;
  int64_t done = 0;
  int64_t failed = 0;
  int64_t cancelled = 0;
  int64_t accepted_total = 0;  // since start
  int64_t rejected_busy_total = 0;
  int64_t pages_total = 0;  // pages parsed since start
  int64_t workers = 0;
};

class Scheduler {
 public:
  struct Options {
    Spool* spool = nullptr;      // outlives the scheduler
    Backend* backend = nullptr;  // outlives the scheduler
    JobLimits limits;
    int64_t workers = 1;
    std::function<void()> wake;  // called from any thread when events are waiting
    // A worker running a job joins it as "worker on job ID": its deadline covers opening the document
    // (open_allowance, plus 1 s per MiB), then each page (page_allowance, plus 50 ms per page of the
    // job for writing the outputs after the last). May be null.
    Watchdog* watchdog = nullptr;
    std::chrono::milliseconds open_allowance{60'000};
    std::chrono::milliseconds page_allowance{60'000};
  };

  explicit Scheduler(Options options);
  ~Scheduler();  // interrupts running jobs and joins the workers
  Scheduler(const Scheduler&) = delete;
  Scheduler& operator=(const Scheduler&) = delete;

  // Loads the spool: unfinished jobs are queued again (at-least-once), finished ones are kept until
  // fetched or their retention passes. An unfinished job already started max_attempts times (each
  // start cut short by minerud stopping: a crash, kill -9, the watchdog) is failed instead, so a
  // document that kills the daemon cannot make it loop. Call once, before Start().
  Status Recover();
  void Start();

  // Accepts a document for `uid`. kBusy when a queue limit is reached or the state directory is full
  // (retry later), kResourceExhausted when the document alone exceeds a limit, kInvalidArgument for a bad
  // name, kUnavailable while draining.
  Result<JobInfo> Submit(uid_t uid, const std::string& name, std::span<const uint8_t> document,
                         document::PageRange pages = {});

  // Submit in three steps. A reservation counts against the limits from Reserve() until Write()
  // fails, Release() is called, or Commit() turns it into a job.
  struct Reservation {
    uid_t uid = 0;
    std::string name;
    uint64_t document_bytes = 0;
    document::PageRange pages;
  };
  // Checks the name and the limits (same errors as Submit) and reserves a place. Cheap; no I/O.
  Result<Reservation> Reserve(uid_t uid, const std::string& name, uint64_t document_bytes,
                              document::PageRange pages = {});
  // Before Write(): kUnavailable, with the reservation released, when a drain began since Reserve().
  // A write already started is finished, and its job kept for the next start.
  Status StartWrite(const Reservation& reservation);
  // Allocates the id and spools the job durably (blocking I/O; any thread, not under a lock). On an
  // error the reservation is released.
  Result<JobInfo> Write(const Reservation& reservation, std::span<const uint8_t> document);
  // Gives back a reservation that will not be written.
  void Release(const Reservation& reservation);
  // Queues a job Write() spooled, with the sealed memfd its document came in (kept until the job
  // finishes, and handed to the backend as BackendInput::document_fd; none for a job from the spool).
  void Commit(const JobInfo& info, UniqueFd document = {});

  std::optional<JobInfo> Find(JobId id) const;
  // Jobs of `uid`, or of everyone when `uid` is empty; by id.
  std::vector<JobInfo> List(std::optional<uid_t> uid) const;
  // Cancels a queued or running job (a running one stops at its next page). kFailedPrecondition when
  // it has already finished. The caller has checked the right to do so.
  Status Cancel(JobId id);
  // The output files of a kDone job; with `consume` they are deleted from the spool afterwards.
  Result<std::vector<OutputFile>> Results(JobId id, bool consume);
  // Deletes finished jobs past the retention time. Returns how many were removed.
  int64_t ExpireFinished(int64_t now_wall_ms);

  std::vector<JobEvent> TakeEvents();
  SchedulerStats Stats() const;
  void SetLimits(const JobLimits& limits);

  void BeginDrain();
  void Interrupt();
  // No job is running.
  bool Idle() const;
  // Milliseconds since a worker last showed life (a page finished, or an idle wake-up).
  int64_t HeartbeatAgeMs() const;

 private:
  struct Entry {
    JobInfo info;
    std::shared_ptr<CancelFlag> cancel;
    bool cancel_requested = false;       // by a user; otherwise a cancel is an interrupt
    std::shared_ptr<UniqueFd> document;  // the sealed memfd the document came in; null after a restart
  };

  void WorkerLoop();
  JobId TakeNextLocked();  // a queued job, fairly between users; mu_ held
  void RunJob(JobId id);
  void Finish(JobId id, JobInfo info);  // persists and publishes a final (or requeued) record
  void PushEventLocked(JobEvent::Kind kind, const JobInfo& info, std::shared_ptr<const PageOutput> page = {});
  void Beat();

  Options options_;
  mutable std::mutex mu_;
  std::condition_variable work_cv_;
  std::map<JobId, Entry> jobs_;            // Guarded by mu_.
  std::deque<JobId> queue_;                // Guarded by mu_.
  std::map<uid_t, int64_t> user_jobs_;     // Guarded by mu_. Queued + running + being spooled.
  std::map<uid_t, uint64_t> user_bytes_;   // Guarded by mu_.
  std::map<uid_t, int64_t> user_running_;  // Guarded by mu_. Jobs a worker runs, per user.
  int64_t active_jobs_ = 0;                // Guarded by mu_. Queued + running + being spooled.
  int64_t running_ = 0;                    // Guarded by mu_.
  std::vector<JobEvent> events_;           // Guarded by mu_.
  SchedulerStats counters_;                // Guarded by mu_ (the *_total fields).
  bool draining_ = false;                  // Guarded by mu_.
  bool stopping_ = false;                  // Guarded by mu_.
  std::atomic<int64_t> heartbeat_ns_{0};
  std::vector<std::thread> workers_;
};

}  // namespace mineru::daemon
