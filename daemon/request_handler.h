// RequestHandler: the daemon's answers to client messages, with access checks.
//
// Every request names a job only by id; a job of another user is answered exactly like an id that
// never existed ("no job N"), so nobody learns which ids are in use. Watch subscribes a session to
// a job's events under the same rule. Submit takes the sealed memfd
// that came with it, checks it (shm::SealedDocument) and reserves the job's place; the spool thread
// (SpoolWriter) makes it durable and OnSpooled() queues it and answers. Fetch writes the
// job's output files as records into the session's result ring, then sends FetchReply.
//
// Loop thread only.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "common/unique_fd.h"
#include "daemon/access_policy.h"
#include "daemon/job.h"
#include "daemon/scheduler.h"
#include "daemon/session.h"
#include "daemon/spool_writer.h"
#include "shm/protocol.h"

namespace mineru::daemon {

class RequestHandler {
 public:
  struct Options {
    Scheduler* scheduler = nullptr;
    SpoolWriter* spool_writer = nullptr;  // makes submitted documents durable off the loop
    std::string backend_name;
    Backend* backend = nullptr;  // its memory tiers and counters join StatsReply; BudgetRequest goes to it
    uint64_t ring_bytes = 4ull << 20;  // default result ring size per session
    // Counters for StatsRequest beyond the scheduler's (sessions, uptime, memory ...).
    std::function<std::map<std::string, double>()> extra_counters;
    // What InfoRequest answers (version, backend, model, budgets); request_id is filled in here.
    std::function<shm::InfoReply()> info;
  };

  explicit RequestHandler(Options options) : options_(std::move(options)) {}

  void SetAccessPolicy(AccessPolicy policy) { access_ = policy; }
  void SetMaxDocumentBytes(uint64_t bytes) { max_document_bytes_ = bytes; }

  void Handle(Session& session, shm::Message message, std::vector<UniqueFd> fds);
  // A submit the spool thread finished: commits the job and answers with JobAccepted or the error.
  // `session` is null when the submitter has gone.
  void OnSpooled(Session* session, SpoolWriter::Completion& completion);
  // Forwards a scheduler event to a session that watches the job.
  void Deliver(Session& session, const JobEvent& event);

  // The wire form of a job record.
  static shm::JobInfo ToWire(const JobInfo& info, const std::string& backend);

 private:
  // Writes a finished page into the session's result ring and then announces it (PageResultNotice).
  void StreamPage(Session& session, uint64_t job_id, const PageOutput& page);
  void OnHello(Session& s, const shm::Hello& m);
  void OnSubmit(Session& s, const shm::SubmitRequest& m, std::vector<UniqueFd> fds);
  void OnStatus(Session& s, const shm::StatusRequest& m);
  void OnWatch(Session& s, const shm::WatchRequest& m);
  void OnBudget(Session& s, const shm::BudgetRequest& m);
  void OnList(Session& s, const shm::ListRequest& m);
  void OnCancel(Session& s, const shm::CancelRequest& m);
  void OnFetch(Session& s, const shm::FetchRequest& m);
  void OnStats(Session& s, const shm::StatsRequest& m);
  void OnInfo(Session& s, const shm::InfoRequest& m);
  // The job if it exists and `uid` may see it; otherwise kNotFound.
  Result<JobInfo> Visible(uid_t uid, uint64_t job_id) const;
  void Error(Session& s, uint64_t request_id, const Status& status);

  Options options_;
  AccessPolicy access_;
  uint64_t max_document_bytes_ = 512ull << 20;
  uint64_t next_session_number_ = 1;
};

}  // namespace mineru::daemon
