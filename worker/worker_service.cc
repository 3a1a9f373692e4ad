#include "worker/worker_service.h"

#include <malloc.h>
#include <signal.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <new>
#include <optional>
#include <string>

#include "document/ocr.h"
#include "document/pdf_document.h"
#include "pipeline/text_layer_backend.h"
#include "shm/sealed_document.h"
#include "worker/sandbox.h"
#include "worker/worker_protocol.h"

namespace mineru::worker {
namespace {

struct Args {
  int socket_fd = -1;
  pid_t parent = 0;
  uint64_t address_space_bytes = 0;
  uint64_t cpu_seconds = 0;
  uint64_t documents = 1;
  document::OcrOptions ocr;
  bool namespaces = true;
};

std::optional<Args> ParseArgs(int argc, char** argv) {
  Args a;
  for (int i = 1; i < argc; ++i) {
    std::string_view k = argv[i];
    if (k == "--no-namespaces" || k == "--no-ocr") {
      (k == "--no-ocr" ? a.ocr.enabled : a.namespaces) = false;
      continue;
    }
    if (i + 1 >= argc) return std::nullopt;
    const char* v = argv[++i];
    char* end = nullptr;
    const unsigned long long n = std::strtoull(v, &end, 10);
    const bool numeric = end != v && *end == '\0';
    if (k == "--socket-fd" && numeric) {
      a.socket_fd = static_cast<int>(n);
    } else if (k == "--parent" && numeric) {
      a.parent = static_cast<pid_t>(n);
    } else if (k == "--address-space-bytes" && numeric) {
      a.address_space_bytes = n;
    } else if (k == "--cpu-seconds" && numeric) {
      a.cpu_seconds = n;
    } else if (k == "--documents" && numeric && n > 0) {
      a.documents = n;
    } else if (k == "--ocr-page-time-limit-ms" && numeric) {
      a.ocr.page_time_limit_ms = static_cast<int64_t>(n);
    } else if (k == "--ocr-languages") {
      a.ocr.languages = v;
    } else {
      return std::nullopt;
    }
  }
  if (a.socket_fd < 3 || a.parent <= 1) return std::nullopt;
  return a;
}

int g_socket = -1;

// An allocation failed (RLIMIT_AS): say so while a message still fits on the stack, then leave.
void OnOutOfMemory() {
  Message m;
  m.type = MessageType::kError;
  m.code = static_cast<int32_t>(StatusCode::kResourceExhausted);
  static constexpr char kText[] =
      "the document worker ran out of its memory limit (worker_memory) while parsing this document";
  std::memcpy(m.text, kText, sizeof(kText));
  (void)SendMessage(g_socket, m).ok();
  ::_exit(kWorkerExitOutOfMemory);
}

// The soft CPU limit ran out. A handler, not SIGXCPU's default action: a worker that is pid 1 of its own
// pid namespace (worker_spawn.h) is not ended by a signal it has no handler for, but for SIGKILL.
void OnCpuTimeUsedUp(int) { ::_exit(kWorkerExitCpuTime); }

Status SendError(const Status& s) {
  Message m;
  m.type = MessageType::kError;
  m.code = static_cast<int32_t>(s.code() == StatusCode::kOk ? StatusCode::kInternal : s.code());
  SetText(m, s.message());
  return SendMessage(g_socket, m);
}

Status SendBundle(Message m, std::span<const BundleEntry> entries) {
  MINERU_ASSIGN_OR_RETURN(auto bundle, WriteBundle(entries));
  m.fd_bytes = bundle.second;
  return SendMessage(g_socket, m, bundle.first.get());
}

std::span<const uint8_t> Bytes(const std::string& s) {
  return {reinterpret_cast<const uint8_t*>(s.data()), s.size()};
}

// One opened document and the requests on it.
class Session {
 public:
  Session(const WorkerHooks& hooks, document::OcrOptions ocr) : hooks_(hooks), ocr_(std::move(ocr)) {}

  Status Open(const Message& m, UniqueFd fd) {
    // A new Open ends the document before it (minerud reuses a worker only for one user's documents).
    pdf_.reset();
    document_.reset();
    input_ = {};
    MINERU_ASSIGN_OR_RETURN(shm::SealedDocument doc,
                            shm::SealedDocument::Adopt(std::move(fd), m.fd_bytes, m.fd_bytes));
    document_.emplace(std::move(doc));
    if (hooks_.on_open) MINERU_RETURN_IF_ERROR(hooks_.on_open(document_->bytes()));
    input_.document = document_->bytes();
    input_.name = GetText(m);
    input_.max_pages = m.max_pages;
    input_.memory_limit_bytes = m.memory_limit_bytes;
    input_.deadline = m.time_budget_ms > 0 ? Deadline::InMillis(m.time_budget_ms) : Deadline::Never();
    MINERU_ASSIGN_OR_RETURN(pdf_, pipeline::OpenBackendDocument(input_, cancel_));
    Message reply;
    reply.type = MessageType::kOpened;
    reply.count = pdf_->page_count();
    return SendMessage(g_socket, reply);
  }

  Status ParseText(const Message& m) {
    if (!pdf_) return FailedPrecondition("ParseText before Open");
    input_.pages = document::PageRange{m.page, m.last_page};
    Status sent;
    auto progress = [&](int64_t done, int64_t total, std::shared_ptr<const pipeline::PageOutput> page) {
      if (!sent.ok()) return;
      Message p;
      p.type = MessageType::kPage;
      p.page = page->page_index;
      p.count = static_cast<int32_t>(done);
      p.total = static_cast<int32_t>(total);
      const BundleEntry entries[] = {{"markdown", Bytes(page->markdown)},
                                     {"content_list", Bytes(page->content_list)},
                                     {"model_output", Bytes(page->model_output)}};
      sent = SendBundle(p, entries);
    };
    MINERU_ASSIGN_OR_RETURN(pipeline::BackendOutput out,
                            pipeline::ParseOpenedWithTextLayer(*pdf_, input_, ocr_, progress, cancel_));
    MINERU_RETURN_IF_ERROR(sent);
    std::vector<BundleEntry> files;
    files.reserve(out.files.size());
    for (const pipeline::OutputFile& f : out.files) files.push_back({f.path, Bytes(f.data)});
    Message done;
    done.type = MessageType::kDone;
    done.count = static_cast<int32_t>(out.num_pages);
    return SendBundle(done, files);
  }

  Status Render(const Message& m) {
    if (!pdf_) return FailedPrecondition("Render before Open");
    MINERU_ASSIGN_OR_RETURN(document::RgbImage image, pdf_->RenderPage(static_cast<int>(m.page), m.dpi));
    Message reply;
    reply.type = MessageType::kImage;
    reply.page = m.page;
    reply.width = image.width;
    reply.height = image.height;
    const BundleEntry entries[] = {{"rgb", image.pixels}};
    return SendBundle(reply, entries);
  }

 private:
  const WorkerHooks& hooks_;
  const document::OcrOptions ocr_;
  std::optional<shm::SealedDocument> document_;
  pipeline::BackendInput input_;
  pipeline::CancelFlag cancel_{false};
  std::unique_ptr<document::PdfDocument> pdf_;
};

}  // namespace

int RunWorker(int argc, char** argv, const WorkerHooks& hooks) {
  std::optional<Args> args = ParseArgs(argc, argv);
  if (!args) {
    std::fputs("minerud-worker: started by minerud only (--socket-fd N --parent PID ...)\n", stderr);
    return kWorkerExitUsage;
  }
  // Gone with the daemon, even when it is killed with -9. In a pid namespace of its own the daemon is
  // outside it (getppid() is 0); a daemon gone before this line leaves the socket's end closed.
  ::prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
  if (const pid_t parent = ::getppid(); parent != 0 && parent != args->parent) return kWorkerExitProtocol;
  struct sigaction on_cpu {};
  on_cpu.sa_handler = &OnCpuTimeUsedUp;
  ::sigaction(SIGXCPU, &on_cpu, nullptr);
  g_socket = args->socket_fd;

  // Before the sandbox: the OCR models are files, opened now and loaded only if a page needs OCR. A
  // language whose file cannot be opened fails at that page, as it would in-process.
  std::vector<int> ocr_fds;
  if (args->ocr.enabled) ocr_fds = document::PreopenOcrData(args->ocr.languages).value_or(std::vector<int>{});

  SandboxOptions sandbox;
  sandbox.address_space_bytes = args->address_space_bytes;
  sandbox.cpu_seconds = args->cpu_seconds;
  sandbox.cpu_documents = args->documents;
  sandbox.keep_fds = ocr_fds;
  sandbox.keep_fds.push_back(args->socket_fd);
  sandbox.namespaces = args->namespaces;
  Result<SandboxReport> report = EnterSandbox(sandbox);
  if (!report.ok()) {
    (void)SendError(report.status().WithContext("the document worker's sandbox")).ok();
    return kWorkerExitSandbox;
  }
  std::set_new_handler(&OnOutOfMemory);
  // Freed memory stays in the heap for the next page and document (a worker is short-lived and bounded
  // by RLIMIT_AS): glibc's defaults hand large blocks back to the kernel, and every page then pays the
  // page faults and zeroing of fresh memory again (a tenth of a worker's time, measured).
  ::mallopt(M_MMAP_THRESHOLD, 32 << 20);
  ::mallopt(M_TRIM_THRESHOLD, 256 << 20);
  ::mallopt(M_TOP_PAD, 16 << 20);
  Message ready;
  ready.type = MessageType::kReady;
  SetText(ready, report->summary);
  if (!SendMessage(g_socket, ready).ok()) return kWorkerExitOk;

  Session session(hooks, args->ocr);
  for (;;) {
    Result<Received> r = ReceiveMessage(g_socket);
    if (!r.ok()) return r.status().code() == StatusCode::kUnavailable ? kWorkerExitOk : kWorkerExitProtocol;
    Status s;
    switch (r->message.type) {
      case MessageType::kOpen:
        s = session.Open(r->message, std::move(r->fd));
        break;
      case MessageType::kParseText:
        s = session.ParseText(r->message);
        break;
      case MessageType::kRender:
        s = session.Render(r->message);
        break;
      default:
        return kWorkerExitProtocol;
    }
    if (!s.ok() && !SendError(s).ok()) return kWorkerExitOk;
  }
}

}  // namespace mineru::worker
