#include "pipeline/remote_backend.h"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <deque>
#include <fstream>
#include <sstream>

#include "document/model_output_parser.h"
#include "document/output_writer.h"
#include "document/pdf_document.h"
#include "pipeline/openai_chat.h"
#include "pipeline/page_render.h"
#include "pipeline/remote_client.h"

namespace mineru::pipeline {
namespace {

// A job's pages in flight at once: enough to fill the servers, few enough that their renders (kept for
// the block crops) stay small.
constexpr int64_t kMaxWindowPages = 32;

// Ids for Parse calls without a job id, apart from the daemon's.
std::atomic<uint64_t> g_anonymous_jobs{uint64_t{1} << 63};

struct InFlight {
  RenderedPage page;
  std::future<Result<std::string>> text;  // invalid when the page did not render
};

}  // namespace

Result<std::string> ReadApiKeyFile(const std::string& path, std::string_view key_name) {
  const std::string what = std::string(key_name) + " " + path;
  std::ifstream in(path, std::ios::binary);
  if (!in) return ErrnoStatus(errno != 0 ? errno : ENOENT, "cannot read " + what);
  std::ostringstream buf;
  buf << in.rdbuf();
  std::string key = buf.str();
  auto space = [](char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; };
  while (!key.empty() && space(key.back())) key.pop_back();
  size_t start = 0;
  while (start < key.size() && space(key[start])) ++start;
  key.erase(0, start);
  if (key.empty()) return InvalidArgument(what + " is empty");
  if (key.size() > 4096) return InvalidArgument(what + " is longer than 4096 bytes");
  for (char c : key) {
    const auto u = static_cast<unsigned char>(c);
    if (u < 0x21 || u == 0x7f) {
      return InvalidArgument(what + " holds more than one token (or control characters)");
    }
  }
  return key;
}

RemoteBackend::RemoteBackend(const Config& config, std::unique_ptr<RemoteClient> client)
    : config_(config),
      window_pages_(std::clamp<int64_t>(
          static_cast<int64_t>(SplitRemoteUrls(config.remote_urls).size()) * config.remote_concurrency, 1,
          kMaxWindowPages)),
      client_(std::move(client)) {}

RemoteBackend::~RemoteBackend() = default;

Result<std::unique_ptr<RemoteBackend>> RemoteBackend::Open(const Config& config) {
  RemoteClientOptions o;
  o.urls = SplitRemoteUrls(config.remote_urls);
  if (o.urls.empty()) return InvalidArgument("backend = remote needs at least one remote_url");
  if (!config.remote_api_key_file.empty()) {
    MINERU_ASSIGN_OR_RETURN(o.api_key, ReadApiKeyFile(config.remote_api_key_file));
  }
  o.concurrency = config.remote_concurrency;
  o.timeout = std::chrono::milliseconds(config.remote_timeout_ms);
  MINERU_ASSIGN_OR_RETURN(std::unique_ptr<RemoteClient> client, RemoteClient::Create(std::move(o)));
  return std::unique_ptr<RemoteBackend>(new RemoteBackend(config, std::move(client)));
}

std::string RemoteBackend::Describe() const {
  std::ostringstream s;
  s << "MinerU 2.0 on remote servers:";
  for (const std::string& url : SplitRemoteUrls(config_.remote_urls)) s << " " << url;
  s << " (" << config_.remote_concurrency << " requests each, timeout " << config_.remote_timeout_ms / 1000
    << " s" << (config_.remote_api_key_file.empty() ? "" : ", with an API key") << ")";
  return s.str();
}

Result<BackendOutput> RemoteBackend::Parse(const BackendInput& input, const PageProgressFn& progress,
                                           const CancelFlag& cancel) {
  MINERU_ASSIGN_OR_RETURN(std::unique_ptr<document::PdfDocument> pdf, OpenBackendDocument(input, cancel));
  document::ParsedDocument doc;
  doc.backend = "vlm";
  doc.num_pages = pdf->page_count();
  doc.warnings = pdf->TakeWarnings();
  MINERU_ASSIGN_OR_RETURN(const document::ResolvedPages range,
                          document::ResolvePageRange(input.pages, doc.num_pages));
  const uint64_t key = input.job_id != 0 ? input.job_id : g_anonymous_jobs.fetch_add(1);
  const ChatSampling sampling = MineruSampling(config_.max_new_tokens);
  const double dpi = static_cast<double>(config_.render_dpi);
  // Whatever ends the job early ends its pages on the servers too.
  struct CancelOnExit {
    RemoteClient* client;
    uint64_t key;
    bool armed = true;
    ~CancelOnExit() {
      if (armed) client->Cancel(key);
    }
  } cancel_on_exit{client_.get(), key};

  std::deque<InFlight> window;
  int next = range.first;
  int64_t pages_done = 0;
  int64_t pages_answered = 0;
  Status first_failure;
  while (next <= range.last || !window.empty()) {
    while (next <= range.last && static_cast<int64_t>(window.size()) < window_pages_) {
      if (cancel.load(std::memory_order_acquire)) return Cancelled("the job was cancelled");
      if (input.watch) input.watch->Expect(input.page_allowance);
      MINERU_ASSIGN_OR_RETURN(RenderedPage page, RenderPageForModel(*pdf, next++, dpi));
      InFlight f;
      if (page.error.empty()) {
        RemotePage request;
        request.job_id = key;
        MINERU_ASSIGN_OR_RETURN(request.png, document::EncodePng(page.image));
        request.sampling = sampling;
        request.deadline = input.deadline;
        f.text = client_->Submit(std::move(request));
      }
      f.page = std::move(page);
      window.push_back(std::move(f));
    }
    InFlight f = std::move(window.front());
    window.pop_front();
    document::PageResult result;
    if (!f.text.valid()) {
      result.page_idx = f.page.page_index;
      result.status = document::PageStatus::kFailed;
      result.error = f.page.error;
    } else {
      if (input.watch) input.watch->Idle();  // the client's timeouts bound the wait
      Result<std::string> text = f.text.get();
      if (input.watch) input.watch->Expect(input.page_allowance);
      if (cancel.load(std::memory_order_acquire)) return Cancelled("the job was cancelled");
      if (!text.ok()) {
        const StatusCode code = text.status().code();
        if (code == StatusCode::kCancelled || code == StatusCode::kDeadlineExceeded) {
          return text.status().WithContext("page " + std::to_string(f.page.page_index + 1));
        }
        if (first_failure.ok())
          first_failure = text.status().WithContext("page " + std::to_string(f.page.page_index + 1));
        result.page_idx = f.page.page_index;
        result.status = document::PageStatus::kFailed;
        result.error = text.status().message();
      } else {
        ++pages_answered;
        result = document::BuildVlmPage(f.page.page_index, f.page.size.width_pt, f.page.size.height_pt,
                                        std::move(*text), f.page.image, doc);
      }
    }
    doc.pages.push_back(std::move(result));
    progress(++pages_done, range.count(), MakePageOutput(doc.pages.back(), "vlm"));
  }
  cancel_on_exit.armed = false;
  if (pages_answered == 0 && !first_failure.ok()) return first_failure;
  MINERU_ASSIGN_OR_RETURN(document::OutputFiles files, document::WriteOutputs(doc, input.name, pdf.get()));
  return ToBackendOutput(std::move(files), static_cast<int64_t>(doc.pages.size()));
}

BackendStats RemoteBackend::Stats() const {
  const RemoteClientStats s = client_->stats();
  BackendStats out;
  out.counters = {
      {"remote_requests_total", static_cast<double>(s.requests)},
      {"remote_retries_total", static_cast<double>(s.retries)},
      {"remote_pages_total", static_cast<double>(s.pages_done)},
      {"remote_pages_failed_total", static_cast<double>(s.pages_failed)},
      {"remote_probes_total", static_cast<double>(s.probes)},
      {"remote_servers", static_cast<double>(s.servers)},
      {"remote_servers_in_rotation", static_cast<double>(s.servers_in_rotation)},
      {"remote_pages_in_flight", static_cast<double>(s.in_flight)},
      {"remote_pages_waiting", static_cast<double>(s.waiting)},
  };
  return out;
}

void RemoteBackend::Cancel(uint64_t job_id) { client_->Cancel(job_id); }

int64_t RemoteBackend::JobSlots() const { return 2; }

std::string RemoteBackend::StatusLine() const {
  const RemoteClientStats s = client_->stats();
  return "remote: " + std::to_string(s.servers_in_rotation) + "/" + std::to_string(s.servers) +
         " servers answering, " + std::to_string(s.in_flight) + " pages in flight";
}

}  // namespace mineru::pipeline
