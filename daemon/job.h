// A job: one submitted document, owned by the uid that submitted it. JobInfo is the record the
// spool keeps on disk and the scheduler keeps in memory; it holds no document bytes.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <string>
#include <string_view>

#include "common/result.h"
#include "common/status.h"
#include "document/page_range.h"

namespace mineru::daemon {

// Job ids start at 1 and are never reused, across restarts too (the spool persists the next id).
using JobId = uint64_t;

enum class JobState {
  kQueued,     // accepted and spooled, waiting for a worker
  kRunning,    // a worker is parsing it
  kDone,       // results are in the spool
  kFailed,     // the backend reported an error (kept in JobInfo::error)
  kCancelled,  // cancelled by its owner or an admin
};

std::string_view JobStateName(JobState state);
Result<JobState> ParseJobState(std::string_view name);
// Done, failed or cancelled: the job will not run again.
inline bool IsFinal(JobState state) {
  return state == JobState::kDone || state == JobState::kFailed || state == JobState::kCancelled;
}

struct JobInfo {
  JobId id = 0;
  uid_t uid = 0;
  std::string name;  // the document's base name as the client gave it (validated)
  JobState state = JobState::kQueued;
  uint64_t document_bytes = 0;
  document::PageRange pages;  // the pages to parse (the whole document by default)
  int64_t pages_done = 0;
  int64_t pages_total = 0;   // 0 until the backend knows
  int64_t submitted_ms = 0;  // wall clock, for people
  int64_t finished_ms = 0;   // wall clock; 0 while not final
  // How many times a worker started it, less the starts a clean stop (SIGTERM) cut short: more than
  // 1 after minerud died while it ran (a crash, kill -9, the watchdog).
  int64_t attempts = 0;
  StatusCode error_code = StatusCode::kOk;
  std::string error;             // why it failed; empty otherwise
  bool results_fetched = false;  // a client took the results; they are deleted from the spool
};

// Checks a document name a client sent: 1-255 bytes, no '/', no NUL, no control bytes, not "." or
// "..". The client derives output file names from it, so it must be a plain file name.
Status ValidateJobName(std::string_view name);

// JSON form of JobInfo, used by the spool and by status answers.
std::string JobInfoToJson(const JobInfo& info);
Result<JobInfo> JobInfoFromJson(std::string_view json);

}  // namespace mineru::daemon
