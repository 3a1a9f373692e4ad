// Every PDF of ../shared/corpus/hostile-pdfjs and hostile-qpdf must end, within the limits, in a result
// or a clear per-document error. Each file runs in a forked child (two at a time) so that a crash or a
// hang inside MuPDF shows up as a failed file instead of taking the test runner down; the parent kills a
// child that runs past its wall-clock limit. The child reports its MuPDF peak (counted by our allocator)
// and the parent checks the child's whole resident set as well.
#include <fcntl.h>
#include <poll.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "document/output_writer.h"
#include "document/pdf_document.h"
#include "document/text_backend.h"
#include "tests/document/test_pdf.h"
#include "tests/support/shared_data.h"

namespace mineru::document {
namespace {

constexpr uint64_t kMemoryCap = 256ull << 20;
constexpr int64_t kTimeBudgetMs = 15'000;
constexpr int kWallLimitMs = 40'000;  // the budget plus slack for a loaded 2-core machine
// Our own copies (renders, JPEGs, outputs) on top of MuPDF's cap; AddressSanitizer adds its shadow
// memory and quarantine to the resident set (MuPDF's own cap is checked exactly either way).
#if defined(__SANITIZE_ADDRESS__)
constexpr long kRssSlackKb = 1024 * 1024;
#else
constexpr long kRssSlackKb = 256 * 1024;
#endif
constexpr int kParallel = 2;

// Runs in the child: parse and write every output, report one line on `fd`.
[[noreturn]] void ChildMain(const std::string& path, int fd) {
  std::vector<uint8_t> bytes = testing::ReadFileBytes(path);
  DocumentLimits limits;
  limits.max_memory_bytes = kMemoryCap;
  limits.time_budget_ms = kTimeBudgetMs;
  limits.max_pages = 300;
  limits.max_pixels_per_page = 25'000'000;
  std::string line;
  auto doc = PdfDocument::Open(bytes, limits);
  if (!doc.ok()) {
    line = "error " + std::to_string(static_cast<int>(doc.status().code())) + " 0 " + doc.status().message();
  } else {
    auto parsed = ParseWithTextLayer(**doc, {});
    Status s = parsed.status();
    if (parsed.ok()) {
      auto files = WriteOutputs(*parsed, "out", doc->get());
      s = files.status();
    }
    line = (s.ok() ? "ok 0 " : "error " + std::to_string(static_cast<int>(s.code())) + " ") +
           std::to_string((*doc)->peak_memory_bytes()) + " " + s.message();
  }
  line += "\n";
  ssize_t unused = write(fd, line.data(), line.size());
  (void)unused;
  _exit(0);
}

struct Child {
  pid_t pid = -1;
  int fd = -1;
  std::string file;
  std::string report;
  std::chrono::steady_clock::time_point started;
};

TEST(HostileCorpusTest, EveryFileEndsInAResultOrAClearError) {
  MINERU_SHARED_DIR_OR_SKIP(shared);
  std::vector<std::string> files;
  for (const char* dir : {"corpus/hostile-pdfjs", "corpus/hostile-qpdf"}) {
    std::error_code ec;
    for (const auto& e : std::filesystem::directory_iterator(shared / dir, ec)) {
      if (e.is_regular_file()) files.push_back(e.path().string());
    }
  }
  std::sort(files.begin(), files.end());
  ASSERT_GT(files.size(), 200u) << "hostile corpora incomplete";

  std::map<std::string, int> outcomes;
  std::vector<Child> running;
  size_t next = 0;
  auto start_child = [&]() {
    int fds[2];
    ASSERT_EQ(pipe2(fds, O_CLOEXEC), 0);
    pid_t pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      close(fds[0]);
      ChildMain(files[next], fds[1]);
    }
    close(fds[1]);
    running.push_back({pid, fds[0], files[next], "", std::chrono::steady_clock::now()});
    ++next;
  };
  while (next < files.size() || !running.empty()) {
    while (running.size() < kParallel && next < files.size()) start_child();
    // Wait up to 100 ms for output from any child, then reap the ones that ended.
    std::vector<pollfd> pfds;
    for (const Child& c : running) pfds.push_back({c.fd, POLLIN, 0});
    poll(pfds.data(), pfds.size(), 100);
    for (size_t i = 0; i < running.size();) {
      Child& c = running[i];
      auto elapsed_ms =
          std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - c.started)
              .count();
      char buf[512];
      ssize_t n;
      while ((n = read(c.fd, buf, sizeof(buf))) > 0) c.report.append(buf, static_cast<size_t>(n));
      int status = 0;
      rusage usage{};
      pid_t done = wait4(c.pid, &status, WNOHANG, &usage);
      if (done == 0 && elapsed_ms < kWallLimitMs) {
        ++i;
        continue;
      }
      std::string name = std::filesystem::path(c.file).filename().string();
      if (done == 0) {
        kill(c.pid, SIGKILL);
        waitpid(c.pid, &status, 0);
        ADD_FAILURE() << name << ": still running after " << kWallLimitMs << " ms (a hang the limits missed)";
        ++outcomes["hang"];
      } else {
        while ((n = read(c.fd, buf, sizeof(buf))) > 0) c.report.append(buf, static_cast<size_t>(n));
        if (WIFSIGNALED(status)) {
          ADD_FAILURE() << name << ": crashed with signal " << WTERMSIG(status);
          ++outcomes["crash"];
        } else if (c.report.empty()) {
          ADD_FAILURE() << name << ": exited without a result";
          ++outcomes["no result"];
        } else {
          char kind[16] = {0};
          int code = 0;
          unsigned long long peak = 0;
          sscanf(c.report.c_str(), "%15s %d %llu", kind, &code, &peak);
          ++outcomes[std::string(kind) + " " + std::string(StatusCodeName(static_cast<StatusCode>(code)))];
          EXPECT_LE(peak, kMemoryCap) << name;
          EXPECT_LE(usage.ru_maxrss, static_cast<long>(kMemoryCap / 1024) + kRssSlackKb)
              << name << ": resident set " << usage.ru_maxrss << " KiB";
          if (std::string(kind) == "error") {
            // A clear error: a code other than Internal and a message that says something.
            EXPECT_NE(code, static_cast<int>(StatusCode::kInternal)) << name << ": " << c.report;
            EXPECT_GT(c.report.size(), 16u) << name << ": an error needs a message";
          }
        }
      }
      close(c.fd);
      running.erase(running.begin() + static_cast<ptrdiff_t>(i));
    }
  }
  std::string summary;
  for (const auto& [k, v] : outcomes) summary += k + ": " + std::to_string(v) + "; ";
  RecordProperty("outcomes", summary);
  std::printf("hostile corpus (%zu files): %s\n", files.size(), summary.c_str());
  EXPECT_EQ(outcomes.count("hang"), 0u);
  EXPECT_EQ(outcomes.count("crash"), 0u);
}

}  // namespace
}  // namespace mineru::document
