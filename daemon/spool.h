// Spool: the durable record of accepted jobs in the state directory.
//
//   STATE/next_id            ids reserved so far (ids are never reused, across restarts too)
//   STATE/jobs/ID/job.json    the JobInfo record
//   STATE/jobs/ID/document    the document as submitted
//   STATE/jobs/ID/results     the output files of a finished job (one file, see below)
//   STATE/jobs/.incoming-ID/  a job being written; removed at open
//
// Every file is written to a temporary name, fsync'd, renamed over the final name, and the folder is
// fsync'd: after a crash a job is either fully spooled or absent, and a record is either the old or the
// new one. A write that fails (a full disk) removes what it wrote and returns kResourceExhausted;
// nothing already accepted is touched.
//
// Thread-safety: AllocateId() may be called from any thread; the per-job calls may run concurrently
// for different jobs, never for the same job.
#pragma once

#include <cstdint>
#include <mutex>
#include <span>
#include <string>
#include <vector>

#include "common/mapped_region.h"
#include "common/result.h"
#include "daemon/job.h"
#include "daemon/pipeline_types.h"

namespace mineru::daemon {

class Spool {
 public:
  // Creates the folder (mode 0700) when missing and removes half-written jobs.
  static Result<Spool> Open(const std::string& dir);

  Spool(Spool&& other) noexcept;
  Spool& operator=(Spool&&) = delete;

  const std::string& dir() const { return dir_; }

  // Every job record in the spool, by id. A record that cannot be read is returned as a failed job
  // with kDataLoss (its folder is kept for inspection).
  Result<std::vector<JobInfo>> LoadJobs() const;

  // A new id, larger than every id handed out before by any daemon on this folder.
  Result<JobId> AllocateId();

  // Spools a new job: its record and its document. Durable when it returns OK.
  Status Accept(const JobInfo& info, std::span<const uint8_t> document);
  // Replaces a job's record.
  Status SaveInfo(const JobInfo& info);
  Result<MappedRegion> MapDocument(JobId id) const;

  // Stores a finished job's output files (durably) before its record says kDone.
  Status SaveResults(JobId id, const std::vector<OutputFile>& files);
  Result<std::vector<OutputFile>> LoadResults(JobId id) const;
  bool HasResults(JobId id) const;
  // Deletes the document and results of a job, keeping its record.
  Status DropPayload(JobId id);
  // Deletes everything of a job.
  Status Remove(JobId id);

  // Bytes free in the state directory's file system.
  Result<uint64_t> FreeBytes() const;

 private:
  explicit Spool(std::string dir) : dir_(std::move(dir)) {}
  std::string JobDir(JobId id) const;

  std::string dir_;
  std::mutex id_mu_;
  JobId next_id_ = 1;         // Guarded by id_mu_.
  JobId reserved_until_ = 1;  // Guarded by id_mu_. Ids below this are recorded in next_id.
};

// Writes `data` to `path` durably: temp file, fsync, rename, fsync of the folder.
Status WriteFileDurably(const std::string& path, std::span<const uint8_t> data);
Status WriteFileDurably(const std::string& path, std::string_view data);
Result<std::string> ReadSmallFile(const std::string& path, uint64_t max_bytes);

}  // namespace mineru::daemon
