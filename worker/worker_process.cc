#include "worker/worker_process.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstring>
#include <ctime>

#include "common/syscall.h"
#include "worker/worker_service.h"
#include "worker/worker_spawn.h"

#ifndef P_PIDFD
#define P_PIDFD 3
#endif

namespace mineru::worker {
namespace {

constexpr std::string_view kLostPrefix = "the document worker ";
constexpr uint64_t kMaxBundleBytes = 1ull << 36;
// The worker stops itself at the job's deadline (MuPDF's time budget); the daemon kills it this much later.
constexpr std::chrono::milliseconds kKillGrace{2000};
// How often a wait looks at the cancel flag (a flag has no fd to poll).
constexpr int kCancelPollMs = 100;

Status WorkerLost(const std::string& how) { return Unavailable(std::string(kLostPrefix) + how); }

Status CpuTimeUsedUp() {
  return DeadlineExceeded("the document worker used up its CPU time limit (max_seconds)");
}

std::string SignalName(int sig) {
  const char* abbrev = sigabbrev_np(sig);
  return "signal " + std::to_string(sig) + (abbrev ? std::string(" (SIG") + abbrev + ")" : "");
}

Deadline Earlier(Deadline a, Deadline b) {
  if (a.never()) return b;
  if (b.never()) return a;
  return a.at() <= b.at() ? a : b;
}

}  // namespace

bool IsWorkerLost(const Status& status) {
  return status.code() == StatusCode::kUnavailable && status.message().rfind(kLostPrefix, 0) == 0;
}

std::string DefaultWorkerPath() {
  char buf[PATH_MAX];
  const ssize_t n = ::readlink("/proc/self/exe", buf, sizeof(buf) - 1);
  if (n <= 0) return "minerud-worker";
  std::string self(buf, static_cast<size_t>(n));
  return self.substr(0, self.rfind('/') + 1) + "minerud-worker";
}

Result<std::unique_ptr<WorkerProcess>> WorkerProcess::Start(const WorkerOptions& options) {
  if (::access(options.path.c_str(), X_OK) != 0) {
    return ErrnoStatus(errno, "document worker '" + options.path + "'");
  }
  MINERU_ASSIGN_OR_RETURN(auto sockets, MessageSocketPair());
  std::vector<std::string> args = {options.path, "--socket-fd", "3", "--parent", std::to_string(::getpid())};
  if (options.address_space_bytes > 0) {
    args.insert(args.end(), {"--address-space-bytes", std::to_string(options.address_space_bytes)});
  }
  if (options.cpu_seconds > 0)
    args.insert(args.end(), {"--cpu-seconds", std::to_string(options.cpu_seconds)});
  if (options.documents > 1) args.insert(args.end(), {"--documents", std::to_string(options.documents)});
  if (!options.ocr) args.push_back("--no-ocr");
  if (!options.ocr_languages.empty()) args.insert(args.end(), {"--ocr-languages", options.ocr_languages});
  if (options.ocr_page_time_limit_ms > 0) {
    args.insert(args.end(), {"--ocr-page-time-limit-ms", std::to_string(options.ocr_page_time_limit_ms)});
  }
  if (!options.namespaces) args.push_back("--no-namespaces");
  MINERU_ASSIGN_OR_RETURN(SpawnedWorker child,
                          SpawnWorker(options.path, args, sockets.second.get(), options.namespaces));
  return std::unique_ptr<WorkerProcess>(
      new WorkerProcess(child.pid, std::move(child.pidfd), std::move(sockets.first), options));
}

WorkerProcess::~WorkerProcess() {
  socket_.reset();
  if (!reaped_) (void)Kill(Status::Ok());
}

Status WorkerProcess::Kill(Status why) {
  if (!reaped_) {
    ::syscall(SYS_pidfd_send_signal, pidfd_.get(), SIGKILL, nullptr, 0);
    siginfo_t info{};
    RetryEintr([&] { return ::waitid(static_cast<idtype_t>(P_PIDFD), pidfd_.get(), &info, WEXITED); });
    reaped_ = true;
  }
  return why;
}

Status WorkerProcess::Lost() {
  // The socket closed: the worker is ending. SIGKILL does not change the status of a process already
  // exiting; it only makes sure one that closed its socket and lives on is gone too.
  ::syscall(SYS_pidfd_send_signal, pidfd_.get(), SIGKILL, nullptr, 0);
  siginfo_t info{};
  if (RetryEintr([&] { return ::waitid(static_cast<idtype_t>(P_PIDFD), pidfd_.get(), &info, WEXITED); }) !=
      0) {
    return ErrnoStatus(errno, "waitid(document worker)");
  }
  reaped_ = true;
  if (info.si_code == CLD_EXITED) {
    switch (info.si_status) {
      case kWorkerExitOutOfMemory:
        return ResourceExhausted(
            "the document worker ran out of its memory limit (worker_memory) while parsing this document");
      case kWorkerExitCpuTime:
        return CpuTimeUsedUp();
      case kWorkerExitSandbox:
        return FailedPrecondition("the document worker could not enter its sandbox");
      default:
        return WorkerLost("exited with status " + std::to_string(info.si_status) + " without an answer");
    }
  }
  const int sig = info.si_status;
  if (sig == SIGXCPU) return CpuTimeUsedUp();
  return WorkerLost("was killed by " + SignalName(sig) +
                    (sig == SIGKILL ? " (its CPU limit, or the kernel's out-of-memory killer)"
                                    : " while parsing this document (a crash in the PDF parser)"));
}

Status WorkerProcess::ErrorFrom(const Message& m) {
  StatusCode code = static_cast<StatusCode>(m.code);
  if (m.code <= 0 || m.code > static_cast<int32_t>(StatusCode::kInternal)) code = StatusCode::kInternal;
  std::string text = GetText(m);
  if (text.empty()) text = "the document worker failed without a message";
  return Status(code, std::move(text));
}

Result<Received> WorkerProcess::Next(Deadline deadline, const std::atomic<bool>* cancel) {
  if (reaped_) return WorkerLost("is gone");
  for (;;) {
    int timeout = deadline.RemainingMillisForPoll();
    if (cancel != nullptr && (timeout < 0 || timeout > kCancelPollMs)) timeout = kCancelPollMs;
    pollfd fds[2] = {{socket_.get(), POLLIN, 0}, {pidfd_.get(), POLLIN, 0}};
    const int n = RetryEintr([&] { return ::poll(fds, 2, timeout); });
    if (n < 0) return ErrnoStatus(errno, "poll(document worker)");
    if (fds[0].revents != 0) {
      Result<Received> r = ReceiveMessage(socket_.get());
      if (r.ok()) return r;
      if (r.status().code() == StatusCode::kUnavailable) return Lost();
      return Kill(r.status().WithContext("the document worker broke the protocol"));
    }
    if (fds[1].revents != 0) return Lost();
    if (cancel != nullptr && cancel->load(std::memory_order_acquire)) return Kill(Cancelled("cancelled"));
    if (deadline.Expired()) return Kill(DeadlineExceeded("late"));
  }
}

Result<std::string> WorkerProcess::WaitReady(Deadline deadline) {
  Result<Received> r = Next(deadline);
  if (!r.ok()) {
    if (r.status().code() == StatusCode::kDeadlineExceeded && deadline.Expired()) {
      return DeadlineExceeded("the document worker did not start in time");
    }
    return r.status();
  }
  if (r->message.type == MessageType::kError) return Kill(ErrorFrom(r->message));
  if (r->message.type != MessageType::kReady) return Kill(DataLoss("the document worker did not say Ready"));
  return GetText(r->message);
}

Status WorkerProcess::GrantCpu(uint64_t cpu_seconds) {
  if (reaped_) return WorkerLost("is gone");
  clockid_t clock;
  timespec used{};
  if (const int rc = ::clock_getcpuclockid(pid_, &clock); rc != 0)
    return ErrnoStatus(rc, "clock_getcpuclockid");
  if (::clock_gettime(clock, &used) != 0) return ErrnoStatus(errno, "clock_gettime(document worker)");
  rlimit now{};
  if (::prlimit(pid_, RLIMIT_CPU, nullptr, &now) != 0) return ErrnoStatus(errno, "prlimit(document worker)");
  if (now.rlim_cur == RLIM_INFINITY) return Status::Ok();
  const rlim_t soft = static_cast<rlim_t>(used.tv_sec) + 1 + cpu_seconds;
  if (soft >= now.rlim_max) return ResourceExhausted("the document worker has used its CPU time");
  const rlimit next{soft, now.rlim_max};
  if (::prlimit(pid_, RLIMIT_CPU, &next, nullptr) != 0) return ErrnoStatus(errno, "prlimit(document worker)");
  return Status::Ok();
}

Result<int> WorkerProcess::Open(int document_fd, uint64_t document_bytes, const OpenLimits& limits) {
  job_deadline_ = limits.deadline;
  ++documents_;
  Message m;
  m.type = MessageType::kOpen;
  m.fd_bytes = document_bytes;
  m.max_pages = limits.max_pages;
  m.memory_limit_bytes = limits.memory_limit_bytes;
  if (!limits.deadline.never()) {
    m.time_budget_ms = std::max<int64_t>(
        1, std::chrono::duration_cast<std::chrono::milliseconds>(limits.deadline.at() - MonoNow()).count());
  }
  SetText(m, limits.name);
  Status sent = SendMessage(socket_.get(), m, document_fd);
  if (!sent.ok()) return Lost();
  Deadline until = limits.deadline.never() ? Deadline::Never()
                                           : Deadline::In(limits.deadline.at() - MonoNow() + kKillGrace);
  if (limits.open_allowance.count() > 0) until = Earlier(until, Deadline::In(limits.open_allowance));
  Result<Received> r = Next(until);
  if (!r.ok()) {
    // Not the wait's end: the worker's (its CPU limit is a kDeadlineExceeded too).
    if (r.status().code() != StatusCode::kDeadlineExceeded || !until.Expired()) return r.status();
    if (limits.deadline.Expired()) {
      return DeadlineExceeded("the document worker did not open the document within max_seconds");
    }
    return DeadlineExceeded("the document worker did not open the document in " +
                            std::to_string(limits.open_allowance.count() / 1000) + " s");
  }
  if (r->message.type == MessageType::kError) return ErrorFrom(r->message);
  if (r->message.type != MessageType::kOpened || r->message.count < 0) {
    return Kill(
        DataLoss("the document worker answered Open with " + std::string(MessageTypeName(r->message.type))));
  }
  return r->message.count;
}

Result<WorkerProcess::Parsed> WorkerProcess::ParseText(uint32_t first, uint32_t last,
                                                       const std::function<void(WorkerPage)>& on_page,
                                                       std::chrono::milliseconds page_allowance,
                                                       const std::atomic<bool>& cancel) {
  Message m;
  m.type = MessageType::kParseText;
  m.page = first;
  m.last_page = last;
  if (!SendMessage(socket_.get(), m).ok()) return Lost();
  const Deadline job_until =
      job_deadline_.never() ? Deadline::Never() : Deadline::In(job_deadline_.at() - MonoNow() + kKillGrace);
  for (;;) {
    const Deadline page_until = page_allowance.count() > 0 ? Deadline::In(page_allowance) : Deadline::Never();
    const Deadline until = Earlier(job_until, page_until);
    Result<Received> r = Next(until, &cancel);
    if (!r.ok()) {
      if (r.status().code() != StatusCode::kDeadlineExceeded || !until.Expired()) return r.status();
      if (job_until.Expired()) {
        return DeadlineExceeded("the document worker did not finish within max_seconds");
      }
      return DeadlineExceeded("the document worker finished no page in " +
                              std::to_string(page_allowance.count() / 1000) + " s");
    }
    Message& msg = r->message;
    if (msg.type == MessageType::kError) return ErrorFrom(msg);
    if (msg.type != MessageType::kPage && msg.type != MessageType::kDone) {
      return Kill(
          DataLoss("the document worker answered ParseText with " + std::string(MessageTypeName(msg.type))));
    }
    Result<Bundle> bundle = Bundle::Read(std::move(r->fd), msg.fd_bytes, kMaxBundleBytes);
    if (!bundle.ok()) return Kill(bundle.status());
    if (msg.type == MessageType::kDone) return Parsed{msg.count, std::move(*bundle)};
    on_page(WorkerPage{msg.page, msg.count, msg.total, std::move(*bundle)});
  }
}

Result<RenderedPage> WorkerProcess::Render(uint32_t page_index, double dpi, Deadline deadline) {
  Message m;
  m.type = MessageType::kRender;
  m.page = page_index;
  m.dpi = dpi;
  if (!SendMessage(socket_.get(), m).ok()) return Lost();
  Result<Received> r = Next(deadline);
  if (!r.ok()) {
    if (r.status().code() == StatusCode::kDeadlineExceeded && deadline.Expired()) {
      return DeadlineExceeded("the document worker did not render the page in time");
    }
    return r.status();
  }
  if (r->message.type == MessageType::kError) return ErrorFrom(r->message);
  if (r->message.type != MessageType::kImage)
    return Kill(DataLoss("the document worker did not send an image"));
  MINERU_ASSIGN_OR_RETURN(Bundle bundle,
                          Bundle::Read(std::move(r->fd), r->message.fd_bytes, kMaxBundleBytes));
  RenderedPage page{r->message.width, r->message.height, std::move(bundle)};
  if (page.width <= 0 || page.height <= 0 ||
      page.rgb().size() != static_cast<uint64_t>(page.width) * static_cast<uint64_t>(page.height) * 3) {
    return Kill(DataLoss("the document worker sent an image of the wrong size"));
  }
  return page;
}

}  // namespace mineru::worker
