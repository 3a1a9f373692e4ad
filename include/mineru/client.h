// libmineru-client, the C++ API: connect to minerud, submit documents (copied, or zero-copy from a
// buffer the app fills in place), follow progress, read results from the session's result ring.
// No libtorch, no MuPDF. A Client is used by one thread at a time.
//
//   auto client = mineru::client::Client::Connect({});
//   auto job = client->Submit(pdf_bytes, {.name = "paper"});
//   auto done = client->Wait(*job, [](const mineru::client::Progress& p) { ... });
//   auto files = client->Fetch(*job);   // "paper.md", "paper_content_list.json", "images/…"
//
// Errors are mineru::Status codes: kUnavailable (daemon not running), kBusy (queue full, retry),
// kPermissionDenied, kInvalidArgument (bad input), kNotFound (no such job, or not yours), ...
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "common/result.h"

// libmineru-client.so is built with hidden visibility; what this header declares is its API.
#if defined(__GNUC__)
#pragma GCC visibility push(default)
#endif

namespace mineru::client {

struct ClientOptions {
  // Empty: $MINERU_SOCKET, else `socket` in $XDG_CONFIG_HOME/minerud/client.conf, else the user's own
  // daemon ($XDG_RUNTIME_DIR/minerud.sock) if it answers, else the system daemon
  // (/run/minerud/minerud.sock). A failed connect names every place tried.
  std::string socket_path;
  std::string client_name = "libmineru-client";
  uint64_t ring_bytes = 0;  // result ring size; 0: the daemon's default
  int64_t connect_timeout_ms = 5000;
  // Receive each finished page (PageResult) through the result ring while waiting for a job this
  // connection follows, before the job's files are fetched.
  bool page_results = false;
};

struct SubmitOptions {
  std::string name;              // base name of the outputs ("paper" -> paper.md); required
  bool detach = false;           // false: this connection receives the job's events
  std::string backend = "auto";  // "auto", "text" or "vlm"
  // The pages to parse, 0-based and inclusive; last_page past the end means "to the end".
  uint32_t first_page = 0;
  uint32_t last_page = UINT32_MAX;
};

enum class JobState { kQueued, kRunning, kDone, kFailed, kCancelled };
const char* JobStateName(JobState state);

struct JobStatus {
  uint64_t id = 0;
  uint32_t owner_uid = 0;
  JobState state = JobState::kQueued;
  std::string name;
  std::string backend;
  uint32_t pages_done = 0;
  uint32_t pages_total = 0;
  int64_t submitted_unix_ms = 0;
  int64_t finished_unix_ms = 0;
  uint64_t document_bytes = 0;
  StatusCode error_code = StatusCode::kOk;
  std::string error;
};

struct Progress {
  uint64_t job_id = 0;
  uint32_t pages_done = 0;
  uint32_t pages_total = 0;
};

// One finished page, streamed while its job runs (ClientOptions::page_results).
struct PageResult {
  uint64_t job_id = 0;
  uint32_t page_index = 0;   // in the document, 0-based
  std::string markdown;      // the page's Markdown; image links point at images/ of the final files
  std::string content_list;  // JSON array: the page's content-list items
  std::string model_output;  // the model's raw text for the page (empty for the text layer)
};

// One output file; `path` is relative ("paper.md", "images/<hash>.jpg") and already checked to stay
// inside the output folder.
struct ResultFile {
  std::string path;
  std::vector<uint8_t> data;
};

struct DaemonStats {
  std::map<std::string, double> counters;
  struct Tier {
    std::string tier;
    uint64_t budget_bytes = 0, used_bytes = 0, peak_bytes = 0;
    uint32_t units_resident = 0;
  };
  std::vector<Tier> tiers;
};

// What a daemon runs (Client::Info).
struct DaemonInfo {
  std::string daemon_version;
  uint32_t protocol_version = 0;
  uint32_t pid = 0;
  int64_t started_unix_ms = 0;
  std::string backend;             // "text-layer", "vlm"
  std::string model_dir;           // empty without a model
  std::string model;               // one line about the loaded model; empty without one
  uint64_t vram_budget_bytes = 0;  // in force now; 0 without a model
  uint64_t pinned_budget_bytes = 0;
  uint32_t workers = 0;
  uint32_t max_batch = 0;
  uint64_t max_document_bytes = 0;
  uint64_t max_pages_per_document = 0;
  uint32_t max_jobs_queued = 0;
  uint32_t max_jobs_per_user = 0;
};

// One job event, for an app that runs its own event loop (Client::NextEvent).
struct JobEvent {
  enum class Kind { kProgress, kPage, kDone, kFailed };
  Kind kind = Kind::kProgress;
  uint64_t job_id = 0;
  uint32_t pages_done = 0;                  // kProgress
  uint32_t pages_total = 0;                 // kProgress, kDone
  PageResult page;                          // kPage (ClientOptions::page_results, a job submitted here)
  StatusCode error_code = StatusCode::kOk;  // kFailed: kCancelled for a cancelled job
  std::string error;                        // kFailed
};

// A document buffer for the zero-copy path: the app writes the document into data(), then submits the
// buffer; the daemon maps the same pages. Move-only.
class DocumentBuffer {
 public:
  static Result<DocumentBuffer> Create(uint64_t size_bytes);
  DocumentBuffer(DocumentBuffer&&) noexcept;
  DocumentBuffer& operator=(DocumentBuffer&&) noexcept;
  ~DocumentBuffer();
  std::span<uint8_t> data();
  uint64_t size() const;

  struct Impl;

 private:
  explicit DocumentBuffer(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
  friend class Client;
};

class Client {
 public:
  static Result<Client> Connect(const ClientOptions& options);
  Client(Client&&) noexcept;
  Client& operator=(Client&&) noexcept;
  ~Client();

  // The first place Connect({}) tries (see ClientOptions::socket_path).
  static std::string DefaultSocketPath();

  const std::string& socket_path() const;  // where this client connected
  uint32_t peer_uid() const;               // who the daemon thinks we are
  const std::string& daemon_version() const;
  uint64_t max_document_bytes() const;  // the daemon's cap

  // Copies `document` into a sealed memfd and submits it.
  Result<uint64_t> Submit(std::span<const uint8_t> document, const SubmitOptions& options);
  // Submits a filled buffer without copying it (the buffer is consumed).
  Result<uint64_t> Submit(DocumentBuffer buffer, const SubmitOptions& options);

  // Waits until the job is done, failed or cancelled; `on_progress` (optional) sees every page.
  // With ClientOptions::page_results, `on_page` (optional) receives each finished page of a job this
  // connection submitted, in order, before Wait returns.
  // Returns the final status (a failed job is a successful Wait with state kFailed).
  Result<JobStatus> Wait(uint64_t job_id, const std::function<void(const Progress&)>& on_progress = {},
                         int64_t timeout_ms = -1, const std::function<void(const PageResult&)>& on_page = {});
  Result<JobStatus> GetStatus(uint64_t job_id);
  Result<std::vector<JobStatus>> List(bool all_users = false);
  Status Cancel(uint64_t job_id);
  Result<std::vector<uint64_t>> CancelAll();
  // Reads a finished job's output files from the result ring. Fetching every output deletes them
  // from the daemon's spool.
  Result<std::vector<ResultFile>> Fetch(uint64_t job_id);
  Result<DaemonStats> Stats();
  // Sets the daemon's VRAM budget until its next reload or restart (root and the admin group);
  // returns the budget in force.
  Result<uint64_t> SetVramBudget(uint64_t bytes);
  // The daemon's version, backend, model and budgets (kUnimplemented from a daemon too old to say).
  Result<DaemonInfo> Info();
  // Round trip time of an empty Ping, in microseconds.
  Result<double> Ping();

  // For an app's own event loop: the connection's socket. When it polls readable, call
  // NextEvent(0) until it returns no event (events that arrived during other calls are kept and
  // handed out first, so drain before polling again). Do not read, write or close it.
  int event_fd() const;
  // Streams the events of a job this connection did not submit (or submitted detached) from now on
  // (kUnimplemented from a daemon too old to).
  Status Watch(uint64_t job_id);
  // The next event of a job this connection submitted or watches; no event (nullopt) after
  // timeout_ms (0: do not wait; < 0: no limit). A job whose kDone/kFailed event was taken here ends
  // a later Wait on its status alone.
  Result<std::optional<JobEvent>> NextEvent(int64_t timeout_ms);

  struct Impl;

 private:
  explicit Client(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace mineru::client

#if defined(__GNUC__)
#pragma GCC visibility pop
#endif
