#include "daemon/scheduler.h"

#include <cerrno>
#include <chrono>
#include <climits>

#include "common/clock.h"
#include "worker/worker_process.h"

namespace mineru::daemon {
namespace {

constexpr auto kIdleBeat = std::chrono::milliseconds(500);

// A full state directory refuses a submit for now, not for good: kBusy, which clients retry (mineructl
// exits 75). Nothing accepted before is touched.
Status RetryWhenFull(const Status& s) {
  if (s.sys_errno() != ENOSPC && s.sys_errno() != EDQUOT) return s;
  return Status(StatusCode::kBusy, s.message() + "; retry when space is freed", s.sys_errno());
}

}  // namespace

JobLimits JobLimits::FromConfig(const Config& config) {
  JobLimits l;
  l.max_jobs_queued = config.max_jobs_queued;
  l.max_jobs_per_user = config.max_jobs_per_user;
  l.max_document_bytes = config.max_document_bytes;
  l.max_bytes_per_user = config.max_bytes_per_user;
  l.max_pages_per_document = config.max_pages_per_document;
  l.max_seconds_per_document = config.max_seconds_per_document;
  l.memory_bytes_per_document = config.mupdf_memory_bytes;
  l.result_retention_ms = config.result_retention_ms;
  l.max_attempts = config.max_attempts;
  return l;
}

Scheduler::Scheduler(Options options) : options_(std::move(options)) {
  if (options_.workers < 1) options_.workers = 1;
  Beat();
}

Scheduler::~Scheduler() {
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
    draining_ = true;
  }
  Interrupt();
  work_cv_.notify_all();
  for (auto& t : workers_) t.join();
}

void Scheduler::Beat() { heartbeat_ns_.store(MonoNowNanos(), std::memory_order_relaxed); }

int64_t Scheduler::HeartbeatAgeMs() const {
  return (MonoNowNanos() - heartbeat_ns_.load(std::memory_order_relaxed)) / 1'000'000;
}

Status Scheduler::Recover() {
  MINERU_ASSIGN_OR_RETURN(std::vector<JobInfo> jobs, options_.spool->LoadJobs());
  const int64_t max_attempts = options_.limits.max_attempts;
  for (JobInfo& info : jobs) {
    if (IsFinal(info.state) || info.attempts < max_attempts) continue;
    // Every start of this job ended with minerud gone: running it again would likely kill it again.
    info.state = JobState::kFailed;
    info.error_code = StatusCode::kInternal;
    info.error = "minerud stopped while parsing this document " + std::to_string(info.attempts) +
                 (info.attempts == 1 ? " time" : " times");
    info.finished_ms = WallNowMillis();
    // A record that cannot be saved stays unfinished on disk, and the next start fails it again.
    options_.spool->SaveInfo(info).IgnoreError();
    options_.spool->DropPayload(info.id).IgnoreError();
  }
  std::lock_guard lock(mu_);
  for (JobInfo& info : jobs) {
    if (!IsFinal(info.state)) {
      // Interrupted by a crash or a stop: run it again from the start.
      info.state = JobState::kQueued;
      info.pages_done = 0;
      queue_.push_back(info.id);
      ++user_jobs_[info.uid];
      user_bytes_[info.uid] += info.document_bytes;
      ++active_jobs_;
    }
    JobId id = info.id;
    jobs_[id] = Entry{std::move(info), std::make_shared<CancelFlag>(false), false, nullptr};
  }
  return Status::Ok();
}

void Scheduler::Start() {
  for (int64_t i = 0; i < options_.workers; ++i) workers_.emplace_back([this] { WorkerLoop(); });
}

Result<JobInfo> Scheduler::Submit(uid_t uid, const std::string& name, std::span<const uint8_t> document,
                                  document::PageRange pages) {
  MINERU_ASSIGN_OR_RETURN(Reservation reservation, Reserve(uid, name, document.size(), pages));
  MINERU_ASSIGN_OR_RETURN(JobInfo info, Write(reservation, document));
  Commit(info);
  return info;
}

Result<Scheduler::Reservation> Scheduler::Reserve(uid_t uid, const std::string& name, uint64_t document_bytes,
                                                  document::PageRange pages) {
  MINERU_RETURN_IF_ERROR(ValidateJobName(name));
  if (pages.first > pages.last) return InvalidArgument(pages.ToString() + " is empty");
  if (document_bytes == 0) return InvalidArgument("the document is empty");
  std::lock_guard lock(mu_);
  const JobLimits& limits = options_.limits;
  if (draining_) return Unavailable("minerud is shutting down and accepts no new jobs");
  if (document_bytes > limits.max_document_bytes) {
    return ResourceExhausted("document is " + FormatByteSize(document_bytes) +
                             ", larger than max_document_size " + FormatByteSize(limits.max_document_bytes));
  }
  if (document_bytes > limits.max_bytes_per_user) {
    return ResourceExhausted("document is larger than max_bytes_per_user " +
                             FormatByteSize(limits.max_bytes_per_user));
  }
  if (active_jobs_ >= limits.max_jobs_queued) {
    ++counters_.rejected_busy_total;
    return Busy("the queue is full (" + std::to_string(limits.max_jobs_queued) + " jobs); retry later");
  }
  if (user_jobs_[uid] >= limits.max_jobs_per_user) {
    ++counters_.rejected_busy_total;
    return Busy("you have " + std::to_string(user_jobs_[uid]) +
                " jobs waiting or running (max_jobs_per_user); retry later");
  }
  if (user_bytes_[uid] + document_bytes > limits.max_bytes_per_user) {
    ++counters_.rejected_busy_total;
    return Busy("your queued documents would exceed max_bytes_per_user; retry later");
  }
  // Counted from now on, so concurrent submits cannot pass the limits while this one is written.
  ++active_jobs_;
  ++user_jobs_[uid];
  user_bytes_[uid] += document_bytes;
  return Reservation{uid, name, document_bytes, pages};
}

void Scheduler::Release(const Reservation& r) {
  std::lock_guard lock(mu_);
  --active_jobs_;
  --user_jobs_[r.uid];
  user_bytes_[r.uid] -= r.document_bytes;
}

Status Scheduler::StartWrite(const Reservation& r) {
  std::lock_guard lock(mu_);
  if (!draining_) return Status::Ok();
  // Not started yet: refuse it cleanly rather than hold the drain up.
  --active_jobs_;
  --user_jobs_[r.uid];
  user_bytes_[r.uid] -= r.document_bytes;
  return Unavailable("minerud is shutting down and accepts no new jobs");
}

Result<JobInfo> Scheduler::Write(const Reservation& r, std::span<const uint8_t> document) {
  if (document.size() != r.document_bytes) {
    Release(r);
    return InvalidArgument("the document is not the size that was reserved");
  }
  Result<JobId> id = options_.spool->AllocateId();
  if (!id.ok()) {
    Release(r);
    return RetryWhenFull(id.status());
  }
  JobInfo info;
  info.id = *id;
  info.uid = r.uid;
  info.name = r.name;
  info.state = JobState::kQueued;
  info.document_bytes = r.document_bytes;
  info.pages = r.pages;
  info.submitted_ms = WallNowMillis();
  Status s = options_.spool->Accept(info, document);
  if (!s.ok()) {
    Release(r);
    return RetryWhenFull(s);
  }
  return info;
}

void Scheduler::Commit(const JobInfo& info, UniqueFd document) {
  {
    std::lock_guard lock(mu_);
    jobs_[info.id] = Entry{info, std::make_shared<CancelFlag>(false), false,
                           document ? std::make_shared<UniqueFd>(std::move(document)) : nullptr};
    queue_.push_back(info.id);
    ++counters_.accepted_total;
  }
  work_cv_.notify_one();
}

std::optional<JobInfo> Scheduler::Find(JobId id) const {
  std::lock_guard lock(mu_);
  auto it = jobs_.find(id);
  if (it == jobs_.end()) return std::nullopt;
  return it->second.info;
}

std::vector<JobInfo> Scheduler::List(std::optional<uid_t> uid) const {
  std::lock_guard lock(mu_);
  std::vector<JobInfo> out;
  for (const auto& [id, e] : jobs_) {
    if (!uid || e.info.uid == *uid) out.push_back(e.info);
  }
  return out;
}

Status Scheduler::Cancel(JobId id) {
  JobInfo cancelled;
  {
    std::lock_guard lock(mu_);
    auto it = jobs_.find(id);
    if (it == jobs_.end()) return NotFound("no job " + std::to_string(id));
    Entry& e = it->second;
    if (IsFinal(e.info.state)) {
      return FailedPrecondition(
          "job " + std::to_string(id) + " has already " +
          std::string(e.info.state == JobState::kDone ? "finished" : JobStateName(e.info.state)));
    }
    e.cancel_requested = true;
    e.cancel->store(true);
    if (e.info.state == JobState::kRunning) {
      options_.backend->Cancel(id);  // its pages leave the model now; the worker finishes the job
      return Status::Ok();
    }
    // Queued: finish it here.
    std::erase(queue_, id);
    e.info.state = JobState::kCancelled;
    e.info.error_code = StatusCode::kCancelled;
    e.info.error = "cancelled";
    e.info.finished_ms = WallNowMillis();
    --active_jobs_;
    --user_jobs_[e.info.uid];
    user_bytes_[e.info.uid] -= e.info.document_bytes;
    cancelled = e.info;
    PushEventLocked(JobEvent::Kind::kFinished, cancelled);
  }
  options_.spool->DropPayload(id).IgnoreError();
  Status s = options_.spool->SaveInfo(cancelled);
  if (options_.wake) options_.wake();
  return s;
}

Result<std::vector<OutputFile>> Scheduler::Results(JobId id, bool consume) {
  JobInfo info;
  {
    std::lock_guard lock(mu_);
    auto it = jobs_.find(id);
    if (it == jobs_.end()) return NotFound("no job " + std::to_string(id));
    info = it->second.info;
  }
  if (info.state == JobState::kFailed || info.state == JobState::kCancelled) {
    return Status(
        info.error_code == StatusCode::kOk ? StatusCode::kInternal : info.error_code,
        "job " + std::to_string(id) + " " + std::string(JobStateName(info.state)) + ": " + info.error);
  }
  if (info.state != JobState::kDone) {
    return FailedPrecondition("job " + std::to_string(id) + " is " + std::string(JobStateName(info.state)));
  }
  if (info.results_fetched)
    return NotFound("the results of job " + std::to_string(id) + " were already fetched");
  MINERU_ASSIGN_OR_RETURN(std::vector<OutputFile> files, options_.spool->LoadResults(id));
  if (consume) {
    {
      std::lock_guard lock(mu_);
      auto it = jobs_.find(id);
      if (it != jobs_.end()) {
        it->second.info.results_fetched = true;
        info = it->second.info;
      }
    }
    MINERU_RETURN_IF_ERROR(options_.spool->SaveInfo(info));
    options_.spool->DropPayload(id).IgnoreError();
  }
  return files;
}

int64_t Scheduler::ExpireFinished(int64_t now_wall_ms) {
  std::vector<JobId> expired;
  {
    std::lock_guard lock(mu_);
    for (auto it = jobs_.begin(); it != jobs_.end();) {
      const JobInfo& info = it->second.info;
      if (IsFinal(info.state) && info.finished_ms + options_.limits.result_retention_ms <= now_wall_ms) {
        expired.push_back(it->first);
        it = jobs_.erase(it);
      } else {
        ++it;
      }
    }
  }
  for (JobId id : expired) options_.spool->Remove(id).IgnoreError();
  return static_cast<int64_t>(expired.size());
}

std::vector<JobEvent> Scheduler::TakeEvents() {
  std::lock_guard lock(mu_);
  return std::exchange(events_, {});
}

void Scheduler::PushEventLocked(JobEvent::Kind kind, const JobInfo& info,
                                std::shared_ptr<const PageOutput> page) {
  // Progress events of one job without a page coalesce: only the newest matters. Pages never do.
  if (kind == JobEvent::Kind::kProgress && !page && !events_.empty() && events_.back().kind == kind &&
      events_.back().info.id == info.id && !events_.back().page) {
    events_.back().info = info;
    return;
  }
  events_.push_back(JobEvent{kind, info, std::move(page)});
}

SchedulerStats Scheduler::Stats() const {
  std::lock_guard lock(mu_);
  SchedulerStats s = counters_;
  s.workers = options_.workers;
  for (const auto& [id, e] : jobs_) {
    switch (e.info.state) {
      case JobState::kQueued:
        ++s.queued;
        break;
      case JobState::kRunning:
        ++s.running;
        break;
      case JobState::kDone:
        ++s.done;
        break;
      case JobState::kFailed:
        ++s.failed;
        break;
      case JobState::kCancelled:
        ++s.cancelled;
        break;
    }
  }
  return s;
}

void Scheduler::SetLimits(const JobLimits& limits) {
  std::lock_guard lock(mu_);
  options_.limits = limits;
}

void Scheduler::BeginDrain() {
  std::lock_guard lock(mu_);
  draining_ = true;
}

void Scheduler::Interrupt() {
  std::lock_guard lock(mu_);
  draining_ = true;
  for (auto& [id, e] : jobs_) {
    if (e.info.state == JobState::kRunning) {
      e.cancel->store(true);
      options_.backend->Cancel(id);
    }
  }
}

bool Scheduler::Idle() const {
  std::lock_guard lock(mu_);
  return running_ == 0;
}

void Scheduler::WorkerLoop() {
  for (;;) {
    JobId id = 0;
    uid_t uid = 0;
    {
      std::unique_lock lock(mu_);
      while (!stopping_ && (draining_ || queue_.empty())) {
        lock.unlock();
        Beat();
        lock.lock();
        work_cv_.wait_for(lock, kIdleBeat);
      }
      if (stopping_) return;
      id = TakeNextLocked();
      uid = jobs_.at(id).info.uid;
      ++running_;
      // Running from the moment it leaves the queue: a Cancel in between leaves the job to this worker
      // (which sees the flag) instead of finishing it a second time.
      jobs_.at(id).info.state = JobState::kRunning;
    }
    Beat();
    RunJob(id);
    {
      std::lock_guard lock(mu_);
      --running_;
      if (--user_running_[uid] == 0) user_running_.erase(uid);
    }
    Beat();
  }
}

// The queued job of the user with the fewest running jobs (the oldest on a tie, and the oldest of that
// user's): one user's long queue never keeps another's first job waiting for a free worker.
JobId Scheduler::TakeNextLocked() {
  auto best = queue_.begin();
  int64_t best_running = INT64_MAX;
  for (auto it = queue_.begin(); it != queue_.end(); ++it) {
    auto r = user_running_.find(jobs_.at(*it).info.uid);
    const int64_t running = r == user_running_.end() ? 0 : r->second;
    if (running < best_running) {
      best = it;
      best_running = running;
      if (running == 0) break;
    }
  }
  const JobId id = *best;
  queue_.erase(best);
  ++user_running_[jobs_.at(id).info.uid];
  return id;
}

void Scheduler::RunJob(JobId id) {
  JobInfo info;
  std::shared_ptr<CancelFlag> cancel;
  std::shared_ptr<UniqueFd> memfd;
  JobLimits limits;
  {
    std::lock_guard lock(mu_);
    Entry& e = jobs_.at(id);
    memfd = e.document;
    e.info.state = JobState::kRunning;
    e.info.pages_done = 0;
    ++e.info.attempts;
    info = e.info;
    cancel = e.cancel;
    limits = options_.limits;
    PushEventLocked(JobEvent::Kind::kProgress, info);
  }
  if (options_.wake) options_.wake();
  // Recorded before any work, so a crash mid-job is visible as a retry (attempts > 1).
  Status saved = options_.spool->SaveInfo(info);

  Result<BackendOutput> output = saved;
  Result<MappedRegion> document = saved.ok() ? options_.spool->MapDocument(id) : Result<MappedRegion>(saved);
  if (!saved.ok()) {
    output = saved;
  } else if (!document.ok()) {
    output = document.status();
  } else {
    BackendInput input;
    input.document = document->bytes();
    input.document_fd = memfd ? memfd->get() : -1;
    input.name = info.name;
    input.pages = info.pages;
    input.max_pages = limits.max_pages_per_document;
    input.deadline = Deadline::InMillis(limits.max_seconds_per_document * 1000);
    input.memory_limit_bytes = limits.memory_bytes_per_document;
    input.user = static_cast<uint32_t>(info.uid);
    input.job_id = id;
    std::shared_ptr<Watchdog::Party> watch;
    if (options_.watchdog) {
      watch = options_.watchdog->Join("worker on job " + std::to_string(id));
      watch->Expect(options_.open_allowance + std::chrono::seconds(input.document.size() >> 20));
      input.watch = watch.get();
      input.page_allowance = options_.page_allowance;
    }
    int64_t announced = 0;  // pages already announced: a run in a fresh worker repeats none of them
    auto progress = [&](int64_t done, int64_t total, std::shared_ptr<const PageOutput> page) {
      Beat();
      if (watch) watch->Expect(options_.page_allowance + std::chrono::milliseconds(50) * total);
      if (done <= announced) return;
      announced = done;
      {
        std::lock_guard lock(mu_);
        Entry& e = jobs_.at(id);
        e.info.pages_done = done;
        e.info.pages_total = total;
        ++counters_.pages_total;
        PushEventLocked(JobEvent::Kind::kProgress, e.info, std::move(page));
      }
      // Never under mu_: the wake-up may take the caller's own locks.
      if (options_.wake) options_.wake();
    };
    for (;;) {
      output = options_.backend->Parse(input, progress, *cancel);
      if (output.ok() || !worker::IsWorkerLost(output.status()) || cancel->load()) break;
      // The document's worker died without an answer (a crash in the parser); minerud and the other jobs
      // are untouched. A fresh worker tries again, up to max_attempts starts in all.
      if (info.attempts >= limits.max_attempts) {
        output = Status(output.status().code(), output.status().message() + "; failed after " +
                                                    std::to_string(info.attempts) + " attempts");
        break;
      }
      {
        std::lock_guard lock(mu_);
        info = jobs_.at(id).info;
        ++info.attempts;
        jobs_.at(id).info.attempts = info.attempts;
      }
      options_.spool->SaveInfo(info).IgnoreError();
      if (watch) watch->Expect(options_.open_allowance + std::chrono::seconds(input.document.size() >> 20));
    }
  }

  bool user_cancelled = false;
  {
    std::lock_guard lock(mu_);
    user_cancelled = jobs_.at(id).cancel_requested;
    info = jobs_.at(id).info;
  }
  if (output.ok()) {
    for (const OutputFile& f : output->files) {
      Status valid = ValidateOutputPath(f.path);
      if (!valid.ok()) {
        output = Internal("backend produced a bad output path: " + valid.message());
        break;
      }
    }
  }
  if (output.ok()) {
    Status s = options_.spool->SaveResults(id, output->files);
    if (s.ok()) {
      info.state = JobState::kDone;
      info.pages_total = output->num_pages;
      info.pages_done = output->num_pages;
    } else {
      output = s;
    }
  }
  if (!output.ok()) {
    StatusCode code = output.status().code();
    // Once the flag is set, any failure is the stop's doing (MuPDF may report a cancelled allocation
    // as a memory error): the job is cancelled, or interrupted and queued again.
    if (cancel->load()) code = StatusCode::kCancelled;
    if (code == StatusCode::kCancelled && !user_cancelled) {
      // Interrupted by a stop: back to the queue in the spool; it runs again at the next start. A
      // clean stop is not the document's doing, so the attempt is given back.
      info.state = JobState::kQueued;
      info.pages_done = 0;
      if (info.attempts > 0) --info.attempts;
    } else {
      info.state = code == StatusCode::kCancelled ? JobState::kCancelled : JobState::kFailed;
      info.error_code = code;
      info.error = code == StatusCode::kCancelled ? "cancelled" : output.status().ToString();
    }
  }
  Finish(id, std::move(info));
}

void Scheduler::Finish(JobId id, JobInfo info) {
  if (IsFinal(info.state)) {
    info.finished_ms = WallNowMillis();
    if (info.state != JobState::kDone) options_.spool->DropPayload(id).IgnoreError();
  }
  // A record that cannot be saved stays as it was on disk (queued or running): the job runs again after
  // a restart, which is the at-least-once promise.
  options_.spool->SaveInfo(info).IgnoreError();
  {
    std::lock_guard lock(mu_);
    Entry& e = jobs_.at(id);
    e.info = info;
    if (IsFinal(info.state)) {
      e.document.reset();
      --active_jobs_;
      --user_jobs_[info.uid];
      user_bytes_[info.uid] -= info.document_bytes;
      PushEventLocked(JobEvent::Kind::kFinished, info);
    } else {
      PushEventLocked(JobEvent::Kind::kProgress, info);
    }
  }
  if (options_.wake) options_.wake();
}

}  // namespace mineru::daemon
