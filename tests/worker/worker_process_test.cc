// minerud's side of a document worker against the real minerud-worker: the API a backend uses (start,
// Ready, Open, Render) gives the same page image as rendering in process, through a sealed memfd; the
// worker is pid 1 of a pid namespace of its own where the kernel gives one; a worker past its CPU limit
// is reported as such.
#include "worker/worker_process.h"

#include <gtest/gtest.h>
#include <sched.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>
#include <iterator>
#include <sstream>

#include "document/pdf_document.h"
#include "shm/document_buffer.h"
#include "tests/daemon/temp_dir.h"
#include "tests/support/shared_data.h"

namespace mineru::worker {
namespace {

TEST(WorkerProcessTest, RendersAPageAsInProcessThroughSharedMemory) {
  MINERU_SHARED_DIR_OR_SKIP(shared);
  std::ifstream in(shared / "corpus/docling/pdf/normal_4pages.pdf", std::ios::binary);
  std::string pdf((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  ASSERT_FALSE(pdf.empty());
  std::span<const uint8_t> bytes(reinterpret_cast<const uint8_t*>(pdf.data()), pdf.size());
  auto buffer = shm::DocumentBuffer::CopyOf(bytes);
  ASSERT_TRUE(buffer.ok());
  auto memfd = buffer->Seal();
  ASSERT_TRUE(memfd.ok());

  WorkerOptions options;
  options.path = MINERUD_WORKER_PATH;
  options.address_space_bytes = 2ull << 30;
  options.cpu_seconds = 60;
  auto worker = WorkerProcess::Start(options);
  ASSERT_TRUE(worker.ok()) << worker.status().ToString();
  auto report = (*worker)->WaitReady(Deadline::InMillis(60'000));
  ASSERT_TRUE(report.ok()) << report.status().ToString();
  EXPECT_NE(report->find("seccomp"), std::string::npos) << *report;
  OpenLimits limits;
  limits.name = "normal_4pages";
  limits.deadline = Deadline::InMillis(60'000);
  auto pages = (*worker)->Open(memfd->get(), pdf.size(), limits);
  ASSERT_TRUE(pages.ok()) << pages.status().ToString();
  EXPECT_EQ(*pages, 4);
  auto image = (*worker)->Render(1, 72, Deadline::InMillis(60'000));
  ASSERT_TRUE(image.ok()) << image.status().ToString();

  auto local = document::PdfDocument::Open(bytes, document::DocumentLimits{});
  ASSERT_TRUE(local.ok());
  auto expected = (*local)->RenderPage(1, 72);
  ASSERT_TRUE(expected.ok());
  EXPECT_EQ(image->width, expected->width);
  EXPECT_EQ(image->height, expected->height);
  ASSERT_EQ(image->rgb().size(), expected->pixels.size());
  EXPECT_TRUE(std::equal(image->rgb().begin(), image->rgb().end(), expected->pixels.begin()));
  // A page past the end is the worker's clear error, not its end.
  auto past = (*worker)->Render(99, 72, Deadline::InMillis(60'000));
  EXPECT_FALSE(past.ok());
  EXPECT_FALSE(IsWorkerLost(past.status())) << past.status().ToString();
}

// Whether this process may make a pid namespace for a child (with a user namespace, or alone as root).
bool KernelGivesPidNamespaces() {
  for (const int flags : {CLONE_NEWUSER | CLONE_NEWPID, CLONE_NEWPID}) {
    const long pid = ::syscall(SYS_clone, flags | SIGCHLD, nullptr, nullptr, nullptr, 0);
    if (pid == 0) ::_exit(0);
    if (pid > 0) {
      ::waitpid(static_cast<pid_t>(pid), nullptr, 0);
      return true;
    }
  }
  return false;
}

// The pids of `pid` in each pid namespace it is in, outermost first (/proc/PID/status, NSpid).
std::vector<std::string> NamespacePids(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/status");
  std::vector<std::string> out;
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("NSpid:", 0) != 0) continue;
    std::istringstream fields(line.substr(6));
    for (std::string f; fields >> f;) out.push_back(f);
  }
  return out;
}

TEST(WorkerProcessTest, AWorkerIsPidOneOfItsOwnPidNamespaceWhereTheKernelGivesOne) {
  WorkerOptions options;
  options.path = MINERUD_WORKER_PATH;
  auto worker = WorkerProcess::Start(options);
  ASSERT_TRUE(worker.ok()) << worker.status().ToString();
  auto report = (*worker)->WaitReady(Deadline::InMillis(60'000));
  ASSERT_TRUE(report.ok()) << report.status().ToString();
  const std::vector<std::string> pids = NamespacePids((*worker)->pid());
  ASSERT_FALSE(pids.empty());
  EXPECT_EQ(pids.front(), std::to_string((*worker)->pid()));
  if (KernelGivesPidNamespaces()) {
    EXPECT_EQ(pids.size(), 2u);
    EXPECT_EQ(pids.back(), "1");
    EXPECT_NE(report->find("pid namespace of its own"), std::string::npos) << *report;
  } else {
    EXPECT_NE(report->find("the daemon's pid namespace"), std::string::npos) << *report;
  }

  // Without namespaces it shares the daemon's, and says so.
  options.namespaces = false;
  auto plain = WorkerProcess::Start(options);
  ASSERT_TRUE(plain.ok()) << plain.status().ToString();
  auto plain_report = (*plain)->WaitReady(Deadline::InMillis(60'000));
  ASSERT_TRUE(plain_report.ok()) << plain_report.status().ToString();
  EXPECT_EQ(NamespacePids((*plain)->pid()).size(), pids.size() - (pids.size() > 1 ? 1 : 0));
  EXPECT_NE(plain_report->find("namespaces not requested"), std::string::npos) << *plain_report;
}

// Executable by its mode but not a program: execve fails in the child, and Start says so itself.
TEST(WorkerProcessTest, AWorkerThatCannotBeExecutedIsAnErrorAtStart) {
  testing::TempDir tmp;
  const std::string path = tmp.path() + "/not-a-program";
  std::ofstream(path) << "not an executable\n";
  ASSERT_EQ(::chmod(path.c_str(), 0755), 0);
  WorkerOptions options;
  options.path = path;
  auto worker = WorkerProcess::Start(options);
  ASSERT_FALSE(worker.ok());
  EXPECT_NE(worker.status().ToString().find("starting the document worker"), std::string::npos)
      << worker.status().ToString();
}

// The worker's soft CPU limit, lowered from outside to one second, ends it on the next pages it renders:
// reported as its CPU limit, not as a crash, whether or not it is pid 1 of its namespace (where a signal
// without a handler is not delivered).
TEST(WorkerProcessTest, AWorkerPastItsCpuLimitIsReportedAsSuch) {
  MINERU_SHARED_DIR_OR_SKIP(shared);
  std::ifstream in(shared / "corpus/docling/pdf/normal_4pages.pdf", std::ios::binary);
  std::string pdf((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  ASSERT_FALSE(pdf.empty());
  auto buffer = shm::DocumentBuffer::CopyOf(
      std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(pdf.data()), pdf.size()));
  ASSERT_TRUE(buffer.ok());
  auto memfd = buffer->Seal();
  ASSERT_TRUE(memfd.ok());
  WorkerOptions options;
  options.path = MINERUD_WORKER_PATH;
  options.cpu_seconds = 60;
  auto worker = WorkerProcess::Start(options);
  ASSERT_TRUE(worker.ok()) << worker.status().ToString();
  ASSERT_TRUE((*worker)->WaitReady(Deadline::InMillis(60'000)).ok());
  OpenLimits limits;
  limits.name = "normal_4pages";
  limits.deadline = Deadline::InMillis(120'000);
  ASSERT_TRUE((*worker)->Open(memfd->get(), pdf.size(), limits).ok());
  rlimit cpu{};
  ASSERT_EQ(::prlimit((*worker)->pid(), RLIMIT_CPU, nullptr, &cpu), 0);
  cpu.rlim_cur = 1;
  ASSERT_EQ(::prlimit((*worker)->pid(), RLIMIT_CPU, &cpu, nullptr), 0);
  Status end;
  for (int i = 0; i < 500 && end.ok(); ++i) {
    end = (*worker)->Render(static_cast<uint32_t>(i % 4), 200, Deadline::InMillis(60'000)).status();
  }
  EXPECT_EQ(end.code(), StatusCode::kDeadlineExceeded) << end.ToString();
  EXPECT_NE(end.message().find("used up its CPU time limit"), std::string::npos) << end.ToString();
}

}  // namespace
}  // namespace mineru::worker
