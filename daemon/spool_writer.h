// SpoolWriter: the thread that makes accepted documents durable, so the event loop never waits for
// the disk. A 256 MiB document's write + fsync takes as long as the disk needs; meanwhile the loop
// answers everyone else.
//
// The loop reserves the job's place (Scheduler::Reserve) and hands the sealed document over with
// Enqueue(); this thread writes it (Scheduler::Write: id, temp file, fsync, rename, fsync of the
// folder) and puts a Completion on a list, then calls `wake` (the loop's uv_async_send). The loop
// drains the whole list with TakeCompletions() and there commits the job and answers the client, so a
// job becomes visible and runnable only after its submitter follows it. The document's mapping lives
// in the Task until the write is over. Completions name the session by id: it may be gone by then.
//
// Tasks run one at a time in submission order. Stop (the destructor) finishes the write in progress
// and releases the reservations of those not started; their clients get no answer (the daemon is
// exiting). A drain (Scheduler::BeginDrain) makes tasks not yet started fail with kUnavailable; the
// one being written is finished (its job stays queued in the spool for the next start).
//
// Threads: Enqueue/TakeCompletions/Idle from the loop; the writer thread inside. Locking: mu_ guards
// the lists and `busy_`; it is never held while writing, nor while calling `wake` or `before_write`.
// Lock order: SpoolWriter::mu_ before nothing (Scheduler::mu_ is taken only with mu_ released).
#pragma once

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

#include "daemon/scheduler.h"
#include "shm/sealed_document.h"

namespace mineru::daemon {

class SpoolWriter {
 public:
  struct Options {
    Scheduler* scheduler = nullptr;  // outlives the writer
    std::function<void()> wake;      // called from the writer thread when completions wait
    // For unit tests: runs on the writer thread at the start of each write, after the drain check (a
    // test holds it there to play a slow disk). The daemon sets none.
    std::function<void()> before_write;
  };

  struct Task {
    uint64_t session_id = 0;
    uint64_t request_id = 0;
    bool watch = false;  // the submitter follows the job's events (not detached)
    Scheduler::Reservation reservation;
    shm::SealedDocument document;
  };

  struct Completion {
    uint64_t session_id = 0;
    uint64_t request_id = 0;
    bool watch = false;
    Result<JobInfo> job = Internal("not written");  // spooled (the loop commits it), or why not
    UniqueFd document;  // the sealed memfd the document came in, when spooled (for the job's worker)
  };

  explicit SpoolWriter(Options options);
  ~SpoolWriter();
  SpoolWriter(const SpoolWriter&) = delete;
  SpoolWriter& operator=(const SpoolWriter&) = delete;

  void Enqueue(Task task);
  std::vector<Completion> TakeCompletions();
  // Nothing waiting, being written, or completed but not yet taken.
  bool Idle() const;

 private:
  void Run();

  Options options_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::deque<Task> tasks_;               // Guarded by mu_.
  std::vector<Completion> completions_;  // Guarded by mu_.
  bool busy_ = false;                    // Guarded by mu_. A task is being written.
  bool stopping_ = false;                // Guarded by mu_.
  std::thread thread_;
};

}  // namespace mineru::daemon
