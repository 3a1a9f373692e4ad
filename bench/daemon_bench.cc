// daemon_bench: what going through minerud costs, measured side by side in one run.
//   1. Ping round trip: libmineru-client -> minerud's event loop -> back, vs. the same frames over a
//      socketpair between two threads of this process (no daemon).
//   2. One document: submit + wait + fetch through minerud, vs. the text-layer backend called
//      directly in this process on the same bytes.
//   3. Result delivery: bytes fetched through the result ring per second, vs. memcpy of those bytes.
//   4. The text-layer backend in sandboxed document workers (minerud's path) vs. in this process:
//      pages/s and time to first page over the same documents one after another, and where a
//      worker's time goes (start to Ready, Open, first page, the rest).
// Usage: daemon_bench [PDF] (default ../shared/corpus/docling/pdf/normal_4pages.pdf)
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <thread>
#include <vector>

#include "common/clock.h"
#include "mineru/client.h"
#include "pipeline/sandboxed_text_backend.h"
#include "pipeline/text_layer_backend.h"
#include "shm/channel.h"
#include "shm/document_buffer.h"
#include "worker/worker_process.h"

namespace {

using mineru::Deadline;
using mineru::Stopwatch;

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

pid_t StartDaemon(const std::string& dir) {
  pid_t pid = ::fork();
  if (pid == 0) {
    int devnull = ::open("/dev/null", O_WRONLY);
    ::dup2(devnull, 2);
    ::execl(MINERUD_PATH, MINERUD_PATH, "--socket", (dir + "/s.sock").c_str(), "--state-dir",
            (dir + "/state").c_str(), "--workers", "1", "--log-level", "warning",
            static_cast<char*>(nullptr));
    _exit(127);
  }
  return pid;
}

struct DocTime {
  double total_ms = 0;
  double first_page_ms = 0;
  int64_t pages = 0;
};

// One parse of `pdf` through `backend`, as user 1000; nullopt on an error (printed).
std::optional<DocTime> ParseOnce(mineru::pipeline::Backend& backend, const std::vector<uint8_t>& pdf) {
  auto sealed = mineru::shm::DocumentBuffer::CopyOf(pdf);
  auto fd = sealed->Seal();
  mineru::pipeline::BackendInput input;
  input.document = pdf;
  input.document_fd = fd->get();
  input.name = "bench";
  input.user = 1000;
  mineru::pipeline::CancelFlag cancel{false};
  Stopwatch w;
  double first_ms = -1;
  auto out = backend.Parse(
      input,
      [&](int64_t, int64_t, std::shared_ptr<const mineru::pipeline::PageOutput>) {
        if (first_ms < 0) first_ms = w.ElapsedMillis();
      },
      cancel);
  if (!out.ok()) {
    std::fprintf(stderr, "daemon_bench: %s\n", out.status().ToString().c_str());
    return std::nullopt;
  }
  return DocTime{w.ElapsedMillis(), first_ms, out->num_pages};
}

// `docs` documents through each backend, alternating (a busy machine slows both alike): pages/s and the
// median time to first page of each.
void CompareBackends(mineru::pipeline::Backend& workers, mineru::pipeline::Backend& in_process,
                     const std::vector<uint8_t>& pdf, int docs) {
  double ms[2] = {0, 0};
  int64_t pages[2] = {0, 0};
  std::vector<double> first[2];
  for (int i = 0; i < docs; ++i) {
    for (int side = 0; side < 2; ++side) {
      std::optional<DocTime> t = ParseOnce(side == 0 ? workers : in_process, pdf);
      if (!t) return;
      ms[side] += t->total_ms;
      pages[side] += t->pages;
      first[side].push_back(t->first_page_ms);
    }
  }
  const double pps[2] = {pages[0] / ms[0] * 1000, pages[1] / ms[1] * 1000};
  const double ttfp[2] = {Median(first[0]), Median(first[1])};
  std::printf(
      "text layer, %d documents each, alternating: workers %.1f pages/s, in process %.1f pages/s, ratio "
      "%.2fx; time to first page (median): workers %.1f ms, in process %.1f ms, ratio %.2fx (in/workers)\n",
      docs, pps[0], pps[1], pps[0] / pps[1], ttfp[0], ttfp[1], ttfp[1] / ttfp[0]);
}

// Where a document's time goes in a fresh worker and in the same worker's next document.
void ProfileWorker(const std::string& worker_path, const std::vector<uint8_t>& pdf) {
  std::vector<double> ready, open[2], first[2], rest[2];
  for (int i = 0; i < 5; ++i) {
    mineru::worker::WorkerOptions o;
    o.path = worker_path;
    Stopwatch w;
    auto p = mineru::worker::WorkerProcess::Start(o);
    if (!p.ok() || !(*p)->WaitReady(Deadline::InMillis(20'000)).ok()) return;
    ready.push_back(w.ElapsedMillis());
    for (int again = 0; again < 2; ++again) {
      auto buf = mineru::shm::DocumentBuffer::CopyOf(pdf);
      auto fd = buf->Seal();
      mineru::worker::OpenLimits limits;
      limits.name = "bench";
      Stopwatch o_w;
      if (!(*p)->Open(fd->get(), pdf.size(), limits).ok()) return;
      open[again].push_back(o_w.ElapsedMillis());
      std::atomic<bool> cancel{false};
      Stopwatch pw;
      double first_ms = -1;
      auto parsed = (*p)->ParseText(
          0, UINT32_MAX,
          [&](mineru::worker::WorkerPage) {
            if (first_ms < 0) first_ms = pw.ElapsedMillis();
          },
          std::chrono::milliseconds(0), cancel);
      if (!parsed.ok()) return;
      first[again].push_back(first_ms);
      rest[again].push_back(pw.ElapsedMillis() - first_ms);
    }
  }
  std::printf(
      "a worker's time (medians of 5): start to Ready %.1f ms; first document: Open %.1f ms, first page "
      "%.1f ms, the other pages and the files %.1f ms; the next document in the same worker: Open "
      "%.1f ms, first page %.1f ms, the rest %.1f ms\n",
      Median(ready), Median(open[0]), Median(first[0]), Median(rest[0]), Median(open[1]), Median(first[1]),
      Median(rest[1]));
}

}  // namespace

int main(int argc, char** argv) {
  std::string pdf_path = argc > 1 ? argv[1] : "../shared/corpus/docling/pdf/normal_4pages.pdf";
  std::ifstream in(pdf_path, std::ios::binary);
  if (!in) {
    std::fprintf(stderr, "daemon_bench: cannot read %s\n", pdf_path.c_str());
    return 1;
  }
  std::stringstream ss;
  ss << in.rdbuf();
  std::string text = ss.str();
  std::vector<uint8_t> pdf(text.begin(), text.end());

  char tmpl[] = "/tmp/daemon-bench-XXXXXX";
  std::string dir = ::mkdtemp(tmpl);
  pid_t daemon = StartDaemon(dir);
  mineru::client::ClientOptions options;
  options.socket_path = dir + "/s.sock";
  std::optional<mineru::client::Client> client;
  for (Deadline d = Deadline::InMillis(20'000); !d.Expired() && !client;) {
    auto c = mineru::client::Client::Connect(options);
    if (c.ok())
      client.emplace(std::move(*c));
    else
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  if (!client) {
    std::fprintf(stderr, "daemon_bench: minerud did not come up\n");
    ::kill(daemon, SIGKILL);
    return 1;
  }

  // 1. Ping.
  constexpr int kPings = 2000;
  std::vector<double> via_daemon;
  for (int i = 0; i < kPings; ++i) via_daemon.push_back(*client->Ping());
  auto pair = mineru::shm::Channel::Pair();
  std::thread echo([&] {
    auto& peer = pair->second;
    for (int i = 0; i < kPings; ++i) {
      auto m = peer.Receive();
      if (!m.ok()) return;
      peer.Send(mineru::shm::Pong{std::get<mineru::shm::Ping>(m->message).nonce, {}}).IgnoreError();
    }
  });
  std::vector<double> direct;
  for (int i = 0; i < kPings; ++i) {
    Stopwatch w;
    pair->first.Send(mineru::shm::Ping{static_cast<uint64_t>(i), {}}).IgnoreError();
    auto m = pair->first.Receive();
    direct.push_back(w.ElapsedNanos() / 1000.0);
  }
  echo.join();
  double ping_d = Median(via_daemon), ping_p = Median(direct);
  std::printf("ping round trip (median of %d): minerud %.1f us, socketpair %.1f us, ratio %.2fx\n", kPings,
              ping_d, ping_p, ping_d / ping_p);

  // 2. One document, end to end vs. in process.
  constexpr int kDocs = 5;
  std::vector<double> e2e, inproc;
  uint64_t result_bytes = 0;
  double fetch_seconds = 0;
  std::vector<std::vector<uint8_t>> fetched;
  for (int i = 0; i < kDocs; ++i) {
    Stopwatch w;
    mineru::client::SubmitOptions so;
    so.name = "bench";
    auto id = client->Submit(pdf, so);
    auto st = client->Wait(*id);
    Stopwatch f;
    auto files = client->Fetch(*id);
    fetch_seconds += f.ElapsedSeconds();
    e2e.push_back(w.ElapsedMillis());
    if (!files.ok() || st->state != mineru::client::JobState::kDone) {
      std::fprintf(stderr, "daemon_bench: job failed\n");
      break;
    }
    for (auto& file : *files) {
      result_bytes += file.data.size();
      if (i == 0) fetched.push_back(std::move(file.data));
    }
  }
  mineru::pipeline::TextLayerBackend backend;
  for (int i = 0; i < kDocs; ++i) {
    Stopwatch w;
    mineru::pipeline::BackendInput input;
    input.document = pdf;
    input.name = "bench";
    mineru::pipeline::CancelFlag cancel{false};
    auto out = backend.Parse(
        input, [](int64_t, int64_t, std::shared_ptr<const mineru::pipeline::PageOutput>) {}, cancel);
    inproc.push_back(w.ElapsedMillis());
  }
  double e2e_ms = Median(e2e), in_ms = Median(inproc);
  std::printf("document %s (median of %d): through minerud %.1f ms, in process %.1f ms, ratio %.2fx\n",
              pdf_path.c_str(), kDocs, e2e_ms, in_ms, e2e_ms / in_ms);

  // 3. Result ring throughput vs memcpy.
  uint64_t per_doc = result_bytes / kDocs;
  std::vector<uint8_t> sink(per_doc + 1);
  Stopwatch m;
  constexpr int kCopies = 50;
  for (int r = 0; r < kCopies; ++r) {
    size_t off = 0;
    for (const auto& b : fetched) {
      std::memcpy(sink.data() + off, b.data(), b.size());
      off += b.size();
    }
  }
  double memcpy_gbps = per_doc * static_cast<double>(kCopies) / m.ElapsedSeconds() / 1e9;
  double ring_gbps = result_bytes / fetch_seconds / 1e9;
  std::printf(
      "result delivery: fetch through the ring %.3f GB/s (%.0f KiB per document), memcpy %.2f GB/s, "
      "ratio %.3f\n",
      ring_gbps, per_doc / 1024.0, memcpy_gbps, ring_gbps / memcpy_gbps);

  client.reset();
  ::kill(daemon, SIGTERM);
  ::waitpid(daemon, nullptr, 0);
  daemon = -1;

  // 4. The worker path vs. in process, on an otherwise idle machine (the daemon is gone).
  {
    constexpr int kBackendDocs = 20;
    mineru::Config config;
    config.document_worker = MINERUD_WORKER_PATH;
    config.workers = 1;
    auto sandboxed = mineru::pipeline::SandboxedTextLayerBackend::Start(config);
    if (!sandboxed.ok()) {
      std::fprintf(stderr, "daemon_bench: %s\n", sandboxed.status().ToString().c_str());
      return 1;
    }
    ProfileWorker(MINERUD_WORKER_PATH, pdf);
    CompareBackends(**sandboxed, backend, pdf, kBackendDocs);
  }
  std::error_code ec;
  std::filesystem::remove_all(dir, ec);
  return 0;
}
