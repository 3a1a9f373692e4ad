// daemon_bench: what going through minerud costs, measured side by side in one run.
//   1. Ping round trip: libmineru-client -> minerud's event loop -> back, vs. the same frames over a
//      socketpair between two threads of this process (no daemon).
//   2. One document: submit + wait + fetch through minerud, vs. the text-layer backend called
//      directly in this process on the same bytes.
//   3. Result delivery: bytes fetched through the result ring per second, vs. memcpy of those bytes.
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
#include <sstream>
#include <thread>
#include <vector>

#include "common/clock.h"
#include "mineru/client.h"
#include "pipeline/text_layer_backend.h"
#include "shm/channel.h"

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
  std::error_code ec;
  std::filesystem::remove_all(dir, ec);
  return 0;
}
