// libmineru-client: the C++ API over shm::Channel (control frames) and shm::RingConsumer (results).
#include "mineru/client.h"

#include <unistd.h>

#include <cerrno>
#include <cstdlib>

#include "client/client_impl.h"
#include "client/socket_discovery.h"
#include "common/config.h"
#include "common/version.h"
#include "shm/document_buffer.h"

namespace mineru::client {
namespace {

constexpr int64_t kRingIdleWaitMs = 1;

// A file name the client may write under its output folder (no '/', no "..", no control bytes).
bool SafeFileName(std::string_view name) {
  if (name.empty() || name == "." || name == ".." || name.size() > 255) return false;
  for (char c : name) {
    if (c == '/' || c == '\\' || static_cast<unsigned char>(c) < 0x20) return false;
  }
  return true;
}

}  // namespace

const char* JobStateName(JobState state) {
  switch (state) {
    case JobState::kQueued:
      return "queued";
    case JobState::kRunning:
      return "running";
    case JobState::kDone:
      return "done";
    case JobState::kFailed:
      return "failed";
    case JobState::kCancelled:
      return "cancelled";
  }
  return "unknown";
}

// ---------------------------------------------------------------------------------------------------

struct DocumentBuffer::Impl {
  shm::DocumentBuffer buffer;
};

DocumentBuffer::DocumentBuffer(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
DocumentBuffer::DocumentBuffer(DocumentBuffer&&) noexcept = default;
DocumentBuffer& DocumentBuffer::operator=(DocumentBuffer&&) noexcept = default;
DocumentBuffer::~DocumentBuffer() = default;

Result<DocumentBuffer> DocumentBuffer::Create(uint64_t size_bytes) {
  MINERU_ASSIGN_OR_RETURN(shm::DocumentBuffer buffer, shm::DocumentBuffer::Create(size_bytes));
  return DocumentBuffer(std::make_unique<Impl>(Impl{std::move(buffer)}));
}

std::span<uint8_t> DocumentBuffer::data() { return impl_ ? impl_->buffer.data() : std::span<uint8_t>(); }
uint64_t DocumentBuffer::size() const { return impl_ ? impl_->buffer.size() : 0; }

// ---------------------------------------------------------------------------------------------------

Client::Client(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Client::Client(Client&&) noexcept = default;
Client& Client::operator=(Client&&) noexcept = default;
Client::~Client() {
  if (impl_ && !impl_->broken)
    impl_->channel.Send(shm::Goodbye{"bye"}, {}, Deadline::InMillis(100)).IgnoreError();
}

std::string Client::DefaultSocketPath() {
  auto candidates = SocketCandidates("");
  if (!candidates.ok() || candidates->empty()) return mineru::DefaultSocketPath();
  return candidates->front().path;
}

Result<Client> Client::Connect(const ClientOptions& options) {
  MINERU_ASSIGN_OR_RETURN(std::vector<SocketCandidate> candidates, SocketCandidates(options.socket_path));
  std::optional<shm::Channel> connected;
  std::string path;
  std::vector<std::string> tried;
  bool denied = false;
  for (const SocketCandidate& candidate : candidates) {
    auto channel = shm::Channel::Connect(candidate.path, Deadline::InMillis(options.connect_timeout_ms));
    if (channel.ok()) {
      connected.emplace(std::move(*channel));
      path = candidate.path;
      break;
    }
    denied = denied || channel.status().sys_errno() == EACCES || channel.status().sys_errno() == EPERM;
    tried.push_back(DescribeConnectFailure(candidate, channel.status()));
    if (candidates.size() == 1) {
      return Status(denied ? StatusCode::kPermissionDenied : channel.status().code(),
                    "cannot connect to minerud at " + tried.back(), channel.status().sys_errno());
    }
  }
  if (!connected) {
    std::string message = "cannot reach minerud; tried ";
    for (size_t i = 0; i < tried.size(); ++i) message += (i > 0 ? "; " : "") + tried[i];
    return Status(denied ? StatusCode::kPermissionDenied : StatusCode::kUnavailable, message);
  }
  auto impl = std::make_unique<Impl>(std::move(*connected));
  impl->socket_path = path;
  shm::Hello hello;
  hello.client_name = options.client_name;
  hello.capabilities = shm::kCapResultRing | shm::kCapZeroCopySubmit;
  if (options.page_results) hello.capabilities |= shm::kCapPageResults;
  hello.ring_bytes_wanted = options.ring_bytes;
  MINERU_RETURN_IF_ERROR(impl->Send(hello));
  Deadline deadline = Deadline::InMillis(std::max<int64_t>(options.connect_timeout_ms, 1000));
  auto got = impl->channel.Receive(deadline);
  if (!got.ok()) return got.status().WithContext("no answer to Hello");
  if (auto* e = std::get_if<shm::ErrorReply>(&got->message)) return FromErrorReply(*e);
  auto* reply = std::get_if<shm::HelloReply>(&got->message);
  if (reply == nullptr) return DataLoss("minerud did not answer Hello with HelloReply");
  impl->hello = *reply;
  if (reply->capabilities & shm::kCapResultRing) {
    if (got->fds.size() != shm::kRingFdCount) return DataLoss("HelloReply came without the ring's fds");
    shm::RingFds fds{std::move(got->fds[0]), std::move(got->fds[1]), std::move(got->fds[2]),
                     std::move(got->fds[3])};
    MINERU_ASSIGN_OR_RETURN(shm::RingConsumer ring, shm::RingConsumer::Attach(std::move(fds)));
    impl->ring.emplace(std::move(ring));
  }
  return Client(std::move(impl));
}

uint32_t Client::peer_uid() const { return impl_->hello.peer_uid; }
const std::string& Client::socket_path() const { return impl_->socket_path; }
const std::string& Client::daemon_version() const { return impl_->hello.daemon_version; }
uint64_t Client::max_document_bytes() const { return impl_->hello.max_document_bytes; }

Result<uint64_t> Client::Submit(std::span<const uint8_t> document, const SubmitOptions& options) {
  if (document.empty()) return InvalidArgument("the document is empty");
  MINERU_ASSIGN_OR_RETURN(shm::DocumentBuffer buffer, shm::DocumentBuffer::CopyOf(document));
  uint64_t size = buffer.size();
  MINERU_ASSIGN_OR_RETURN(UniqueFd fd, buffer.Seal());
  return impl_->SubmitFd(fd.get(), size, options);
}

Result<uint64_t> Client::Submit(DocumentBuffer buffer, const SubmitOptions& options) {
  if (!buffer.impl_) return InvalidArgument("the buffer was already submitted");
  uint64_t size = buffer.size();
  MINERU_ASSIGN_OR_RETURN(UniqueFd fd, buffer.impl_->buffer.Seal());
  buffer.impl_.reset();
  return impl_->SubmitFd(fd.get(), size, options);
}

Result<JobStatus> Client::Wait(uint64_t job_id, const std::function<void(const Progress&)>& on_progress,
                               int64_t timeout_ms, const std::function<void(const PageResult&)>& on_page) {
  // Pages of this job that arrived while waiting for another.
  if (auto it = impl_->pages.find(job_id); it != impl_->pages.end()) {
    for (const PageResult& page : it->second) {
      if (on_page) on_page(page);
    }
    impl_->pages.erase(it);
  }
  Deadline deadline = timeout_ms < 0 ? Deadline::Never() : Deadline::InMillis(timeout_ms);
  // A daemon with kCapWatchJobs streams the events of any job we may see once we watch it (a job this
  // connection submitted streams anyway; watching it again does no harm). An older daemon sends events
  // only for our own submits, so there the status is asked for periodically.
  const bool can_watch = (impl_->hello.capabilities & shm::kCapWatchJobs) != 0;
  JobStatus current;
  if (can_watch) {
    shm::WatchRequest req{impl_->next_request_id++, job_id};
    MINERU_ASSIGN_OR_RETURN(shm::WatchReply r, impl_->CallFor<shm::WatchReply>(req, req.request_id));
    current = FromWire(r.job);
  } else {
    MINERU_ASSIGN_OR_RETURN(current, GetStatus(job_id));
  }
  uint32_t last_done = UINT32_MAX;
  auto report = [&](uint32_t done, uint32_t total) {
    if (on_progress && done != last_done) on_progress(Progress{job_id, done, total});
    last_done = done;
  };
  report(current.pages_done, current.pages_total);
  auto is_final = [](JobState s) {
    return s == JobState::kDone || s == JobState::kFailed || s == JobState::kCancelled;
  };
  // With page results, a followed job's last event (done or failed) comes after its last page, so the
  // wait lasts until that event even when the status already says the job is over.
  const bool until_event =
      (impl_->hello.capabilities & shm::kCapPageResults) != 0 && impl_->followed.count(job_id) > 0;
  constexpr int64_t kPollMs = 500;  // only for a daemon without kCapWatchJobs
  bool finished = false;
  while (until_event ? !finished : !is_final(current.state)) {
    // Events already received first. Another job's end stays queued for its own Wait; its progress is
    // dropped (a Wait starts from the job's status); its pages are read now, since the ring is read in
    // order, and kept.
    for (auto it = impl_->events.begin(); it != impl_->events.end() && !finished;) {
      if (auto* n = std::get_if<shm::PageResultNotice>(&*it)) {
        MINERU_ASSIGN_OR_RETURN(PageResult page, impl_->TakePage(*n));
        if (n->job_id != job_id) {
          impl_->pages[n->job_id].push_back(std::move(page));
        } else if (on_page) {
          on_page(page);
        }
      } else if (auto* p = std::get_if<shm::PageProgress>(&*it)) {
        if (p->job_id == job_id) report(p->pages_done, p->pages_total);
      } else if (auto* d = std::get_if<shm::JobDone>(&*it); d && d->job_id != job_id) {
        ++it;
        continue;
      } else if (auto* f = std::get_if<shm::JobFailed>(&*it); f && f->job_id != job_id) {
        ++it;
        continue;
      } else {
        finished = true;  // this job's JobDone or JobFailed
      }
      it = impl_->events.erase(it);
    }
    if (finished) break;
    if (deadline.Expired())
      return DeadlineExceeded("job " + std::to_string(job_id) + " did not finish in time");
    auto m = impl_->Receive(can_watch ? deadline : Deadline::InMillis(kPollMs));
    if (m.ok()) {
      if (Impl::IsJobEvent(*m)) impl_->events.push_back(std::move(*m));
      continue;
    }
    if (m.status().code() != StatusCode::kDeadlineExceeded) return m.status();
    if (can_watch) continue;  // the deadline check above answers
    MINERU_ASSIGN_OR_RETURN(current, GetStatus(job_id));
    report(current.pages_done, current.pages_total);
  }
  if (finished) impl_->followed.erase(job_id);
  MINERU_ASSIGN_OR_RETURN(current, GetStatus(job_id));
  report(current.pages_done, current.pages_total);
  return current;
}

Result<JobStatus> Client::GetStatus(uint64_t job_id) {
  shm::StatusRequest req{impl_->next_request_id++, job_id};
  MINERU_ASSIGN_OR_RETURN(shm::StatusReply r, impl_->CallFor<shm::StatusReply>(req, req.request_id));
  return FromWire(r.job);
}

Result<std::vector<JobStatus>> Client::List(bool all_users) {
  shm::ListRequest req{impl_->next_request_id++, all_users};
  MINERU_ASSIGN_OR_RETURN(shm::ListReply r, impl_->CallFor<shm::ListReply>(req, req.request_id));
  std::vector<JobStatus> out;
  for (const auto& j : r.jobs) out.push_back(FromWire(j));
  return out;
}

Status Client::Cancel(uint64_t job_id) {
  shm::CancelRequest req{impl_->next_request_id++, job_id, false};
  return impl_->CallFor<shm::CancelReply>(req, req.request_id).status();
}

Result<std::vector<uint64_t>> Client::CancelAll() {
  shm::CancelRequest req{impl_->next_request_id++, 0, true};
  MINERU_ASSIGN_OR_RETURN(shm::CancelReply r, impl_->CallFor<shm::CancelReply>(req, req.request_id));
  return r.cancelled_job_ids;
}

Result<std::vector<ResultFile>> Client::Fetch(uint64_t job_id) {
  if (!impl_->ring) return FailedPrecondition("minerud gave this connection no result ring");
  shm::FetchRequest req{impl_->next_request_id++, job_id, shm::kAllOutputs};
  MINERU_RETURN_IF_ERROR(impl_->Send(req));
  shm::RingConsumer& ring = *impl_->ring;
  std::vector<ResultFile> files;
  std::optional<shm::FetchReply> reply;
  std::vector<uint8_t> record;
  auto take = [&]() -> Status {
    auto view = shm::ParseResultRecord(record);
    if (!view.ok()) return view.status();
    if (view->kind != shm::ResultKind::kImageCrop && view->kind != shm::ResultKind::kOutputFile) {
      // A streamed page, announced by a notice still to be read: keep it for that notice.
      impl_->unclaimed_records.emplace(ring.records_read() - 1, std::move(record));
      return Status::Ok();
    }
    if (view->job_id != job_id) return Status::Ok();  // a record of another fetch; not ours
    std::string name(view->name);
    if (!SafeFileName(name)) return DataLoss("minerud sent an unsafe file name");
    ResultFile f;
    f.path = view->kind == shm::ResultKind::kImageCrop ? "images/" + name : name;
    f.data.assign(view->data.begin(), view->data.end());
    files.push_back(std::move(f));
    return Status::Ok();
  };
  Deadline deadline = Deadline::InMillis(600'000);
  for (;;) {
    // Everything in the ring first (it may be smaller than the results: the daemon waits for room).
    bool progressed = false;
    for (;;) {
      MINERU_ASSIGN_OR_RETURN(bool got, ring.TryRead(&record));
      if (!got) break;
      progressed = true;
      MINERU_RETURN_IF_ERROR(take());
    }
    if (reply) {
      if (ring.records_read() >= reply->first_record_sequence + reply->record_count) break;
      // The reply came after the last record was published: the rest is in the ring; wait on it.
      MINERU_RETURN_IF_ERROR(ring.Wait(deadline, impl_->channel.fd()));
      continue;
    }
    if (deadline.Expired())
      return DeadlineExceeded("fetching the results of job " + std::to_string(job_id) + " timed out");
    // Nothing new in the ring: wait on the socket for the reply, briefly, since the ring's wake-up
    // does not watch the socket and a full ring may have room again.
    auto m = impl_->Receive(Deadline::InMillis(progressed ? 0 : kRingIdleWaitMs));
    if (m.ok()) {
      if (Impl::IsJobEvent(*m)) {
        impl_->events.push_back(std::move(*m));
      } else if (auto* e = std::get_if<shm::ErrorReply>(&*m);
                 e && (e->request_id == req.request_id || e->request_id == 0)) {
        return FromErrorReply(*e);
      } else if (auto* r = std::get_if<shm::FetchReply>(&*m); r && r->request_id == req.request_id) {
        reply = *r;
      }
    } else if (m.status().code() != StatusCode::kDeadlineExceeded) {
      return m.status();
    }
  }
  return files;
}

Result<uint64_t> Client::SetVramBudget(uint64_t bytes) {
  if ((impl_->hello.capabilities & shm::kCapSetBudget) == 0) {
    return Unimplemented("this minerud cannot change its VRAM budget while running (version " +
                         impl_->hello.daemon_version + ")");
  }
  if (bytes == 0) return InvalidArgument("a VRAM budget must be more than 0 bytes");
  shm::BudgetRequest req{impl_->next_request_id++, bytes};
  MINERU_ASSIGN_OR_RETURN(shm::BudgetReply r, impl_->CallFor<shm::BudgetReply>(req, req.request_id));
  return r.vram_budget_bytes;
}

Result<DaemonStats> Client::Stats() {
  shm::StatsRequest req{impl_->next_request_id++};
  MINERU_ASSIGN_OR_RETURN(shm::StatsReply r, impl_->CallFor<shm::StatsReply>(req, req.request_id));
  DaemonStats out;
  out.counters = r.counters;
  for (const auto& t : r.tiers) {
    out.tiers.push_back({t.tier, t.budget_bytes, t.used_bytes, t.peak_bytes, t.units_resident});
  }
  return out;
}

Result<DaemonInfo> Client::Info() {
  if ((impl_->hello.capabilities & shm::kCapInfo) == 0) {
    return Unimplemented("this minerud cannot describe itself (version " + impl_->hello.daemon_version + ")");
  }
  shm::InfoRequest req{impl_->next_request_id++};
  MINERU_ASSIGN_OR_RETURN(shm::InfoReply r, impl_->CallFor<shm::InfoReply>(req, req.request_id));
  DaemonInfo out;
  out.daemon_version = r.daemon_version;
  out.protocol_version = r.protocol_version;
  out.pid = r.pid;
  out.started_unix_ms = r.started_unix_ms;
  out.backend = r.backend;
  out.model_dir = r.model_dir;
  out.model = r.model;
  out.vram_budget_bytes = r.vram_budget_bytes;
  out.pinned_budget_bytes = r.pinned_budget_bytes;
  out.workers = r.workers;
  out.max_batch = r.max_batch;
  out.max_document_bytes = r.max_document_bytes;
  out.max_pages_per_document = r.max_pages_per_document;
  out.max_jobs_queued = r.max_jobs_queued;
  out.max_jobs_per_user = r.max_jobs_per_user;
  return out;
}

Result<double> Client::Ping() {
  uint64_t nonce = impl_->next_request_id++;
  Stopwatch watch;
  MINERU_RETURN_IF_ERROR(impl_->Send(shm::Ping{nonce, {}}));
  for (;;) {
    MINERU_ASSIGN_OR_RETURN(shm::Message m, impl_->Receive(Deadline::InMillis(10'000)));
    if (auto* p = std::get_if<shm::Pong>(&m); p && p->nonce == nonce) break;
    if (Impl::IsJobEvent(m)) impl_->events.push_back(std::move(m));
  }
  return watch.ElapsedNanos() / 1000.0;
}

}  // namespace mineru::client
