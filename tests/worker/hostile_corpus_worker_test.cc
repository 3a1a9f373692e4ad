// Every PDF of ../shared/corpus/hostile-pdfjs and hostile-qpdf through the real minerud-worker, the way
// minerud parses it: a fresh sandboxed worker per file (two at a time), the document as a sealed memfd,
// Open and ParseText under a memory cap and a deadline. Each file must end in a result or a clear
// error from the worker; a worker that dies (a crash in the PDF parser, or a sanitizer's report: in the
// sanitizer build the worker is built with AddressSanitizer and UBSan too, and its report goes to this
// test's stderr) fails the file. A worker ended by the deadline or its memory limit is a clear error.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "shm/document_buffer.h"
#include "tests/support/shared_data.h"
#include "worker/worker_process.h"

namespace mineru::worker {
namespace {

namespace fs = std::filesystem;

constexpr int64_t kDeadlineMs = 15'000;
constexpr uint64_t kMemoryCapBytes = 256ull << 20;

// "" when `path` ends in a result or a clear error; else what went wrong.
std::string ParseInWorker(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::string pdf((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (pdf.empty()) return "";  // an empty file is refused before any worker
  std::span<const uint8_t> bytes(reinterpret_cast<const uint8_t*>(pdf.data()), pdf.size());
  auto buffer = shm::DocumentBuffer::CopyOf(bytes);
  if (!buffer.ok()) return buffer.status().ToString();
  auto memfd = buffer->Seal();
  if (!memfd.ok()) return memfd.status().ToString();
  WorkerOptions options;
  options.path = MINERUD_WORKER_PATH;
  options.address_space_bytes = kMemoryCapBytes + (1ull << 30);
  options.cpu_seconds = kDeadlineMs / 1000;
  auto w = WorkerProcess::Start(options);
  if (!w.ok()) return w.status().ToString();
  auto ready = (*w)->WaitReady(Deadline::InMillis(60'000));
  if (!ready.ok()) return ready.status().ToString();
  OpenLimits limits;
  limits.name = path.stem().string();
  limits.memory_limit_bytes = kMemoryCapBytes;
  limits.deadline = Deadline::InMillis(kDeadlineMs);
  auto pages = (*w)->Open(memfd->get(), pdf.size(), limits);
  Status end = pages.status();
  if (pages.ok()) {
    std::atomic<bool> cancel{false};
    end = (*w)->ParseText(
                  0, UINT32_MAX, [](WorkerPage) {}, std::chrono::milliseconds(0), cancel)
              .status();
  }
  // A limit that ended the worker is its clear error; a worker that died otherwise is a failure.
  if (IsWorkerLost(end)) return end.ToString();
  return "";
}

TEST(HostileCorpusWorkerTest, EveryHostilePdfEndsInAResultOrAClearErrorInItsWorker) {
  MINERU_SHARED_DIR_OR_SKIP(shared);
  std::vector<fs::path> files;
  for (const char* dir : {"corpus/hostile-pdfjs", "corpus/hostile-qpdf"}) {
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(shared / dir, ec)) {
      if (e.path().extension() == ".pdf") files.push_back(e.path());
    }
  }
  std::sort(files.begin(), files.end());
  ASSERT_GT(files.size(), 100u) << "the hostile corpora are missing from " << shared;
  std::atomic<size_t> next{0};
  std::mutex mu;
  std::vector<std::string> failures;  // Guarded by mu.
  auto run = [&] {
    for (size_t i; (i = next.fetch_add(1)) < files.size();) {
      std::string why = ParseInWorker(files[i]);
      if (why.empty()) continue;
      std::lock_guard lock(mu);
      failures.push_back(files[i].filename().string() + ": " + why);
    }
  };
  std::thread a(run), b(run);
  a.join();
  b.join();
  for (const std::string& f : failures) ADD_FAILURE() << f;
}

}  // namespace
}  // namespace mineru::worker
