// WorkerProcess: minerud's handle on one document worker (minerud-worker, worker_service.h): starts it,
// talks to it, and ends it. Every call waits with a deadline and for the worker's death at once (poll on
// the socket and a pidfd), so a worker that crashes, hangs or is killed by its limits comes back as an
// error, never as a stuck thread. The worker is killed (SIGKILL) and reaped when the handle goes.
//
// Errors that mean "the worker is gone" are kUnavailable with a message that starts "the document
// worker" and says how it ended (signal, exit code, limit); IsWorkerLost() tells them apart. A worker
// that ran out of its memory limit is kResourceExhausted, its CPU limit or a deadline kDeadlineExceeded.
//
// The API for a backend, one document per worker:
//   auto w = WorkerProcess::Start(options);            // clone+exec (worker_spawn.h); it sandboxes itself
//   w->WaitReady(deadline);                             // the sandbox report
//   w->Open(memfd, size, limits, deadline);             // page count
//   w->ParseText(pages, on_page, deadline, watch)       // text layer: pages as they finish, then the files
//   w->Render(page, dpi, deadline)                      // a page as RGB pixels in a sealed memfd
//   w->GrantCpu(seconds); w->Open(...)                  // a next document of the same user (worker_pool.h)
// One thread uses a WorkerProcess at a time.
#pragma once

#include <sys/types.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "common/clock.h"
#include "common/result.h"
#include "common/unique_fd.h"
#include "worker/worker_protocol.h"

namespace mineru::worker {

struct WorkerOptions {
  std::string path;                    // the minerud-worker binary
  uint64_t address_space_bytes = 0;    // RLIMIT_AS of the worker; 0: none
  uint64_t cpu_seconds = 0;            // RLIMIT_CPU of the worker per document; 0: none
  uint32_t documents = 1;              // documents it may serve (its hard RLIMIT_CPU allows that many)
  bool ocr = true;                     // false: pages without a text layer are marked as needing OCR
  std::string ocr_languages;           // empty: the worker's default
  int64_t ocr_page_time_limit_ms = 0;  // 0: the worker's default
  bool namespaces = true;              // namespaces of its own (pid, user, net, ...) where the kernel allows

  bool operator==(const WorkerOptions&) const = default;
};

// Limits of one document (kOpen).
struct OpenLimits {
  std::string name;
  int64_t max_pages = 0;
  uint64_t memory_limit_bytes = 0;
  Deadline deadline;  // the job's; the worker stops itself there, the daemon kills it a little later
  std::chrono::milliseconds open_allowance{0};  // the worker is killed when opening takes longer; 0: none
};

// A page the worker finished: its index, progress and a bundle {markdown, content_list, model_output}.
struct WorkerPage {
  uint32_t page_index = 0;
  int64_t pages_done = 0;
  int64_t pages_total = 0;
  Bundle bundle;
};

// A rendered page: RGB, 3 bytes per pixel, rows without padding, in the bundle's "rgb" entry.
struct RenderedPage {
  int width = 0;
  int height = 0;
  Bundle bundle;
  std::span<const uint8_t> rgb() const { return bundle.Find("rgb"); }
};

bool IsWorkerLost(const Status& status);

class WorkerProcess {
 public:
  static Result<std::unique_ptr<WorkerProcess>> Start(const WorkerOptions& options);
  ~WorkerProcess();  // SIGKILL and reap
  WorkerProcess(const WorkerProcess&) = delete;
  WorkerProcess& operator=(const WorkerProcess&) = delete;

  pid_t pid() const { return pid_; }  // in the daemon's pid namespace (the worker sees itself as 1)
  const WorkerOptions& options() const { return options_; }  // what it was started with

  // Waits for Ready; returns the sandbox report.
  Result<std::string> WaitReady(Deadline deadline);
  // Hands the document over (a sealed memfd: the worker checks the seals again). Returns the page count.
  Result<int> Open(int document_fd, uint64_t document_bytes, const OpenLimits& limits);
  // Parses pages [first, last] with the text layer. `on_page` runs for each page as it finishes; the
  // files come back in a bundle (path -> bytes) with the number of pages parsed. Fails when no page
  // finishes within `page_allowance` (the worker is killed), at the job's deadline, on `cancel`.
  struct Parsed {
    int64_t num_pages = 0;
    Bundle files;
  };
  Result<Parsed> ParseText(uint32_t first, uint32_t last, const std::function<void(WorkerPage)>& on_page,
                           std::chrono::milliseconds page_allowance, const std::atomic<bool>& cancel);
  // Renders one page of the open document at `dpi`.
  Result<RenderedPage> Render(uint32_t page_index, double dpi, Deadline deadline);
  // Before a next document: `cpu_seconds` more of CPU from now (the worker's soft RLIMIT_CPU, set from
  // here with prlimit), within the hard limit the worker set at its start; kResourceExhausted when that
  // leaves less (the worker has served its share and is ended instead).
  Status GrantCpu(uint64_t cpu_seconds);
  // Documents handed to this worker so far (Open calls).
  uint32_t documents() const { return documents_; }

 private:
  WorkerProcess(pid_t pid, UniqueFd pidfd, UniqueFd socket, WorkerOptions options)
      : pid_(pid), pidfd_(std::move(pidfd)), socket_(std::move(socket)), options_(std::move(options)) {}
  // The next message, or why none came: the worker's end (reaped and described), the deadline (the
  // worker is killed), `cancel`.
  Result<Received> Next(Deadline deadline, const std::atomic<bool>* cancel = nullptr);
  Status Lost();                       // reaps and describes the worker's end
  Status Kill(Status why);             // kills, reaps, returns `why`
  Status ErrorFrom(const Message& m);  // a kError message as a Status

  pid_t pid_ = -1;
  UniqueFd pidfd_;
  UniqueFd socket_;
  WorkerOptions options_;
  bool reaped_ = false;
  uint32_t documents_ = 0;
  Deadline job_deadline_;
};

// The minerud-worker next to the running executable (/proc/self/exe), where `make install` puts both.
std::string DefaultWorkerPath();

}  // namespace mineru::worker
