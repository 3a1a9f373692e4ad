#include "daemon/server.h"

#include <fcntl.h>
#include <sys/socket.h>
#include <unistd.h>
#include <algorithm>

#include <csignal>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

#include "common/cpu_count.h"
#include "common/log.h"

namespace mineru::daemon {
namespace {

constexpr uint64_t kMaxPendingBytesPerSession = 16ull << 20;
constexpr int kAcceptsPerWakeup = 64;
constexpr uint64_t kTickMs = 1000;

bool SameHttpKeys(const Config& a, const Config& b) {
  return a.http_listen == b.http_listen && a.http_token_file == b.http_token_file &&
         a.http_max_connections == b.http_max_connections && a.http_max_body_bytes == b.http_max_body_bytes &&
         a.http_timeout_ms == b.http_timeout_ms;
}

void KeepHttpKeys(const Config& from, Config* to) {
  to->http_listen = from.http_listen;
  to->http_token_file = from.http_token_file;
  to->http_max_connections = from.http_max_connections;
  to->http_max_body_bytes = from.http_max_body_bytes;
  to->http_timeout_ms = from.http_timeout_ms;
}

uint64_t ResidentBytes() {
  std::ifstream statm("/proc/self/statm");
  uint64_t pages = 0, resident = 0;
  statm >> pages >> resident;
  return resident * static_cast<uint64_t>(::sysconf(_SC_PAGESIZE));
}

int64_t WorkerCount(const Config& config) { return config.workers > 0 ? config.workers : UsableCpus(); }

}  // namespace

Server::Server(Options options) : options_(std::move(options)) {}

Result<std::unique_ptr<Server>> Server::Create(Options options) {
  std::unique_ptr<Server> server(new Server(std::move(options)));
  MINERU_RETURN_IF_ERROR(server->Init());
  return server;
}

Status Server::Init() {
  const Config& config = options_.config;
  MINERU_ASSIGN_OR_RETURN(AccessPolicy access, AccessPolicy::Create(config.admin_group));
  MINERU_ASSIGN_OR_RETURN(Spool spool, Spool::Open(config.state_dir));
  spool_.emplace(std::move(spool));

  if (uv_loop_init(&loop_) != 0) return Internal("uv_loop_init failed");
  loop_ready_ = true;
  uv_async_init(&loop_, &wake_, &Server::OnWake);
  wake_.data = this;

  Scheduler::Options so;
  so.spool = &*spool_;
  so.backend = options_.backend.get();
  so.limits = JobLimits::FromConfig(config);
  // At least as many workers as the backend parses jobs at once, so pages of that many documents can
  // share the model's steps.
  so.workers = std::max(WorkerCount(config), options_.backend->JobSlots());
  so.wake = [this] { uv_async_send(&wake_); };
  so.watchdog = &ProcessWatchdog();
  scheduler_ = std::make_unique<Scheduler>(std::move(so));
  MINERU_RETURN_IF_ERROR(scheduler_->Recover());

  SpoolWriter::Options wo;
  wo.scheduler = scheduler_.get();
  wo.wake = [this] { uv_async_send(&wake_); };
  spool_writer_ = std::make_unique<SpoolWriter>(std::move(wo));

  RequestHandler::Options ho;
  ho.scheduler = scheduler_.get();
  ho.spool_writer = spool_writer_.get();
  ho.backend_name = std::string(options_.backend->name());
  ho.backend = options_.backend.get();
  ho.extra_counters = [this] {
    std::map<std::string, double> c;
    c["sessions"] = static_cast<double>(sessions_.size());
    c["sessions_total"] = static_cast<double>(sessions_total_);
    c["uptime_seconds"] = std::chrono::duration<double>(MonoNow() - started_at_).count();
    c["rss_bytes"] = static_cast<double>(ResidentBytes());
    c["worker_heartbeat_age_ms"] = static_cast<double>(scheduler_->HeartbeatAgeMs());
    c["threads_past_deadline"] = static_cast<double>(ProcessWatchdog().Overdue(MonoNowNanos()).size());
    if (http_) c.merge(http_->Counters());
    auto free_bytes = spool_->FreeBytes();
    if (free_bytes.ok()) c["state_dir_free_bytes"] = static_cast<double>(*free_bytes);
    return c;
  };
  ho.info = [this, started_ms = WallNowMillis()] {
    const Config& c = options_.config;
    shm::InfoReply r;
    r.pid = static_cast<uint32_t>(::getpid());
    r.started_unix_ms = started_ms;
    r.backend = std::string(options_.backend->name());
    r.model_dir = c.model_dir;
    r.model = options_.model_description;
    for (const pipeline::TierStats& t : options_.backend->Stats().tiers) {
      if (t.tier == "gpu") r.vram_budget_bytes = t.budget_bytes;
      if (t.tier == "pinned") r.pinned_budget_bytes = t.budget_bytes;
    }
    r.workers = static_cast<uint32_t>(WorkerCount(c));
    r.max_batch = static_cast<uint32_t>(c.max_batch);
    r.max_document_bytes = c.max_document_bytes;
    r.max_pages_per_document = static_cast<uint64_t>(c.max_pages_per_document);
    r.max_jobs_queued = static_cast<uint32_t>(std::min<int64_t>(c.max_jobs_queued, UINT32_MAX));
    r.max_jobs_per_user = static_cast<uint32_t>(std::min<int64_t>(c.max_jobs_per_user, UINT32_MAX));
    return r;
  };
  handler_ = std::make_unique<RequestHandler>(std::move(ho));
  handler_->SetAccessPolicy(access);
  handler_->SetMaxDocumentBytes(config.max_document_bytes);

  uv_poll_init_socket(&loop_, &listen_poll_, options_.listen.fd.get());
  listen_poll_.data = this;
  for (auto [handle, signum] : {std::pair{&sigterm_, SIGTERM}, {&sigint_, SIGINT}, {&sighup_, SIGHUP}}) {
    uv_signal_init(&loop_, handle);
    handle->data = this;
    uv_signal_start(handle, &Server::OnSignal, signum);
  }
  uv_timer_init(&loop_, &tick_);
  tick_.data = this;
  return StartHttpListener();
}

Status Server::StartHttpListener() {
  const Config& config = options_.config;
  if (config.http_listen.empty()) return Status::Ok();
  MINERU_ASSIGN_OR_RETURN(HttpListenerOptions o,
                          HttpListenerOptions::FromConfig(config, options_.backend.get()));
  MINERU_ASSIGN_OR_RETURN(http_, HttpListener::Start(std::move(o)));
  MINERU_LOG(kInfo) << "OpenAI-compatible HTTP listener on " << http_->address()
                    << (config.http_token_file.empty() ? "" : " (bearer token required)");
  return Status::Ok();
}

Server::~Server() {
  http_.reset();          // its page threads use the backend
  spool_writer_.reset();  // its thread uses the scheduler and wakes the loop
  scheduler_.reset();     // joins the workers before the loop goes away
  if (loop_ready_) {
    if (!uv_is_closing(reinterpret_cast<uv_handle_t*>(&wake_))) CloseAllHandles();
    uv_run(&loop_, UV_RUN_DEFAULT);
    uv_loop_close(&loop_);
  }
}

int Server::Run() {
  ::signal(SIGPIPE, SIG_IGN);
  scheduler_->Start();
  uv_poll_start(&listen_poll_, UV_READABLE, &Server::OnListenReadable);
  listening_ = true;
  uv_timer_start(&tick_, &Server::OnTick, kTickMs, kTickMs);
  MINERU_LOG(kInfo) << "listening on "
                    << (options_.listen.path.empty() ? "<activated socket>" : options_.listen.path)
                    << (options_.listen.activated ? " (socket activation)" : "") << ", backend "
                    << options_.backend->name() << ", state " << options_.config.state_dir;
  notifier_.Ready();
  PublishStatus();
  uv_run(&loop_, UV_RUN_DEFAULT);
  return exit_code_;
}

void Server::OnListenReadable(uv_poll_t* handle, int status, int /*events*/) {
  auto* self = static_cast<Server*>(handle->data);
  if (status < 0) {
    MINERU_LOG(kError) << "listening socket failed: " << uv_strerror(status);
    return;
  }
  self->AcceptAll();
}

void Server::AcceptAll() {
  for (int i = 0; i < kAcceptsPerWakeup && listening_; ++i) {
    UniqueFd fd(::accept4(options_.listen.fd.get(), nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC));
    if (!fd) {
      if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR || errno == ECONNABORTED) return;
      // EMFILE/ENFILE and the like: log and try again at the next readiness.
      MINERU_LOG(kWarning) << "accept: " << std::strerror(errno);
      return;
    }
    auto peer = GetPeerCredentials(fd.get());
    if (!peer.ok()) continue;
    uint64_t id = next_session_id_++;
    Session::Callbacks cb;
    cb.on_message = [this](Session& s, shm::Message m, std::vector<UniqueFd> fds) {
      handler_->Handle(s, std::move(m), std::move(fds));
    };
    cb.on_closed = [this](Session& s) { sessions_.erase(s.id()); };
    auto session = std::make_unique<Session>(&loop_, id, std::move(fd), *peer, kMaxPendingBytesPerSession,
                                             std::move(cb));
    if (!session->Start().ok()) continue;
    ++sessions_total_;
    sessions_.emplace(id, std::move(session));
  }
}

void Server::OnWake(uv_async_t* handle) { static_cast<Server*>(handle->data)->DispatchEvents(); }

void Server::FinishSpooled() {
  for (SpoolWriter::Completion& c : spool_writer_->TakeCompletions()) {
    auto it = sessions_.find(c.session_id);
    handler_->OnSpooled(it == sessions_.end() ? nullptr : it->second.get(), c);
  }
}

void Server::DispatchEvents() {
  // Spooled submits first: their jobs are committed (and followed by their submitters) before any of
  // their events can exist.
  FinishSpooled();
  std::vector<JobEvent> events = scheduler_->TakeEvents();
  for (const JobEvent& e : events) {
    if (e.kind == JobEvent::Kind::kProgress && e.info.state == JobState::kRunning && e.info.pages_done == 0 &&
        e.info.pages_total == 0) {
      MINERU_LOG(kInfo) << "job " << e.info.id << " started (attempt " << e.info.attempts << ")";
    }
    if (e.kind == JobEvent::Kind::kFinished) {
      MINERU_LOG(kInfo) << "job " << e.info.id << " (uid " << e.info.uid << ", " << e.info.name << ") "
                        << JobStateName(e.info.state) << (e.info.error.empty() ? "" : ": " + e.info.error);
    }
    // Collect first: delivering may close a session (and erase it) on a full queue.
    std::vector<Session*> watchers;
    for (auto& [id, s] : sessions_) {
      if (!s->closing() && s->watched_jobs().count(e.info.id)) watchers.push_back(s.get());
    }
    for (Session* s : watchers) {
      if (e.kind == JobEvent::Kind::kFinished) s->watched_jobs().erase(e.info.id);
      handler_->Deliver(*s, e);
    }
  }
  if (shutting_down_) CheckDrained();
}

void Server::OnSignal(uv_signal_t* handle, int signum) {
  auto* self = static_cast<Server*>(handle->data);
  if (signum == SIGHUP) {
    self->Reload();
    return;
  }
  if (self->shutting_down_) {
    // A second SIGTERM/SIGINT: stop running jobs now (they run again at the next start) and HTTP pages.
    MINERU_LOG(kWarning) << "second stop signal: interrupting running jobs and HTTP pages";
    self->scheduler_->Interrupt();
    self->http_.reset();
    self->interrupted_ = true;
    return;
  }
  self->BeginShutdown();
}

void Server::BeginShutdown() {
  shutting_down_ = true;
  notifier_.Stopping();
  MINERU_LOG(kInfo) << "stopping: no new jobs; draining running jobs for up to "
                    << options_.config.drain_timeout_ms << " ms";
  scheduler_->BeginDrain();
  if (http_) http_->BeginDrain();  // its running pages finish as jobs do
  if (listening_) {
    uv_poll_stop(&listen_poll_);
    listening_ = false;
    RemoveSocketFile(options_.listen);
  }
  drain_deadline_ = Deadline::InMillis(options_.config.drain_timeout_ms);
  CheckDrained();
}

void Server::CheckDrained() {
  // Documents being spooled when the drain began are finished and answered (their jobs stay queued in
  // the spool for the next start); ones not started were refused with kUnavailable.
  FinishSpooled();
  if (!spool_writer_->Idle()) return;  // its completion wakes us again
  if (!scheduler_->Idle() || (http_ && !http_->Idle())) {
    if (drain_deadline_.Expired() && !interrupted_) {
      MINERU_LOG(kWarning) << "drain timeout: interrupting running jobs (they run again at the next start)"
                           << " and HTTP pages";
      scheduler_->Interrupt();
      http_.reset();  // cancels its pages and closes its connections
      interrupted_ = true;
    }
    return;
  }
  http_.reset();
  // Idle: deliver what is left and stop.
  for (;;) {
    std::vector<JobEvent> events = scheduler_->TakeEvents();
    if (events.empty()) break;
    for (const JobEvent& e : events) {
      for (auto& [id, s] : sessions_) {
        if (!s->closing() && s->watched_jobs().count(e.info.id)) handler_->Deliver(*s, e);
      }
    }
  }
  MINERU_LOG(kInfo) << "drained; exiting";
  CloseAllHandles();
}

void Server::CloseAllHandles() {
  std::vector<Session*> open;
  for (auto& [id, s] : sessions_) open.push_back(s.get());
  // What was sent is in the kernel's socket buffers; a client that does not read cannot hold us up.
  for (Session* s : open) s->Close();
  for (uv_handle_t* h :
       {reinterpret_cast<uv_handle_t*>(&listen_poll_), reinterpret_cast<uv_handle_t*>(&wake_),
        reinterpret_cast<uv_handle_t*>(&sigterm_), reinterpret_cast<uv_handle_t*>(&sigint_),
        reinterpret_cast<uv_handle_t*>(&sighup_), reinterpret_cast<uv_handle_t*>(&tick_)}) {
    if (!uv_is_closing(h)) uv_close(h, nullptr);
  }
}

void Server::OnTick(uv_timer_t* handle) {
  auto* self = static_cast<Server*>(handle->data);
  if (self->shutting_down_) {
    self->CheckDrained();
    return;
  }
  self->CheckWatchdog();
  self->scheduler_->ExpireFinished(WallNowMillis());
  self->options_.backend->Tick();
  self->PublishStatus();
}

// systemd's watchdog hears from us only while every worker and the model thread is within the
// deadline of the work it is doing (watchdog.h): one stuck thread stops the pings, however many others
// are idle, and systemd restarts the daemon after WatchdogSec=.
void Server::CheckWatchdog() {
  std::vector<std::string> late = ProcessWatchdog().Overdue(MonoNowNanos());
  if (late.empty()) {
    if (!overdue_.empty()) {
      MINERU_LOG(kWarning) << "every thread is within its deadline again";
    }
    overdue_.clear();
    if (notifier_.watchdog_usec() > 0) notifier_.WatchdogPing();
    return;
  }
  const bool first = overdue_.empty();
  overdue_.clear();
  for (const std::string& l : late) overdue_ += (overdue_.empty() ? "" : ", ") + l;
  if (first) {
    MINERU_LOG(kError) << "past its deadline, so the watchdog is not pinged: " << overdue_;
  }
}

void Server::PublishStatus() {
  if (!notifier_.enabled()) return;
  SchedulerStats st = scheduler_->Stats();
  std::ostringstream o;
  o << st.running << " running, " << st.queued << " queued, " << sessions_.size() << " clients, RSS "
    << FormatByteSize(ResidentBytes() >> 20 << 20);
  const std::string pipeline = options_.backend->StatusLine();
  if (!pipeline.empty()) o << "; " << pipeline;
  if (!overdue_.empty()) o << "; past deadline: " << overdue_.substr(0, overdue_.find(" (late"));
  // sd_notify blocks when the manager's queue is full; send only what changed.
  if (o.str() == last_status_) return;
  last_status_ = o.str();
  notifier_.Status(last_status_);
}

void Server::Reload() {
  notifier_.Reloading();
  auto config = LoadDaemonConfig(options_.command_line);
  Result<AccessPolicy> access = config.ok() ? AccessPolicy::Create(config->admin_group) : config.status();
  if (!config.ok() || !access.ok()) {
    MINERU_LOG(kError) << "reload failed, keeping the running configuration: "
                       << (config.ok() ? access.status() : config.status()).ToString();
    notifier_.Ready();
    return;
  }
  const Config& old = options_.config;
  if (config->socket_path != old.socket_path || config->state_dir != old.state_dir ||
      config->model_dir != old.model_dir || config->workers != old.workers ||
      config->backend != old.backend || config->remote_urls != old.remote_urls ||
      config->remote_api_key_file != old.remote_api_key_file ||
      config->remote_concurrency != old.remote_concurrency ||
      config->remote_timeout_ms != old.remote_timeout_ms || !SameHttpKeys(*config, old)) {
    MINERU_LOG(kWarning)
        << "socket, state_dir, model_dir, workers, backend, the http_* and the remote_* keys change only "
           "at restart";
    KeepHttpKeys(old, &*config);
    config->socket_path = old.socket_path;
    config->state_dir = old.state_dir;
    config->model_dir = old.model_dir;
    config->workers = old.workers;
    config->backend = old.backend;
    config->remote_urls = old.remote_urls;
    config->remote_api_key_file = old.remote_api_key_file;
    config->remote_concurrency = old.remote_concurrency;
    config->remote_timeout_ms = old.remote_timeout_ms;
  }
  Status backend = options_.backend->Reconfigure(*config);
  if (!backend.ok()) {
    MINERU_LOG(kError) << "reload failed, keeping the running configuration: " << backend.ToString();
    notifier_.Ready();
    return;
  }
  LogLevel level;
  if (ParseLogLevel(config->log_level, &level)) SetLogLevel(level);
  scheduler_->SetLimits(JobLimits::FromConfig(*config));
  handler_->SetAccessPolicy(*access);
  handler_->SetMaxDocumentBytes(config->max_document_bytes);
  options_.config = *config;
  MINERU_LOG(kInfo) << "configuration reloaded";
  notifier_.Ready();
}

}  // namespace mineru::daemon
